// compareRuns: the three criteria, at their tolerances (10 points of success, 15 % of amplification, the verdict).
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../sim/metrics/summary.js';
import { loadScenario } from '../sim/scenario/load.js';
import { compareRuns } from './compare.js';

const model = loadScenario('checkout-incident').variants[0]?.model as never;

function run(success: number, amplification: number, recovery: number | null): RunSummary {
  return {
    variant: 'v',
    seed: 1,
    userRequests: 100,
    successRate: { before: 1, during: success, after: success },
    p99Ms: {},
    goodputPerS: {},
    amplification: { 'member-api': { before: 1, during: amplification, after: amplification, total: 1 } },
    deepestService: 'member-api',
    trigger: { startS: 50, endS: 65 },
    recoverySeconds: recovery,
    wastedWorkFraction: 0,
    retryRadius: { max: 0, mean: 0 },
    edges: {},
  };
}

describe('compareRuns', () => {
  it('agrees within 10 points of success and 15 % of amplification, with the same recovery verdict', () => {
    const c = compareRuns(run(0.5, 11.5, 3), run(0.4, 10, 0), model);
    expect(c.agrees).toBe(true);
    expect(c.checks.map((k) => k.what)).toEqual([
      'recovers',
      'success before',
      'success during',
      'success after',
      'member-api amplification before',
      'member-api amplification during',
      'member-api amplification after',
    ]);
  });

  it('differs past either tolerance, or when one recovers and the other never does', () => {
    expect(compareRuns(run(0.52, 10, 0), run(0.4, 10, 0), model).checks.filter((c) => !c.ok)).toHaveLength(2);
    expect(compareRuns(run(0.4, 11.6, 0), run(0.4, 10, 0), model).checks.filter((c) => !c.ok)).toHaveLength(2);
    const verdict = compareRuns(run(0.4, 10, null), run(0.4, 10, 12), model);
    expect(verdict.agrees).toBe(false);
    expect(verdict.checks[0]).toEqual({ what: 'recovers', lab: 'never', sim: 'recovers', ok: false });
  });

  it('says no trigger, not never, when neither run had a fault to recover from', () => {
    const calm = { ...run(1, 1, null), trigger: null };
    const c = compareRuns(calm, calm, model);
    expect(c.checks[0]).toEqual({ what: 'recovers', lab: 'no trigger', sim: 'no trigger', ok: true });
    expect(compareRuns(calm, run(1, 1, null), model).checks[0]?.ok).toBe(false);
  });
});
