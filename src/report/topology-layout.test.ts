// The topology layout on any graph: no label box overlaps another, a service box, or an arrow (fast-check graphs).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../sim/scenario/load.js';
import { type Box, type Layout, layoutTopology, stackBoxes } from './topology-layout.js';
import { type Topology, topologyOf } from './topology-model.js';

/** Points every ~2 units along a path of the layout ("M x,y C ..." curves, "M x,y H x V y ..." elbows). */
function pathPoints(d: string): [number, number][] {
  const tokens = d.match(/[MCHV]|-?[\d.]+/g) ?? [];
  const out: [number, number][] = [];
  let x = 0;
  let y = 0;
  const num = () => Number(tokens.shift());
  const line = (x2: number, y2: number) => {
    const n = Math.max(1, Math.ceil(Math.hypot(x2 - x, y2 - y) / 2));
    for (let i = 0; i <= n; i++) out.push([x + ((x2 - x) * i) / n, y + ((y2 - y) * i) / n]);
    [x, y] = [x2, y2];
  };
  while (tokens.length > 0) {
    const op = tokens.shift();
    if (op === 'M') [x, y] = [num(), num()];
    else if (op === 'H') line(num(), y);
    else if (op === 'V') line(x, num());
    else if (op === 'C') {
      const [ax, ay, bx, by, cx, cy] = [num(), num(), num(), num(), num(), num()];
      for (let i = 0; i <= 200; i++) {
        const t = i / 200;
        const u = 1 - t;
        out.push([
          u * u * u * x + 3 * u * u * t * ax + 3 * u * t * t * bx + t * t * t * cx,
          u * u * u * y + 3 * u * u * t * ay + 3 * u * t * t * by + t * t * t * cy,
        ]);
      }
      [x, y] = [cx, cy];
    } else throw new Error(`unexpected path token ${op} in ${d}`);
  }
  return out;
}

const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
/** Strictly inside, half a unit in from every side: a path may end on a box's side, never cross into it. */
const inside = ([px, py]: [number, number], b: Box) =>
  px > b.x + 0.5 && px < b.x + b.w - 0.5 && py > b.y + 0.5 && py < b.y + b.h - 0.5;

/** Every collision in a layout, as text (none: []). */
function collisions(layout: Layout): string[] {
  const found: string[] = [];
  const labels = layout.edges.map((e) => ({ name: `label ${e.key}`, box: e.label }));
  const boxes = [{ name: 'users', box: layout.users }, ...layout.nodes.map((n) => ({ name: n.name, box: n as Box }))];
  const all = [...labels, ...boxes];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i] as (typeof all)[number];
      const b = all[j] as (typeof all)[number];
      if (overlap(a.box, b.box)) found.push(`${a.name} overlaps ${b.name}`);
    }
  }
  for (const e of layout.edges) {
    for (const [which, d] of [
      ['to its label', e.toLabel],
      ['to its callee', e.toTarget],
    ] as const) {
      const points = pathPoints(d);
      for (const other of all) {
        if (points.some((p) => inside(p, other.box)))
          found.push(`the arrow of ${e.key} ${which} crosses ${other.name}`);
      }
    }
  }
  const right = layout.width;
  const bottom = layout.height;
  for (const { name, box } of all) {
    if (box.x < 0 || box.y < 0 || box.x + box.w > right || box.y + box.h > bottom) found.push(`${name} is cut off`);
  }
  return found;
}

const name = fc.constantFrom('a', 'b', 'gateway', 'orders', 'payments', 'inventory', 'x', 'member-api', 'c1', 'c2');
const lines = fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 6 });
/** Any graph: services at any depth, calls between any two (same column, back, past one), traffic to any. */
const graph: fc.Arbitrary<Topology> = fc
  .uniqueArray(fc.record({ name, depth: fc.integer({ min: 0, max: 4 }), lines }), {
    selector: (n) => n.name,
    minLength: 1,
    maxLength: 10,
  })
  .chain((nodes) => {
    const names = nodes.map((n) => n.name);
    const pick = fc.constantFrom(...names);
    return fc.record({
      nodes: fc.constant(nodes),
      edges: fc.uniqueArray(fc.record({ from: pick, to: pick, lines }), {
        selector: (e) => `${e.from}>${e.to}`,
        maxLength: 10,
      }),
      traffic: fc.array(fc.record({ to: pick, line: fc.string({ maxLength: 30 }) }), { maxLength: 3 }),
    });
  });

describe('layoutTopology', () => {
  it('keeps every label box clear of the others, of the service boxes and of every arrow, on any graph', () => {
    fc.assert(
      fc.property(graph, (topology) => {
        expect(collisions(layoutTopology(topology))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('draws the fan-out and a gateway calling three services with nothing overlapping', () => {
    for (const scenario of ['hops-fan-out', 'test/report/gateway.yaml']) {
      for (const variant of loadScenario(scenario).variants) {
        const layout = layoutTopology(topologyOf(variant.model));
        expect(collisions(layout), `${scenario} ${variant.name}`).toEqual([]);
        expect(layout.edges.length).toBe(variant.model.edges.length + variant.model.traffic.length);
      }
    }
  });

  it('sends a call that does not go one column right around, below everything, into the side of its callee', () => {
    const layout = layoutTopology(topologyOf(loadScenario('test/report/gateway.yaml').variants[0]?.model as never));
    const around = layout.edges.filter((e) => e.around).map((e) => e.key);
    expect(around).toEqual(['orders>payments']);
    const lowest = Math.max(...layout.nodes.map((n) => n.y + n.h), ...layout.edges.map((e) => e.label.y + e.label.h));
    const path = pathPoints(layout.edges.find((e) => e.around)?.toTarget ?? '');
    expect(Math.max(...path.map(([, y]) => y))).toBeGreaterThan(lowest);
  });

  it('refuses a topology it cannot place, naming the service', () => {
    const one = (depth: number) => ({ traffic: [], edges: [], nodes: [{ name: 'api', depth, lines: [] }] });
    expect(() => layoutTopology(one(-1))).toThrow(/service api has depth -1/);
    expect(() => layoutTopology(one(0.5))).toThrow(/service api has depth 0.5/);
    const twice = { traffic: [], edges: [], nodes: [one(0).nodes[0], one(1).nodes[0]] } as Topology;
    expect(() => layoutTopology(twice)).toThrow(/share a name/);
  });
});

describe('stackBoxes', () => {
  it('keeps boxes apart and inside the bounds, each where it wants when there is room', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ top: fc.integer({ min: -50, max: 500 }), h: fc.integer({ min: 1, max: 60 }) }), {
          maxLength: 10,
        }),
        (items) => {
          const heights = items.map((i) => i.h);
          const hi = heights.reduce((a, b) => a + b + 8, 0) + 100;
          const tops = stackBoxes(
            items.map((i) => i.top),
            heights,
            8,
            0,
            hi,
          );
          tops.forEach((t, i) => {
            expect(t).toBeGreaterThanOrEqual(0);
            expect(t + (heights[i] as number)).toBeLessThanOrEqual(hi + 1e-9);
            if (i > 0)
              expect(t).toBeGreaterThanOrEqual((tops[i - 1] as number) + (heights[i - 1] as number) + 8 - 1e-9);
          });
        },
      ),
    );
    expect(stackBoxes([10, 100], [20, 20], 8, 0, 200)).toEqual([10, 100]);
    // Two that collide move apart around the middle of where they wanted to be.
    expect(stackBoxes([50, 50], [20, 20], 8, 0, 200)).toEqual([36, 64]);
  });
});
