// Hops in the simulator: the layer rule, error ownership, services without Seawall and the retry radius, each alone.

import { describe, expect, it } from 'vitest';
import type { StopReason } from '../policy/core/types.js';
import type { RunSummary } from './metrics/summary.js';
import { runVariant, type VariantRun } from './run.js';
import { loadScenario, parseScenario } from './scenario/load.js';
import type { Scenario } from './scenario/types.js';

/** A chain user -> s0 -> s1 -> ... -> s{depth}; the leaf answers every request with an immediate 503. */
function chain(depth: number, edge: string, extra = ''): Scenario {
  const services = Array.from({ length: depth + 1 }, (_, i) =>
    i < depth ? `  s${i}: { calls: [s${i + 1}] }` : `  s${i}: { serviceTime: 1ms, errors: { rate: 1, status: 503 } }`,
  );
  const calls = Array.from({ length: depth }, (_, i) => `  s${i} -> s${i + 1}: ${edge}`);
  return parseScenario(
    `
name: chain-${depth}
duration: 40s
windows: { steady: [10s, 30s] }
traffic: [{ to: s0, rate: 10, patience: 10s }]
network: { latency: 1ms }
services:
${services.join('\n')}
calls:
${calls.join('\n')}
${extra}`,
    'inline',
  );
}

const NO_SEAWALL = (depth: number) =>
  `services:\n${Array.from({ length: depth + 1 }, (_, i) => `      s${i}: { seawall: false }`).join('\n')}`;

function variants(depth: number, edge: string): Scenario {
  return chain(
    depth,
    edge,
    `variants:
  plain:
    ${NO_SEAWALL(depth)}
  one-layer: {}
  ownership: { ownership: true }`,
  );
}

/** Attempts arriving at `service` per user request, over the steady window. */
const load = (summary: RunSummary, service: string) => summary.amplification[service]?.steady ?? Number.NaN;

const THREE = '{ maxAttempts: 3, backoff: none, budget: false }';
const RATIO = '{ maxAttempts: 3, backoff: none, budget: { kind: ratio, ratio: 0.1, minRetriesPerSec: 0, ttl: 10s } }';

describe.each([1, 2, 3, 4, 5])('a %i-hop chain whose leaf always fails, 3 attempts per hop', (d) => {
  const scenario = variants(d, THREE);
  const leaf = `s${d}`;
  const run = (variant: string) => runVariant(scenario, variant, 1).summary;

  it('plain retries (no Seawall) multiply: 3^d attempts at the leaf', () => {
    // Within 2 %: a window counts the leaf attempts of the users near its edges on one side only (d = 5: 246 of 243).
    expect(Math.abs(load(run('plain'), leaf) / 3 ** d - 1)).toBeLessThan(0.02);
  });

  it('a 10 % ratio budget at every hop: (1 + 0.1)^d', () => {
    const budgeted = chain(d, RATIO, `variants:\n  plain:\n    ${NO_SEAWALL(d)}`);
    const summary = runVariant(budgeted, 'plain', 1).summary;
    // Within 4 %: the window's edges, and each hop's budget rounding to whole retries (d = 5: 1.659 for 1.611).
    expect(Math.abs(load(summary, leaf) / 1.1 ** d - 1)).toBeLessThan(0.04);
    expect(load(summary, leaf)).toBeLessThan(1.8); // without the budget: 3^d
  });

  it('one layer (Seawall default): 3 at the leaf whatever the depth, the outermost hop retries the whole path', () => {
    const summary = run('one-layer');
    expect(Math.abs(load(summary, leaf) / 3 - 1)).toBeLessThan(0.01);
    for (let i = 1; i <= d; i++) expect(Math.abs(load(summary, `s${i}`) / 3 - 1)).toBeLessThan(0.01);
    expect(summary.retryRadius.max).toBe(1);
  });

  it('ownership: 3 at the leaf, 1 at every hop above its caller, retry radius 1', () => {
    const summary = run('ownership');
    expect(Math.abs(load(summary, leaf) / 3 - 1)).toBeLessThan(0.01);
    for (let i = 1; i < d; i++) expect(Math.abs(load(summary, `s${i}`) - 1)).toBeLessThan(0.01);
    expect(summary.retryRadius).toEqual({ max: 1, mean: 1 });
  });

  it('the retry radius of plain retries is the depth', () => {
    expect(run('plain').retryRadius.max).toBe(d);
    expect(run('plain').retryRadius.mean).toBeGreaterThan(d - 0.05);
  });
});

