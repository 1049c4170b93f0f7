// checkout-fast-errors and checkout-many-clients: what each built-in exists to show, for seeds 1, 2 and 3.

import { describe, expect, it } from 'vitest';
import type { RunSummary } from './metrics/summary.js';
import { runVariant, type VariantRun } from './run.js';
import { loadScenario } from './scenario/load.js';
import type { Scenario } from './scenario/types.js';

const SEEDS = [1, 2, 3];
// Cut where the verdicts allow (as verdicts.test.ts): "after" [65 s, 80 s) + 2 s of patience holds every verdict
// of checkout-fast-errors; budget-only needs ~19 s after the trigger to drain, + the 5 s hold + patience.
const FAST_ERRORS_MS = 82_000;
const MANY_CLIENTS_MS = 100_000;
const TRIGGER_S = 15;

const fastErrors = loadScenario('checkout-fast-errors');
const manyClients = loadScenario('checkout-many-clients');

/** checkout-many-clients with checkout-bff scaled to `instances` (as docs/results.md's ×100 rows). */
function scaled(base: Scenario, instances: number): Scenario {
  const variants = base.variants.map((variant) => {
    const model = structuredClone(variant.model);
    model.services = model.services.map((s) => (s.name === 'checkout-bff' ? { ...s, instances } : s));
    return { ...variant, model };
  });
  return { ...base, name: `${base.name}×${instances}`, variants };
}
const hundredClients = scaled(manyClients, 100);

const runs = new Map<string, VariantRun>();
function run(scenario: Scenario, variant: string, seed: number): VariantRun {
  const key = `${scenario.name} ${variant} ${seed}`;
  let result = runs.get(key);
  if (result === undefined) {
    const durationMs = scenario === fastErrors ? FAST_ERRORS_MS : MANY_CLIENTS_MS;
    result = runVariant(scenario, variant, seed, { durationMs });
    runs.set(key, result);
  }
  return result;
}

const successDuring = (summary: RunSummary) => summary.successRate.during ?? Number.NaN;
const successAfter = (summary: RunSummary) => summary.successRate.after ?? Number.NaN;
/** Attempts arriving at `service` during the trigger per user request arriving then. */
const load = (summary: RunSummary, service: string) => summary.amplification[service]?.during ?? Number.NaN;

describe.each(SEEDS)('checkout-fast-errors, seed %i (15 s of immediate 500s from member-api)', (seed) => {
  const summary = (variant: string) => run(fastErrors, variant, seed).summary;
  /** The BFF's policy counters on its calls to coupon-api, over the run. */
  const bffCalls = (variant: string) => {
    const stats = run(fastErrors, variant, seed).services.find((s) => s.name === 'checkout-bff')?.calls['coupon-api'];
    if (stats === undefined) throw new Error('no checkout-bff -> coupon-api stats');
    return stats;
  };

  it('retries absorb 50 % of 500s that cost no work: bad answers everyone for twice the attempts, no-retries half', () => {
    const none = summary('no-retries');
    const bad = summary('bad');
    expect(successDuring(none)).toBeGreaterThan(0.45);
    expect(successDuring(none)).toBeLessThan(0.55);
    expect(successDuring(bad)).toBeGreaterThanOrEqual(0.99);
    // 1 / (1 − 0.5) attempts per request at member-api: coupon-api's retries, the BFF's rarely needed.
    expect(load(bad, 'member-api')).toBeGreaterThan(1.9);
    expect(load(bad, 'member-api')).toBeLessThan(2.1);
    expect([none.recoverySeconds, bad.recoverySeconds]).toEqual([0, 0]);
  });

  it.each(['budget-5', 'budget-10', 'budget-20'])(
    'a token bucket stops retrying when half the attempts fail: %s serves what no-retries serves, at 1 attempt per user',
    (variant) => {
      const budget = summary(variant);
      expect(Math.abs(successDuring(budget) - successDuring(summary('no-retries')))).toBeLessThan(0.01);
      expect(load(budget, 'member-api')).toBeLessThan(1.01);
      expect(bffCalls(variant).stops['budget-exhausted']).toBeGreaterThan(1000);
    },
  );

  it('the ratio decides which failure rate is retried away: at 10 % failures budget-20 absorbs them, 5 and 10 stop', () => {
    // A bucket with ratio r keeps retrying while failures stay under r / (1 + r): 4.8 %, 9.1 %, 16.7 %.
    const twenty = summary('budget-20-errors-10');
    expect(successDuring(twenty)).toBeGreaterThanOrEqual(0.99);
    expect(load(twenty, 'member-api')).toBeGreaterThan(1.1); // 1 / (1 − 0.1) ≈ 1.11, as bad-errors-10
    // budget-10 sits near its 9.1 %: it retries some before it drains. "Stops" = less than half of what full
    // retries add (bad-errors-10: ~100 % for ~1.12 attempts; no retries: ~89 % for 1).
    for (const variant of ['budget-5-errors-10', 'budget-10-errors-10']) {
      expect(successDuring(summary(variant)), variant).toBeLessThan(0.95);
      expect(load(summary(variant), 'member-api'), variant).toBeLessThan(1.06);
    }
    expect(successDuring(summary('bad-errors-10'))).toBeGreaterThanOrEqual(0.99);
  });

  it('errors that cost 50 ms of the DB turn unlimited retries into a meltdown; a 10 % bucket recovers at once', () => {
    const bad = summary('bad-costly-errors');
    expect(bad.recoverySeconds).toBeNull();
    expect(successAfter(bad)).toBeLessThan(0.05);
    expect(load(bad, 'member-api')).toBeGreaterThan(4);
    const budget = summary('budget-10-costly-errors');
    expect(budget.recoverySeconds).toBe(0);
    expect(successAfter(budget)).toBeGreaterThanOrEqual(0.99);
  });

  it('good does not retry a 500 (not in its retryOn): it gives up at once and never draws on its budget for one', () => {
    const good = summary('good');
    expect(Math.abs(successDuring(good) - successDuring(summary('no-retries')))).toBeLessThan(0.01);
    expect(bffCalls('good').stops['not-retryable']).toBeGreaterThan(1000);
    expect(bffCalls('good').stops['budget-exhausted']).toBe(0);
  });
});

