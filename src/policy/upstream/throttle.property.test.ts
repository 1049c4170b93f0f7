// Property tests for AdaptiveThrottle: random send/end/admit/clock sequences against a plain list-of-events model of the window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import type { Random } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import { AdaptiveThrottle, rejectProbability, WINDOW_BUCKETS } from './throttle.js';

type Op =
  | { op: 'advance'; ms: number }
  | { op: 'send' }
  | { op: 'end'; rejected: boolean }
  | { op: 'admit'; u: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3000 }) }),
  fc.record({ op: fc.constant('send' as const) }),
  fc.record({ op: fc.constant('end' as const), rejected: fc.boolean() }),
  fc.record({ op: fc.constant('admit' as const), u: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) }),
);
const configArb = fc.record({
  k: fc.double({ min: 1, max: 5, noNaN: true }),
  windowS: fc.integer({ min: 1, max: 10 }),
  minRequests: fc.integer({ min: 0, max: 5 }),
});

const draw = (u: number): Random => ({ next: () => u, nextUint32: () => 0, fork: () => draw(u) });
const OK: Outcome = { kind: 'response', status: 200 };
const SHED: Outcome = { kind: 'response', status: 503 };

describe('AdaptiveThrottle against a model that keeps every event', () => {
  it('counts exactly the events of the last WINDOW_BUCKETS buckets, and refuses with the formula', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb, { maxLength: 10 }), fc.array(opArb, { maxLength: 10 }), (c, a, b) => {
        const windowMs = c.windowS * 1000;
        const bucketMs = windowMs / WINDOW_BUCKETS;
        const t = new AdaptiveThrottle({ kind: 'adaptive', k: c.k, window: windowMs, minRequests: c.minRequests });
        // The model: each request and accept with the time it was counted at; the window is a filter over them.
        const requests: number[] = [];
        const accepts: number[] = [];
        let now = 0;
        const inWindow = (times: number[]) =>
          times.filter((at) => Math.floor(at / bucketMs) > Math.floor(now / bucketMs) - WINDOW_BUCKETS).length;
        for (const op of [...a, ...b, ...a]) {
          if (op.op === 'advance') now += op.ms;
          else if (op.op === 'send') {
            t.sent();
            requests.push(now);
          } else if (op.op === 'end') {
            t.ended(now, op.rejected ? SHED : OK);
            if (!op.rejected) accepts.push(now);
          } else {
            const r = inWindow(requests);
            const p = r < c.minRequests ? 0 : rejectProbability(r, inWindow(accepts), c.k);
            const admitted = t.admit(now, draw(op.u));
            expect(admitted).toBe(op.u >= p);
            if (!admitted) requests.push(now);
          }
          const stats = t.stats(now);
          expect(stats.requests).toBe(inWindow(requests));
          expect(stats.accepts).toBe(inWindow(accepts));
          // Bounded: a probability below 1 (the +1), and nothing older than the window is remembered.
          expect(stats.rejectProbability).toBeGreaterThanOrEqual(0);
          expect(stats.rejectProbability).toBeLessThan(1);
          expect(stats.requests).toBeLessThanOrEqual(requests.filter((at) => at > now - windowMs).length);
        }
        // Time-based: one window without traffic and the throttle has forgotten everything.
        expect(t.probability(now + windowMs)).toBe(0);
      }),
      propertyRuns(2000),
    );
  });
});