describe('the same policy at two hops (the hole this closes: 3× over HTTP, 9× in the simulator)', () => {
  const scenario = chain(
    2,
    THREE,
    `variants:\n  seawall: {}\n  inner-without-seawall:\n    services: { s1: { seawall: false } }\n  inner-one-layer-off:\n    calls: { s1 -> s2: { oneLayer: false } }\n  outer-call-without-seawall:\n    calls: { s0 -> s1: { seawall: false } }`,
  );
  const run = (variant: string) => runVariant(scenario, variant, 1).summary;

  it('a call inside a request from a Seawall hop makes one attempt: 3 at the leaf', () => {
    expect(Math.abs(load(run('seawall'), 's2') / 3 - 1)).toBeLessThan(0.01);
  });

  it('an inner service without Seawall ignores the hop marker and retries: 9', () => {
    expect(Math.abs(load(run('inner-without-seawall'), 's2') / 9 - 1)).toBeLessThan(0.01);
  });

  it('an outer call made without Seawall (edge seawall: false) sends no marker, so the inner hop retries: 9', () => {
    expect(Math.abs(load(run('outer-call-without-seawall'), 's2') / 9 - 1)).toBeLessThan(0.01);
  });

  it('oneLayer: false on the inner edge retries too: 9', () => {
    expect(Math.abs(load(run('inner-one-layer-off'), 's2') / 9 - 1)).toBeLessThan(0.01);
  });
});

describe('the retry radius past 31 edges (where the per-user bit set overflows into a list)', () => {
  it('counts each retrying edge once, below and above edge 31', () => {
    const depth = 34;
    const edges = ['s30 -> s31', 's33 -> s34'].map((e) => `      ${e}: { maxAttempts: 3 }`).join('\n');
    const scenario = chain(
      depth,
      '{ maxAttempts: 1, backoff: none, budget: false }',
      `variants:\n  two-retrying:\n    ${NO_SEAWALL(depth)}\n    calls:\n${edges}`,
    );
    const summary = runVariant(scenario, 'two-retrying', 1).summary;
    expect(summary.retryRadius).toEqual({ max: 2, mean: 2 });
    expect(Math.abs(load(summary, 's34') / 9 - 1)).toBeLessThan(0.02);
  });
});

describe('a refusal from a service without Seawall', () => {
  it('carries only the standard Retry-After (whole seconds): no retry-after-ms, no claim', () => {
    const scenario = parseScenario(
      `
name: plain-refusal
duration: 20s
windows: { all: [2s, 18s] }
traffic: [{ to: a, rate: 30, patience: 10s }]
network: { latency: 1ms }
services:
  a: { calls: [b] }
  b: { workers: 1, queueLimit: 0, retryAfter: 200ms, serviceTime: 20ms }
calls:
  a -> b: { maxAttempts: 2, backoff: none, budget: false }
variants:
  seawall: {}
  without-seawall: { services: { b: { seawall: false } } }
`,
      'inline',
    );
    const p99 = (variant: string) => runVariant(scenario, variant, 1).summary.p99Ms.all ?? Number.NaN;
    // A refused request waits for the exact 200 ms (retry-after-ms) from a Seawall service, 1 s (Retry-After: 1)
    // from a plain one.
    expect(p99('seawall')).toBeGreaterThan(200);
    expect(p99('seawall')).toBeLessThan(400);
    expect(p99('without-seawall')).toBeGreaterThan(1000);
  });
});

