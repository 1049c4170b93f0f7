// simulate(): determinism, the contract's JSON shape, run selection and bounded memory.

import { describe, expect, it } from 'vitest';
import { World } from './model/world.js';
import { runVariant, simulate } from './run.js';
import { loadScenario, parseScenario, ScenarioError } from './scenario/load.js';
import type { Scenario } from './scenario/types.js';

/** The checkout incident cut to 70 s (trigger and "during" window complete) to keep the test quick. */
function shortIncident(): Scenario {
  return { ...loadScenario('checkout-incident'), durationMs: 70_000 };
}

function withoutWallTime(result: Awaited<ReturnType<typeof simulate>>): string {
  return JSON.stringify({ ...result, engine: { ...result.engine, wallMs: 0 } });
}

describe('simulate', () => {
  it('is deterministic: the same scenario and seed give byte-identical JSON (except engine.wallMs)', async () => {
    const scenario = shortIncident();
    const options = { variants: ['good', 'b-bff-only'], seeds: [1], parallel: false };
    const first = await simulate(scenario, options);
    const second = await simulate(scenario, options);
    expect(withoutWallTime(second)).toBe(withoutWallTime(first));
  });

  it('gives the same result on worker threads as in one thread', async () => {
    const scenario = { ...loadScenario('checkout-normal'), durationMs: 20_000 };
    const options = { variants: ['good', 'bad'], seeds: [1, 2] };
    const parallel = await simulate(scenario, { ...options, parallel: true });
    const serial = await simulate(scenario, { ...options, parallel: false });
    expect(withoutWallTime(parallel)).toBe(withoutWallTime(serial));
  });

  it('gives different runs for different seeds', async () => {
    const result = await simulate(shortIncident(), { variants: ['good'], seeds: [1, 2], parallel: false });
    expect(JSON.stringify(result.runs[0]?.successRate)).not.toBe(JSON.stringify(result.runs[1]?.successRate));
    expect(result.runs[0]?.userRequests).not.toBe(result.runs[1]?.userRequests);
  });

  it('returns the contract: scenario, description, durationS, windows (s), variants, engine, runs, timeseries', async () => {
    const progress: [number, number][] = [];
    const result = await simulate(shortIncident(), {
      variants: ['good', 'bad'],
      seeds: [3, 1],
      parallel: false,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(Object.keys(result)).toEqual([
      'scenario',
      'description',
      'durationS',
      'windows',
      'variants',
      'engine',
      'runs',
      'timeseries',
    ]);
    expect(result.scenario).toBe('checkout-incident');
    expect(result.description).toMatch(/^user -> checkout-bff -> coupon-api -> member-api/);
    expect(result.variants?.map((v) => [v.name, v.group])).toEqual([
      ['good', 'fix'],
      ['bad', 'seed'],
    ]);
    expect(result.variants?.[1]?.description).toMatch(/^What was deployed/);
    expect(result.durationS).toBe(70);
    expect(result.windows).toEqual({ before: [40, 50], during: [50, 65], after: [65, 80] });
    expect(result.runs.map((r) => [r.variant, r.seed])).toEqual([
      ['good', 3],
      ['good', 1],
      ['bad', 3],
      ['bad', 1],
    ]);
    expect(result.engine.events).toBeGreaterThan(0);
    expect(progress).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    // 70 one-second bins × 3 services × 4 runs.
    expect(result.timeseries).toHaveLength(70 * 3 * 4);
    const row = result.timeseries.find(
      (r) => r.variant === 'good' && r.seed === 1 && r.t === 10 && r.service === 'checkout-bff',
    );
    expect(row).toMatchObject({ successRate: 1 });
    // Normal operation: 1 % failures cost a token each, successes earn 0.1; the bucket stays near full (10).
    expect(row?.budgetTokens).toBeGreaterThan(8);
    expect(row?.budgetTokens).toBeLessThanOrEqual(10);
    const member = result.timeseries.find((r) => r.variant === 'bad' && r.t === 64 && r.service === 'member-api');
    expect(member?.queueLength).toBeGreaterThan(1000);
    expect(member?.budgetTokens).toBeNull();
  });

  it('leaves the last patience out of the success series: users still waiting at the end are no dip', () => {
    // Every answer takes 1.5 s; patience 2 s. Users arriving in the last 1.5 s are still waiting when the run stops.
    const yaml =
      'name: tail\nduration: 20s\ntraffic: [{ to: a, rate: 200, patience: 2s }]\nservices: { a: { serviceTime: 1500ms } }\n';
    const rows = runVariant(parseScenario(yaml, 'tail.yaml'), 'default', 1).timeseries;
    const success = rows.map((r) => r.successRate);
    expect(success).toHaveLength(20);
    // Bins 18 and 19 (the last 2 s) are not judged; every earlier bin with arrivals is all successes.
    expect(success.slice(18)).toEqual([null, null]);
    expect(success.slice(2, 18).every((v) => v === 1)).toBe(true);
    // Their arrivals are still counted and charted.
    expect(rows[19]?.arrivals).toBeGreaterThan(100);
  });

  it('rejects unknown variants with a ScenarioError naming the known ones', async () => {
    await expect(simulate(shortIncident(), { variants: ['nope'] })).rejects.toThrow(ScenarioError);
    await expect(simulate(shortIncident(), { variants: ['nope'] })).rejects.toThrow(/known: bad, a-jitter/);
  });
});

describe('memory', () => {
  it('holds work in flight, not history: a 10x longer good run keeps the same queues, events and bins per second', () => {
    const scenario = loadScenario('checkout-normal');
    const model = scenario.variants.find((v) => v.name === 'good')?.model;
    if (model === undefined) throw new Error('no good variant');
    const probe = (durationMs: number) => {
      const world = new World({ model, durationMs, windows: [], seed: 1 });
      world.run();
      const inFlight = world.services.reduce((sum, s) => sum + s.inFlight, 0);
      return { pending: world.engine.pending, inFlight, bins: world.metrics.binCount };
    };
    const short = probe(20_000);
    const long = probe(200_000);
    expect(long.bins).toBe(10 * short.bins); // per-second bins: proportional to simulated time only
    expect(long.pending).toBeLessThan(2 * short.pending + 100);
    expect(long.inFlight).toBeLessThan(2 * short.inFlight + 100);
  });

  it('summarises any number of requests with fixed-size histograms', () => {
    const yaml = 'name: m\nduration: 60s\ntraffic: [{ to: a, rate: 2000 }]\nservices: { a: { serviceTime: 1ms } }\n';
    const run = runVariant(parseScenario(yaml, 'm.yaml'), 'default', 1);
    expect(run.summary.userRequests).toBeGreaterThan(100_000);
    expect(run.summary.p99Ms.all).toBe(1);
  });
});
