// The simulator runs the new retry limits from a scenario's YAML: a rate budget holds each caller's retries per second.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVariant } from './run.js';
import { loadScenario } from './scenario/load.js';

const file = join(mkdtempSync(join(tmpdir(), 'seawall-retry-limits-sim-')), 'limits.yaml');
writeFileSync(
  file,
  `name: limits
extends: checkout-fast-errors
variants:
  naive:
    services: { checkout-bff: { seawall: false }, coupon-api: { seawall: false }, member-api: { seawall: false } }
    calls:
      checkout-bff -> coupon-api: &naive
        { maxAttempts: 4, perTryTimeout: 1s, backoff: none, budget: false, retryOn: [timeout, 4xx, 5xx], deadline: false }
      coupon-api -> member-api: *naive
  rate-20:
    extends: naive
    calls:
      checkout-bff -> coupon-api: { budget: { kind: rate, perSecond: 20, burst: 20 } }
      coupon-api -> member-api: { budget: { kind: rate, perSecond: 20, burst: 20 } }
  guarded:
    extends: naive
    calls:
      coupon-api -> member-api: { budget: { kind: deposit-bucket }, retryBreaker: { failureRate: 0.2 } }
`,
);

describe('the simulator runs the rate budget, the deposit bucket and the retry breaker', () => {
  const scenario = loadScenario(file);
  const retries = (variant: string, edge: string) =>
    runVariant(scenario, variant, 1).summary.edges[edge]?.upstreamRqRetry ?? Number.NaN;

  it('a rate budget of 20/s (burst 20) holds each caller to 20 × 120 s + 20 retries; without it, far more', () => {
    const member = 'coupon-api -> member-api';
    const capped = retries('rate-20', member);
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual((20 * scenario.durationMs) / 1000 + 20);
    expect(retries('naive', member)).toBeGreaterThan(2 * capped);
  });

  it('a deposit bucket with a retry breaker retries fewer than no budget', () => {
    const member = 'coupon-api -> member-api';
    expect(retries('guarded', member)).toBeLessThan(retries('naive', member));
  });
});
