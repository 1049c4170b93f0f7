// The retry breaker: validation, the window against a plain model, and through RetryPolicy: it refuses retries, not calls.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import type { ConfigIssue } from '../core/config-error.js';
import { createRandom } from '../core/random.js';
import { RetryPolicy } from './retry.js';
import { RETRY_BREAKER_BUCKETS, RetryBreaker, validateRetryBreaker } from './retry-breaker.js';
import { validateRetryConfig } from './retry-config.js';

function issues(input: unknown): string[] {
  const list: ConfigIssue[] = [];
  validateRetryBreaker(input, 'p.retryBreaker', list);
  return list.map((i) => `${i.path}: ${i.message}`);
}

describe('retry breaker: validation names the key', () => {
  it.each([
    [{}, 'p.retryBreaker.failureRate'],
    [{ failureRate: 0 }, 'p.retryBreaker.failureRate'],
    [{ failureRate: 1 }, 'p.retryBreaker.failureRate'],
    [{ failureRate: Number.NaN }, 'p.retryBreaker.failureRate'],
    [{ failureRate: -0.2 }, 'p.retryBreaker.failureRate'],
    [{ failureRate: 0.2, window: '10ms' }, 'p.retryBreaker.window'],
    [{ failureRate: 0.2, window: '2h' }, 'p.retryBreaker.window'],
    [{ failureRate: 0.2, window: 'soon' }, 'p.retryBreaker.window'],
    [{ failureRate: 0.2, minSamples: 0 }, 'p.retryBreaker.minSamples'],
    [{ failureRate: 0.2, minSamples: 2.5 }, 'p.retryBreaker.minSamples'],
    [{ failureRate: 0.2, minSamples: 1e9 }, 'p.retryBreaker.minSamples'],
    [{ failureRate: 0.2, windows: '1s' }, 'p.retryBreaker.windows'],
    ['on', 'p.retryBreaker'],
  ])('%j is refused at %s', (input, path) => {
    const found = issues(input);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(`${path}: `);
  });

  it('is a RetryPolicy key: resolved with its defaults, and none unless set', () => {
    expect(validateRetryConfig({ retryBreaker: { failureRate: 0.2 } }).config?.retryBreaker).toEqual({
      failureRate: 0.2,
      windowMs: 10_000,
      minSamples: 1,
    });
    expect(validateRetryConfig({}).config?.retryBreaker).toBeNull();
    expect(validateRetryConfig({ retryBreaker: false }).config?.retryBreaker).toBeNull();
    expect(validateRetryConfig({ retryBreaker: { failureRate: 2 } }, 'calls.a -> b').issues[0]?.path).toBe(
      'calls.a -> b.retryBreaker.failureRate',
    );
  });
});

/** The rule in plain words: outcomes in the current bucket and the nine before it, minSamples of them, rate above. */
function modelOpen(
  outcomes: { atMs: number; failed: boolean }[],
  nowMs: number,
  cfg: { failureRate: number; windowMs: number; minSamples: number },
): boolean {
  const bucketMs = cfg.windowMs / RETRY_BREAKER_BUCKETS;
  const current = Math.floor(nowMs / bucketMs);
  const inWindow = outcomes.filter((o) => Math.floor(o.atMs / bucketMs) > current - RETRY_BREAKER_BUCKETS);
  const failed = inWindow.filter((o) => o.failed).length;
  return inWindow.length >= cfg.minSamples && failed > cfg.failureRate * inWindow.length;
}

const config = fc.record({
  failureRate: fc.constantFrom(0.1, 0.2, 0.5, 0.9),
  windowMs: fc.constantFrom(100, 1000, 10_000),
  minSamples: fc.constantFrom(1, 3, 10),
});
const steps = fc.array(
  fc.record({ dtMs: fc.integer({ min: 0, max: 4000 }), failed: fc.boolean(), repeat: fc.integer({ min: 1, max: 6 }) }),
  { maxLength: 10 },
);