describe('the inbound deadline in the simulator', () => {
  it("bounds the calls made for the request: b's call to a slow c stops at a's deadline, not at its own 15 s", () => {
    const scenario = parseScenario(
      `
name: inherit
duration: 10s
traffic: [{ to: a, rate: 5, patience: 10s }]
network: { latency: 1ms }
services:
  a: { calls: [b] }
  b: { calls: [c] }
  c: { serviceTime: 500ms }
calls:
  a -> b: { maxAttempts: 1, deadline: { patience: 200ms } }
  b -> c: { maxAttempts: 1 }
`,
      'inline',
    );
    const run = runVariant(scenario, 'default', 1);
    const bCalls = run.services.find((s) => s.name === 'b')?.calls.c;
    expect(bCalls?.calls).toBeGreaterThan(30);
    // Every ended one was cut at ~200 ms by the inherited deadline (the last may still be open when the run stops).
    expect(bCalls?.perTryTimeouts).toBe((bCalls?.calls ?? 0) - (bCalls?.active ?? 0));
    expect(bCalls?.stops.succeeded).toBe(0);
  });
});

describe('error ownership in the simulator, rule by rule', () => {
  const stops = (run: VariantRun, caller: string, callee: string): Partial<Record<StopReason, number>> =>
    run.services.find((s) => s.name === caller)?.calls[callee]?.stops ?? {};

  it("an error relayed after the retries below were spent is unclaimed: the hop above stops with 'unclaimed-error'", () => {
    const run = runVariant(variants(2, THREE), 'ownership', 1);
    expect(stops(run, 's0', 's1')['unclaimed-error']).toBeGreaterThan(300);
    expect(stops(run, 's1', 's2')['attempts-exhausted']).toBeGreaterThan(300);
  });

  it('a claimed error whose caller has no retries goes up flagged, and the next hop up retries it (at least once)', () => {
    const scenario = chain(
      2,
      THREE,
      'variants:\n  ownership:\n    ownership: true\n    calls: { s1 -> s2: { maxAttempts: 1 } }',
    );
    const summary = runVariant(scenario, 'ownership', 1).summary;
    expect(Math.abs(load(summary, 's1') / 3 - 1)).toBeLessThan(0.01); // s0 retried s1 on the flag
    expect(Math.abs(load(summary, 's2') / 3 - 1)).toBeLessThan(0.01);
  });

  it('no claim (the callee runs without Seawall): the nearest Seawall caller retries and sends it up unclaimed', () => {
    const scenario = loadScenario('hops-uncooperative');
    const summary = runVariant(scenario, 'ownership', 1).summary;
    expect(Math.abs(load(summary, 's4') / 9 - 1)).toBeLessThan(0.01); // s3's own loop, times s2 as nearest caller
    expect(Math.abs(load(summary, 's2') - 1)).toBeLessThan(0.01); // s1 did not retry
    const quiet = runVariant(scenario, 'ownership-quiet-middle', 1).summary;
    expect(Math.abs(load(quiet, 's4') / 3 - 1)).toBeLessThan(0.01);
  });

  it('one-layer ignores claims: the outermost hop retries errors relayed unclaimed', () => {
    const run = runVariant(variants(2, THREE), 'one-layer', 1);
    expect(stops(run, 's0', 's1')['unclaimed-error'] ?? 0).toBe(0);
    expect(stops(run, 's0', 's1')['attempts-exhausted']).toBeGreaterThan(300);
  });
});

