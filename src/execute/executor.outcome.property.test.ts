// Property: whatever fn does per attempt (return, throw, hang deaf, answer late) and whenever the caller aborts, a call
// ends exactly once, and the policy's counters agree with the events and with fn's calls.
import diagnostics from 'node:diagnostics_channel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propertyRuns } from '../../test/support/property-runs.js';
import { SeawallError } from '../driver/errors.js';
import { type GiveUpEvent, isGiveUp, type RetryEvent, SEAWALL_CHANNELS } from '../driver/events.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { type AttemptContext, createExecutor } from './executor.js';

const PER_TRY_MS = 8;
const LATE_MS = 16; // a late answer lands after its per-try timeout fired

type Behaviour = 'value' | 'throw-refused' | 'reject-refused' | 'throw-other' | 'deaf' | 'late' | 'obeys-signal';
const BEHAVIOURS: Behaviour[] = [
  'value',
  'throw-refused',
  'reject-refused',
  'throw-other',
  'deaf',
  'late',
  'obeys-signal',
];

const refused = () => Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });

function act(behaviour: Behaviour, context: AttemptContext): unknown {
  switch (behaviour) {
    case 'value':
      return context.attempt;
    case 'throw-refused':
      throw refused();
    case 'reject-refused':
      return Promise.reject(refused());
    case 'throw-other':
      throw new Error('other');
    case 'deaf':
      return new Promise(() => {});
    case 'late':
      return new Promise((resolve) => setTimeout(() => resolve('late'), LATE_MS));
    case 'obeys-signal':
      return new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }),
      );
  }
}

// Events are process-wide: this file's calls are the only ones running while it listens (vitest runs files apart).
const retries: RetryEvent[] = [];
const giveUps: GiveUpEvent[] = [];
const onRetry = (m: unknown) => retries.push(m as RetryEvent);
const onGiveUp = (m: unknown) => giveUps.push(m as GiveUpEvent);
beforeAll(() => {
  diagnostics.subscribe(SEAWALL_CHANNELS.retry, onRetry);
  diagnostics.subscribe(SEAWALL_CHANNELS.giveUp, onGiveUp);
});
afterAll(() => {
  diagnostics.unsubscribe(SEAWALL_CHANNELS.retry, onRetry);
  diagnostics.unsubscribe(SEAWALL_CHANNELS.giveUp, onGiveUp);
});

describe('every execute call ends in exactly one outcome', () => {
  it('success, give-up or abort, once; stats, events and fn calls agree', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
        async (behaviours, idempotent, abortAfterMs) => {
          retries.length = 0;
          giveUps.length = 0;
          const policy = new RetryPolicy({
            maxAttempts: 4,
            perTryTimeout: PER_TRY_MS,
            backoff: { kind: 'constant', delay: 1 },
            budget: false,
          });
          const hookRetries: RetryEvent[] = [];
          const executor = createExecutor({ policy, upstream: 'p', onRetry: (e) => hookRetries.push(e) });
          const controller = new AbortController();
          const timer = abortAfterMs === null ? null : setTimeout(() => controller.abort(new Error('x')), abortAfterMs);
          let calls = 0;
          const ends: string[] = [];
          const call = executor.execute(
            (context) => {
              calls++;
              return act(behaviours[context.attempt - 1] as Behaviour, context);
            },
            { idempotent, signal: controller.signal },
          );
          let value: unknown;
          call.then(
            (v) => {
              value = v;
              ends.push('success');
            },
            (error: unknown) => {
              if (error === controller.signal.reason) ends.push('abort');
              else if (error instanceof SeawallError) ends.push(isGiveUp(error.reason) ? 'give-up' : 'failed');
              else ends.push(`other ${String(error)}`);
            },
          );
          await call.catch(() => {});
          if (timer !== null) clearTimeout(timer);
          await new Promise((r) => setTimeout(r, LATE_MS + 4)); // late answers and stray aborts have landed
          expect(ends).toHaveLength(1);
          const stats = policy.stats();
          expect(stats.calls).toBe(1);
          expect(stats.active).toBe(0);
          expect(Object.values(stats.stops).reduce((a, b) => a + b, 0)).toBe(1);
          expect(stats.attempts).toBe(calls);
          expect(stats.retries).toBe(retries.length);
          expect(hookRetries).toEqual(retries);
          expect(giveUps).toHaveLength(ends[0] === 'give-up' ? 1 : 0);
          expect(stats.stops.aborted).toBe(ends[0] === 'abort' ? 1 : 0);
          expect(stats.stops.succeeded).toBe(ends[0] === 'success' ? 1 : 0);
          // A success is the value of the last attempt, one that returned in time (never a late answer).
          if (ends[0] === 'success') {
            expect(value).toBe(calls);
            expect(behaviours[calls - 1]).toBe('value');
          }
        },
      ),
      propertyRuns(80),
    );
  }, 60_000);
});
