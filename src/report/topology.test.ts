// The topology picture: each edge's policy read through the policy's own validator, drawn as SVG, changes highlighted.
import { describe, expect, it } from 'vitest';
import { runVariant } from '../sim/run.js';
import { loadScenario } from '../sim/scenario/load.js';
import type { Scenario } from '../sim/scenario/types.js';
import { topologySvg } from './topology.js';
import { type Topology, topologyOf } from './topology-model.js';

const incident: Scenario = loadScenario('checkout-incident');
const of = (variant: string): Topology => {
  const spec = incident.variants.find((v) => v.name === variant);
  if (spec === undefined) throw new Error(`no variant ${variant}`);
  return topologyOf(spec.model);
};
const edge = (t: Topology, from: string) => t.edges.find((e) => e.from === from)?.lines;
const node = (t: Topology, name: string) => t.nodes.find((n) => n.name === name)?.lines;

describe('topologyOf (checkout-incident)', () => {
  it("labels bad's calls: 4 attempts of 1 s, no backoff, no budget, no hop headers; member-api unprotected", () => {
    const bad = of('bad');
    expect(bad.traffic).toEqual([{ to: 'checkout-bff', line: '700/s, patience 2 s' }]);
    expect(bad.nodes.map((n) => [n.name, n.depth])).toEqual([
      ['checkout-bff', 0],
      ['coupon-api', 1],
      ['member-api', 2],
    ]);
    for (const from of ['checkout-bff', 'coupon-api']) {
      expect(edge(bad, from)).toEqual(['4 attempts · 1 s per try', 'no backoff', 'no retry budget', 'no hop headers']);
    }
    expect(node(bad, 'member-api')).toEqual([
      '50 workers',
      'unbounded queue',
      'ignores deadlines',
      'fault 50 s–65 s: 15 workers',
      'no Seawall',
    ]);
  });

  it("labels good's: the BFF's policy with its defaults resolved, one layer at coupon-api, member-api's protection", () => {
    const good = of('good');
    expect(edge(good, 'checkout-bff')).toEqual([
      '3 attempts · 800 ms per try',
      'full jitter backoff 50 ms–500 ms',
      'budget 10 tokens / 0.1',
      'deadline 2 s − 100 ms, sent',
    ]);
    expect(edge(good, 'coupon-api')).toEqual(['1 attempt (one layer)', 'passes the deadline on']);
    expect(node(good, 'member-api')).toEqual([
      '50 workers',
      'queue ≤ 200, then 503',
      '  with Retry-After 200 ms',
      'drops expired work (504)',
      'fault 50 s–65 s: 15 workers',
    ]);
    expect(edge(of('c-circuit-breaker'), 'checkout-bff')).toContain('circuit breaker');
  });

  it('says "1 attempt" exactly where the simulator retries nothing on that call (every variant, 10 s runs)', () => {
    for (const variant of incident.variants) {
      const lines = edge(topologyOf(variant.model), 'coupon-api') ?? [];
      const retries = runVariant(incident, variant.name, 1, { durationMs: 10_000 }).summary.edges[
        'coupon-api -> member-api'
      ]?.upstreamRqRetry;
      expect(lines[0]?.startsWith('1 attempt'), `${variant.name}: ${lines[0]}, ${retries} retries`).toBe(retries === 0);
    }
  });
});

describe('topologySvg', () => {
  it('draws a box per service and the users, an arrow per call and per traffic source, every label as text', () => {
    const svg = topologySvg(of('bad'), { title: 'bad', id: 't0' });
    expect(svg.match(/<rect [^>]*class="node"/g)).toHaveLength(3);
    expect(svg.match(/<rect [^>]*class="users"/g)).toHaveLength(1);
    expect(svg.match(/<path [^>]*marker-end="url\(#t0-arrow\)"/g)).toHaveLength(3);
    for (const line of [
      'checkout-bff',
      '4 attempts · 1 s per try',
      'no retry budget',
      'unbounded queue',
      '700/s, patience 2 s',
    ]) {
      expect(svg).toContain(`>${line}</text>`);
    }
    expect(svg).not.toContain('changed');
  });

  it('highlights what a variant changes against the base, and only that', () => {
    const svg = topologySvg(of('good'), { base: of('bad'), title: 'good', id: 't1' });
    expect(svg).toContain('class="edge-label changed">3 attempts · 800 ms per try</text>');
    expect(svg).toContain('class="node-line changed">queue ≤ 200, then 503</text>');
    // Unchanged: the fault and the workers are the same in both.
    expect(svg).toContain('class="node-line">50 workers</text>');
    expect(svg).toContain('class="node-line">fault 50 s–65 s: 15 workers</text>');
  });

  it('escapes names and refuses to draw more than it can show', () => {
    const hostile: Topology = {
      traffic: [],
      nodes: [{ name: '<script>x</script>', depth: 0, lines: ['a & b'] }],
      edges: [],
    };
    const svg = topologySvg(hostile, { title: '"t"', id: 't2' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt;');
    const many: Topology = {
      traffic: [],
      nodes: Array.from({ length: 41 }, (_, i) => ({ name: `s${i}`, depth: i, lines: [] })),
      edges: [],
    };
    expect(topologySvg(many, { title: 'many', id: 't3' })).toMatch(/too many to draw/);
  });
});