describe('the built-in hop scenarios', () => {
  it('hops-fan-out: ownership retries only b -> b2; one layer redoes b1 with every retry of b', () => {
    const scenario = loadScenario('hops-fan-out');
    const during = (summary: RunSummary, service: string) => summary.amplification[service]?.during ?? Number.NaN;
    const plain = runVariant(scenario, 'plain', 1).summary;
    const oneLayer = runVariant(scenario, 'one-layer', 1).summary;
    const ownership = runVariant(scenario, 'ownership', 1).summary;
    expect(during(plain, 'b2')).toBeGreaterThan(8.5);
    expect(during(oneLayer, 'b2')).toBeCloseTo(3, 0);
    expect(during(ownership, 'b2')).toBeCloseTo(3, 0);
    expect(during(oneLayer, 'b1')).toBeCloseTo(3, 0);
    expect(Math.abs(during(ownership, 'b1') - 1)).toBeLessThan(0.01);
    expect(Math.abs(during(ownership, 'a1') - 1)).toBeLessThan(0.01); // the healthy branch is never retried
    expect(plain.retryRadius.max).toBe(2);
    expect(ownership.retryRadius).toEqual({ max: 1, mean: 1 });
  });

  it('hops-transient: 1 % transient leaf failures; ownership (with the at-least-once flag) keeps success ≥ 99.9 %', () => {
    const scenario = loadScenario('hops-transient');
    const success = (variant: string) => runVariant(scenario, variant, 1).summary.successRate.steady ?? Number.NaN;
    expect(success('no-retries')).toBeLessThan(0.995);
    expect(success('ownership')).toBeGreaterThanOrEqual(0.999);
    expect(success('one-layer')).toBeGreaterThanOrEqual(0.999);
  });

  it('checkout-incident good: the inner hop makes one attempt by the hop rule, not by a maxAttempts: 1 in its YAML', () => {
    const scenario = loadScenario('checkout-incident');
    const good = scenario.variants.find((v) => v.name === 'good');
    const inner = good?.model.edges.find((e) => e.from === 'coupon-api');
    expect(inner?.policy.maxAttempts).toBeUndefined();
    const bad = scenario.variants.find((v) => v.name === 'bad');
    expect(bad?.model.services.find((s) => s.name === 'coupon-api')?.seawall).toBe(false);
  });

  it('the same seed gives byte-identical JSON for a hop scenario', () => {
    const scenario = loadScenario('hops-uncooperative');
    const a = JSON.stringify(runVariant(scenario, 'ownership', 7));
    const b = JSON.stringify(runVariant(scenario, 'ownership', 7));
    expect(a).toBe(b);
  });
});

describe('the scenario format for hops', () => {
  const problems = (yaml: string): string[] => {
    try {
      parseScenario(yaml, 'inline');
      return [];
    } catch (error) {
      return String((error as Error).message).split('\n');
    }
  };
  const base = `
name: x
duration: 10s
traffic: [{ to: a, rate: 10 }]
services:
  a: { calls: [b] }
  b: {}
`;

  it('rejects a non-boolean seawall, oneLayer or ownership, naming the path', () => {
    expect(problems(`${base.replace('b: {}', "b: { seawall: 'no' }")}`).join('\n')).toMatch(/services\.b\.seawall/);
    expect(problems(`${base}calls: { a -> b: { oneLayer: 1 } }`).join('\n')).toMatch(/calls\.a -> b\.oneLayer/);
    expect(problems(`${base}ownership: maybe`).join('\n')).toMatch(/ownership/);
  });

  it('rejects ownership on a call made without Seawall', () => {
    const text = `${base}calls: { a -> b: { seawall: false, ownership: true } }`;
    expect(problems(text).join('\n')).toMatch(/calls\.a -> b\.ownership: needs a Seawall hop/);
  });

  it("a variant's ownership reaches every Seawall edge, and an edge's own value wins", () => {
    const scenario = parseScenario(
      `${base.replace('b: {}', 'b: { calls: [c] }\n  c: {}')}calls: { b -> c: { ownership: false } }\nownership: true`,
      'inline',
    );
    const edges = scenario.variants[0]?.model.edges ?? [];
    expect(edges.find((e) => e.from === 'a')?.policy.ownership).toBe(true);
    expect(edges.find((e) => e.from === 'b')?.policy.ownership).toBe(false);
  });
});
