// Outlier detection and the balancer in the simulator, on the built-in member-api-outliers (docs/outlier-detection.md).

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { loadScenario } from '../scenario/load.js';

const scenario = loadScenario('member-api-outliers');
const EDGE = 'coupon-api -> member-api';

function run(variant: string, seed = 1) {
  const r = runVariant(scenario, variant, seed);
  return { summary: r.summary, edge: r.summary.edges[EDGE], json: JSON.stringify(r) };
}

/** Share of the attempts in the trigger window that went to instance 0. */
function sickShare(edge: ReturnType<typeof run>['edge']): number {
  const during = edge?.loadBalancer?.upstreamRqByHost.during ?? [];
  return (during[0] ?? 0) / during.reduce((a, b) => a + b, 0);
}

describe('one sick instance of four', () => {
  it('outlier detection ejects it: success holds and the sick host gets almost no traffic', () => {
    const without = run('one-sick');
    const withOd = run('one-sick-outlier');
    expect(without.summary.successRate.during).toBeCloseTo(0.75, 2);
    expect(sickShare(without.edge)).toBeCloseTo(0.25, 2);
    expect(withOd.summary.successRate.during).toBeGreaterThanOrEqual(0.995);
    expect(sickShare(withOd.edge)).toBeLessThan(0.01);
    const od = withOd.edge?.outlierDetection;
    expect(od?.ejectionsDetectedConsecutive5xx).toBeGreaterThanOrEqual(1);
    expect(od?.ejectionsEnforcedTotal).toBe(od?.ejectionsDetectedConsecutive5xx);
    // The gauge the seed alerts on: one host out from the first detection (10 s) until it is back and healthy.
    expect(od?.ejectionsActive[12]).toBe(1);
    expect(od?.ejectionsActive[5]).toBe(0);
    expect(od?.ejectionsActiveMax).toBe(1);
    // Ejected at 10.07 s for 30 s, returned at the first sweep after that (50 s), failed 5 times more, out again for
    // 60 s: the sweeps run on time.
    expect(od?.unejectionsTotal).toBe(1);
    expect(od?.ejectionsEnforcedTotal).toBe(2);
  });

  it('p2c without detection sends a fast-failing host more than its share (it has the fewest attempts in flight)', () => {
    const p2c = run('one-sick-p2c');
    expect(sickShare(p2c.edge)).toBeGreaterThan(0.4);
    expect(p2c.summary.successRate.during).toBeLessThan(0.6);
  });

  it('p2c keeps a slow host to what it can serve, where round-robin overloads it', () => {
    const rr = run('slow-one-rr');
    const p2c = run('slow-one-p2c');
    expect(sickShare(rr.edge)).toBeCloseTo(0.25, 2);
    expect(rr.summary.successRate.during).toBeLessThan(0.8);
    expect(sickShare(p2c.edge)).toBeLessThan(0.1);
    expect(p2c.summary.successRate.during).toBeGreaterThanOrEqual(0.999);
  });
});

describe('the shared DB sick: every instance fails half its requests', () => {
  it('maxEjectionPercent 50: at most two hosts out, the other detections refused; the two left serve', () => {
    const none = run('shared-db');
    const half = run('shared-db-outlier-50');
    const od = half.edge?.outlierDetection;
    expect(od?.ejectionsActiveMax).toBe(2);
    expect(od?.ejectionsOverflow).toBeGreaterThan(100);
    expect(Math.max(...(od?.ejectionsActive ?? []))).toBe(2);
    expect(half.summary.successRate.during).toBeCloseTo(none.summary.successRate.during ?? 0, 1);
  });

  it('maxEjectionPercent 100 without a panic threshold ejects every host: nothing is served, even after', () => {
    const all = run('shared-db-outlier-100');
    expect(all.edge?.outlierDetection?.ejectionsActiveMax).toBe(4);
    expect(all.edge?.loadBalancer?.noneHealthy).toBeGreaterThan(10_000);
    expect(all.summary.successRate.during).toBeLessThan(0.05);
    // The hosts ejected a second time stay out 60 s: the detector keeps the outage going after the DB is well.
    expect(all.summary.successRate.after).toBe(0);
  });

  it("Envoy's panic threshold: with fewer than half the hosts left, the balancer ignores ejections", () => {
    const panic = run('shared-db-outlier-100-panic');
    expect(panic.edge?.outlierDetection?.ejectionsActiveMax).toBe(4);
    expect(panic.edge?.loadBalancer?.healthyPanic).toBeGreaterThan(10_000);
    expect(panic.edge?.loadBalancer?.noneHealthy).toBe(0);
    expect(panic.summary.successRate.during).toBeGreaterThan(0.45);
    expect(panic.summary.successRate.after).toBe(1);
  });
});

describe('member-api-outliers', () => {
  it('is deterministic: the same variant and seed give byte-identical results', () => {
    for (const variant of ['one-sick-outlier', 'one-sick-p2c', 'shared-db-outlier-50']) {
      expect(run(variant, 2).json).toBe(run(variant, 2).json);
    }
  });
});