describe('retry breaker: the window', () => {
  it('is open exactly when the failure rate over its window is above the threshold (property, against a model)', () => {
    fc.assert(
      fc.property(config, steps, (cfg, list) => {
        const breaker = new RetryBreaker(cfg);
        const seen: { atMs: number; failed: boolean }[] = [];
        let now = 0;
        for (const s of list) {
          now += s.dtMs;
          for (let i = 0; i < s.repeat; i++) {
            breaker.record(s.failed, now);
            seen.push({ atMs: now, failed: s.failed });
          }
          expect(breaker.isOpen(now)).toBe(modelOpen(seen, now, cfg));
          expect(breaker.isOpen(now + cfg.windowMs / 2)).toBe(modelOpen(seen, now + cfg.windowMs / 2, cfg));
        }
      }),
      propertyRuns(3000),
    );
  });

  it('forgets outcomes older than the window, and a clock stepping back counts as now', () => {
    const breaker = new RetryBreaker({ failureRate: 0.5, windowMs: 1000, minSamples: 1 });
    breaker.record(true, 0);
    expect(breaker.isOpen(0)).toBe(true);
    expect(breaker.isOpen(999)).toBe(true);
    expect(breaker.isOpen(1000)).toBe(false);
    breaker.record(false, 1500);
    breaker.record(true, 500); // earlier than the latest outcome: counts at 1500
    expect(breaker.counts(1500)).toEqual({ failures: 1, total: 2 });
    expect(breaker.counts(Number.NaN)).toEqual({ failures: 1, total: 2 });
    expect(breaker.counts(2400)).toEqual({ failures: 1, total: 2 });
    expect(breaker.counts(2500)).toEqual({ failures: 0, total: 0 });
  });
});

describe('retry breaker: in a RetryPolicy', () => {
  it('refuses a retry only while its own failure rate is above the threshold, never a first attempt (property)', () => {
    const outcome = fc.array(
      fc.record({ dtMs: fc.integer({ min: 0, max: 3000 }), failures: fc.integer({ min: 0, max: 3 }) }),
      { maxLength: 10 },
    );
    fc.assert(
      fc.property(config, outcome, (cfg, calls) => {
        const policy = new RetryPolicy(
          {
            maxAttempts: 3,
            backoff: 'none',
            budget: false,
            retryBreaker: { failureRate: cfg.failureRate, window: cfg.windowMs, minSamples: cfg.minSamples },
          },
          { random: createRandom(1) },
        );
        const seen: { atMs: number; failed: boolean }[] = [];
        let now = 0;
        for (const c of calls) {
          now += c.dtMs;
          const call = policy.start(now);
          for (let attempt = 1; ; attempt++) {
            // A first attempt always goes, however open the breaker.
            expect(call.beginAttemptMs(now)).not.toBe(-1);
            const failed = attempt <= c.failures;
            seen.push({ atMs: now, failed });
            const wait = call.onOutcomeMs({ kind: 'response', status: failed ? 503 : 200 }, now);
            if (wait >= 0) {
              expect(modelOpen(seen, now, cfg)).toBe(false);
              continue;
            }
            const expected = !failed ? 'succeeded' : attempt >= 3 ? 'attempts-exhausted' : 'budget-exhausted';
            expect(call.stopReason).toBe(expected);
            if (expected === 'budget-exhausted') expect(modelOpen(seen, now, cfg)).toBe(true);
            break;
          }
        }
      }),
      propertyRuns(2000),
    );
  });

  it('an update that changes the breaker starts afresh; one that keeps it keeps its window', () => {
    const policy = new RetryPolicy({ backoff: 'none', budget: false, retryBreaker: { failureRate: 0.5 } });
    const call = policy.start(0);
    call.beginAttemptMs(0);
    expect(call.onOutcomeMs({ kind: 'response', status: 503 }, 0)).toBe(-1); // 1 failure of 1: open
    policy.update({ maxAttempts: 3 });
    const again = policy.start(0);
    again.beginAttemptMs(0);
    expect(again.onOutcomeMs({ kind: 'response', status: 503 }, 0)).toBe(-1);
    policy.update({ retryBreaker: { failureRate: 0.5, minSamples: 3 } });
    const fresh = policy.start(0);
    fresh.beginAttemptMs(0);
    expect(fresh.onOutcomeMs({ kind: 'response', status: 503 }, 0)).toBe(0); // 1 outcome < minSamples 3
  });
});
