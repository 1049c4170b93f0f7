// The papers' behaviours on the policy alone (seeded): Brooker's bucket and retry breaker, Bronson et al.'s rate cap.
import { describe, expect, it } from 'vitest';
import {
  BROOKER_BREAKER,
  BROOKER_BUCKET,
  drive,
  policyOf,
  retriedShare,
  retriesPerRequest,
} from '../../../tools/docs/retry-limits-figures.js';
import { createRandom } from '../core/random.js';

// Brooker, "Fixing retries with token buckets and circuit breakers" (2022): like N retries at low failure rates, like
// deposit / cost retries per request above that. N = 2 here (maxAttempts 3): the plain policy sends p + p² per request.
describe("Brooker's deposit bucket over 100,000 requests", () => {
  it.each([
    [0.01, 0.0101],
    [0.05, 0.0525],
  ])('at %s failures it retries like N retries (%s per request)', (p, plain) => {
    const bucketed = retriesPerRequest(BROOKER_BUCKET, p);
    expect(bucketed).toBeCloseTo(plain, 2);
    expect(bucketed).toBe(retriesPerRequest(false, p));
  });

  it.each([0.2, 0.5])('at %s failures it retries about deposit / cost = 0.1 per request', (p) => {
    const bucketed = retriesPerRequest(BROOKER_BUCKET, p);
    // 0.1 per request, plus the 10 tokens it started with; the plain policy sends 0.24 or 0.75.
    expect(bucketed).toBeGreaterThan(0.099);
    expect(bucketed).toBeLessThanOrEqual((10_000 + 10) / 100_000);
    expect(retriesPerRequest(false, p)).toBeGreaterThan(0.2);
  });
});

// Bronson et al., "Metastable Failures in Distributed Systems" (HotOS '21): recovery "by limiting retries to less than
// 20 QPS". 100 requests a second for 100 s at 50 % failures would retry ~75 a second unbudgeted.
describe('the rate budget caps retries a second at perSecond (+ burst)', () => {
  it('20 a second and a burst of 20: at most 2,020 retries in 100 s, and about that many', () => {
    const policy = policyOf({ budget: { kind: 'rate', perSecond: 20, burst: 20 } });
    const { retries } = drive(policy, 10_000, 0.5, createRandom(3), 10);
    expect(retries).toBeLessThanOrEqual(20 * 100 + 20);
    expect(retries).toBeGreaterThan(20 * 99);
    expect(drive(policyOf({ budget: false }), 10_000, 0.5, createRandom(3), 10).retries).toBeGreaterThan(7000);
  });
});

// Brooker's finding: with many clients, each sampling its own rate, the breaker trips well below its threshold.
// Threshold 20 % over 10 s. A retry is considered right after a failure, which is itself in the window, so a client
// with n other outcomes there sees (1 + X) / (n + 1): at 1 request a second (n ≈ 10-15) that is above 20 % for
// many clients well before the shared rate is.
describe("Brooker's retry breaker: many clients, each with its own rate, trip early", () => {
  it('one busy client: retries everything below the threshold, nothing above it', () => {
    expect(retriedShare(1, 0.15, BROOKER_BREAKER)).toBeGreaterThan(0.99);
    expect(retriedShare(1, 0.25, BROOKER_BREAKER)).toBeLessThan(0.05);
  });

  it('100 quiet clients: at half the threshold (10 %) a large share of retries is already refused', () => {
    const atHalf = retriedShare(100, 0.1, BROOKER_BREAKER);
    expect(atHalf).toBeLessThan(0.8);
    expect(retriedShare(100, 0.15, BROOKER_BREAKER)).toBeLessThan(atHalf);
    expect(retriedShare(100, 0.05, BROOKER_BREAKER)).toBeGreaterThan(atHalf);
  });
});