describe.each(SEEDS)('checkout-many-clients, seed %i (DB failover, one budget per BFF instance)', (seed) => {
  const summary = (scenario: Scenario, variant: string) => run(scenario, variant, seed).summary;
  const bff = (scenario: Scenario, variant: string) => load(summary(scenario, variant), 'coupon-api');
  const usersInTrigger = (manyClients.variants[0]?.model.traffic[0]?.ratePerS ?? Number.NaN) * TRIGGER_S;

  it('ten token buckets act as one: each throttles by the failure ratio, so 1 and 10 instances let ~1 attempt through', () => {
    // Without a budget the BFF makes ~3.5 attempts per user here (docs/results.md section 6: bad).
    for (const variant of ['good', 'budget-only']) {
      const one = bff(manyClients, `${variant}-one-instance`);
      expect(bff(manyClients, variant), variant).toBeLessThan(1.01);
      expect(Math.abs(bff(manyClients, variant) - one), variant).toBeLessThan(0.01);
    }
    expect(summary(manyClients, 'good').recoverySeconds).toBe(0);
    expect(summary(manyClients, 'good-one-instance').recoverySeconds).toBe(0);
  });

  it("a token bucket's start adds up: N instances let about N × 5 retries through before every bucket is at half", () => {
    // maxTokens 10: a full bucket allows retries until it drains to half, 5 failures later.
    const extra = (scenario: Scenario) => (bff(scenario, 'good') - 1) * usersInTrigger;
    for (const [scenario, instances] of [
      [manyClients, 10],
      [hundredClients, 100],
    ] as const) {
      expect(extra(scenario), `${instances} instances`).toBeLessThan(instances * 5 * 1.1);
    }
    expect(extra(hundredClients)).toBeGreaterThan(100 * 5 * 0.5);
    expect(extra(hundredClients)).toBeGreaterThan(5 * extra(manyClients));
  });

  it("an Envoy percent budget's floor adds up: 1 and 10 instances allow the same, 100 instances' 3-retry floors more", () => {
    // 20 % of the ~700 requests in flight is ~140 concurrent retries: more than 10 × 3, less than 100 × 3.
    const one = bff(manyClients, 'percent-budget-only-one-instance');
    const ten = bff(manyClients, 'percent-budget-only');
    expect(Math.abs(ten - one)).toBeLessThan(0.05);
    expect(bff(hundredClients, 'percent-budget-only')).toBeGreaterThan(ten + 0.2);
  });

  it('without callee protection a percent budget never recovers, with any number of instances; a token bucket does', () => {
    for (const [scenario, variant] of [
      [manyClients, 'percent-budget-only-one-instance'],
      [manyClients, 'percent-budget-only'],
      [hundredClients, 'percent-budget-only'],
    ] as const) {
      expect(summary(scenario, variant).recoverySeconds, `${scenario.name} ${variant}`).toBeNull();
      expect(successAfter(summary(scenario, variant))).toBeLessThan(0.05);
    }
    for (const variant of ['budget-only', 'budget-only-one-instance']) {
      expect(summary(manyClients, variant).recoverySeconds, variant).not.toBeNull();
    }
  });
});
