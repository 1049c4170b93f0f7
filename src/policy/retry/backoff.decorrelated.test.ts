// Decorrelated jitter is AWS's algorithm: the first retry draws from [base, 3·base], so seeded clients do not come back in one wave.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import { backoffDelay, resolveBackoff } from './backoff.js';
import { RetryPolicy } from './retry.js';

// Reference: aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py, class ExpoBackoffDecorr (the code
// behind the AWS blog post "Exponential Backoff And Jitter"): `sleep` starts at base, then
// sleep = min(cap, uniform(base, sleep · 3)). Its simulation uses base 5, cap 2000.
const aws = resolveBackoff({ kind: 'decorrelated-jitter', base: 5, cap: 2000 });

describe('decorrelated jitter (AWS ExpoBackoffDecorr)', () => {
  it.each([
    // [retry, previous wait, u, wait]: the first retry's sleep is base, so U(5, 15)
    [1, 0, 0, 5],
    [1, 0, 0.5, 10],
    [1, 0, 0.999, 14.99],
    // later retries read the previous wait: U(5, 3 · 10) = U(5, 30)
    [2, 10, 0.5, 17.5],
    [3, 1000, 0.9, 2000],
  ])('retry %d after a %d ms wait with u=%d waits %d ms', (retry, previous, u, ms) => {
    expect(backoffDelay(aws, retry, previous, u)).toBeCloseTo(ms, 9);
  });

  it('spreads the first retries of 200 differently seeded clients over [base, 3·base]', () => {
    const firstWaits: number[] = [];
    for (let seed = 1; seed <= 200; seed++) {
      const policy = new RetryPolicy(
        { maxAttempts: 2, backoff: { kind: 'decorrelated-jitter', base: 100, cap: 10_000 }, budget: false },
        { random: createRandom(seed) },
      );
      const call = policy.start(0, {});
      call.beginAttempt(0);
      const decision = call.onOutcome({ kind: 'response', status: 503 }, 0);
      if (!('retryAfterMs' in decision)) throw new Error(`seed ${seed}: expected a retry`);
      firstWaits.push(decision.retryAfterMs);
    }
    const min = Math.min(...firstWaits);
    const max = Math.max(...firstWaits);
    expect(min).toBeGreaterThanOrEqual(100);
    expect(max).toBeLessThanOrEqual(300);
    // With the first wait pinned at base, all 200 came back at exactly 100 ms: one synchronized wave.
    expect(new Set(firstWaits).size).toBeGreaterThan(190);
    expect(max - min).toBeGreaterThan(180);
    const inFirstHalf = firstWaits.filter((w) => w < 200).length;
    expect(inFirstHalf).toBeGreaterThan(70);
    expect(inFirstHalf).toBeLessThan(130);
  });
});
