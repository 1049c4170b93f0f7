// Where the topology picture puts things: service columns by depth, each call's label as a box in a label column
// between its caller's column and the next, and each arrow's path — so no label overlaps another, a box or an arrow.

import type { Topology } from './topology-model.js';

/** Text line height and the width one character may take (12 px text, wide fonts such as DejaVu Sans included). */
export const LINE_H = 15;
const CHAR_W = 7.2;
const NAME_CHAR_W = 9.2;
const PAD = 14;
const USERS_W = 96;
const USERS_H = 32;
const MIN_BOX_W = 160;
const MIN_LABEL_W = 64;
/** Between a column of boxes and the label column after it, and from a label column to the next boxes. */
const GAP_IN = 40;
const GAP_OUT = 48;
const ROW_GAP = 18;
const LABEL_GAP = 8;
/** Columns at most (a bound on the picture's width; the report draws at most 40 services). */
const MAX_DEPTH = 64;
/** The lanes below the picture that carry the calls that do not go one column to the right. */
const LANE_GAP = 8;

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PlacedNode extends Box {
  name: string;
  lines: string[];
}

/** One arrow: caller -> its label box (`toLabel`), label box -> callee (`toTarget`, the one with the head). */
export interface PlacedEdge {
  /** "from>to", or "users>to" for a traffic source. */
  key: string;
  lines: string[];
  label: Box;
  toLabel: string;
  toTarget: string;
  /** A call that does not go one column to the right: drawn around, through a lane below the picture. */
  around: boolean;
}

export interface Layout {
  width: number;
  height: number;
  users: Box;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const textWidth = (lines: string[], charW: number) => Math.max(0, ...lines.map((l) => l.length)) * charW;
export const nodeHeight = (lines: string[]) => 30 + LINE_H * lines.length;
const labelHeight = (lines: string[]) => LINE_H * lines.length + 8;
const r1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Tops for boxes kept in the given order, each as close to its wanted top as it can be without two overlapping
 * (`gap` apart at least), all between lo and hi when they fit: a run of boxes that would collide moves as one,
 * to the mean of its wanted positions (the least-squares answer for a fixed order).
 */
export function stackBoxes(wanted: number[], heights: number[], gap: number, lo: number, hi: number): number[] {
  interface Run {
    first: number;
    size: number;
    sum: number;
    n: number;
  }
  const runs: Run[] = [];
  wanted.forEach((top, i) => {
    let run: Run = { first: i, size: heights[i] as number, sum: top, n: 1 };
    for (let prev = runs.at(-1); prev !== undefined; prev = runs.at(-1)) {
      if (prev.sum / prev.n + prev.size + gap <= run.sum / run.n) break;
      const shift = prev.size + gap;
      run = { first: prev.first, size: shift + run.size, sum: prev.sum + run.sum - run.n * shift, n: prev.n + run.n };
      runs.pop();
    }
    runs.push(run);
  });
  const tops: number[] = [];
  for (const run of runs) {
    let top = run.sum / run.n;
    for (let i = run.first; tops.length < run.first + run.n; i++) {
      tops.push(top);
      top += (heights[i] as number) + gap;
    }
  }
  // Inside the bounds, still apart: down past lo, up under hi, down past lo again (wins when they do not fit).
  for (let i = 0; i < tops.length; i++) {
    const floor = i === 0 ? lo : (tops[i - 1] as number) + (heights[i - 1] as number) + gap;
    tops[i] = Math.max(tops[i] as number, floor, lo);
  }
  for (let i = tops.length - 1; i >= 0; i--) {
    const ceiling = i === tops.length - 1 ? hi : (tops[i + 1] as number) - gap;
    tops[i] = Math.min(tops[i] as number, ceiling - (heights[i] as number));
  }
  for (let i = 0; i < tops.length; i++) {
    const floor = i === 0 ? lo : (tops[i - 1] as number) + (heights[i - 1] as number) + gap;
    tops[i] = Math.max(tops[i] as number, floor);
  }
  return tops;
}

/** A curve from (x1, y1) to (x2, y2) leaving and arriving level; it never leaves the band x1..x2. */
const curve = (x1: number, y1: number, x2: number, y2: number) => {
  const xm = r1((x1 + x2) / 2);
  return `M${r1(x1)},${r1(y1)} C${xm},${r1(y1)} ${xm},${r1(y2)} ${r1(x2)},${r1(y2)}`;
};

interface Pending {
  key: string;
  lines: string[];
  from: Box;
  to: Box;
  /** The gap whose label column holds the label: -1 between the users and column 0, g after column g. */
  gap: number;
  around: boolean;
}

/**
 * The picture's geometry. Columns: the users, then the services by depth. A call from column d to d + 1 has its
 * label in the label column between them, and its arrow runs caller -> label -> callee through the empty bands
 * either side of that column, so arrows cross only arrows. Any other call (to the same column, back, or past one)
 * has its label after its caller too, and its arrow goes down to a lane of its own below everything, along it, and
 * up into the callee through the band before the callee's column.
 */
export function layoutTopology(topology: Topology): Layout {
  const depthOf = new Map(topology.nodes.map((n) => [n.name, n.depth]));
  if (depthOf.size !== topology.nodes.length) throw new Error('topology: two services share a name');
  const odd = topology.nodes.find((n) => !Number.isInteger(n.depth) || n.depth < 0 || n.depth > MAX_DEPTH);
  if (odd) throw new Error(`topology: service ${odd.name} has depth ${odd.depth} (an integer from 0 to ${MAX_DEPTH})`);
  const deepest = Math.max(0, ...topology.nodes.map((n) => n.depth));
  const columns: Topology['nodes'][] = Array.from({ length: deepest + 1 }, () => []);
  for (const node of topology.nodes) columns[node.depth]?.push(node);
  const edges = topology.edges.filter((e) => depthOf.has(e.from) && depthOf.has(e.to));
  const traffic = topology.traffic.filter((t) => depthOf.has(t.to));
  const gapOf = (from: string, to: string) => {
    const d = depthOf.get(from) as number;
    return { gap: d, around: depthOf.get(to) !== d + 1 };
  };
  const lastGap = Math.max(deepest - 1, ...edges.map((e) => gapOf(e.from, e.to).gap));
  const labelsIn = (g: number): string[][] =>
    g < 0 ? traffic.map((t) => [t.line]) : edges.filter((e) => depthOf.get(e.from) === g).map((e) => e.lines);

  // Widths from the text; x positions left to right.
  const columnW = columns.map((nodes) =>
    Math.max(MIN_BOX_W, ...nodes.map((n) => Math.max(n.name.length * NAME_CHAR_W, textWidth(n.lines, CHAR_W)) + 22)),
  );
  const columnX: number[] = [];
  const labelX = new Map<number, number>();
  const labelW = new Map<number, number>();
  let x = PAD + USERS_W;
  for (let g = -1; g <= lastGap; g++) {
    const lines = labelsIn(g);
    labelX.set(g, x + GAP_IN);
    // @ko report-label-text-fits
    labelW.set(g, Math.max(MIN_LABEL_W, ...lines.map((l) => textWidth(l, CHAR_W) + 16)));
    x += GAP_IN + (labelW.get(g) as number) + GAP_OUT;
    if (g + 1 <= deepest) {
      columnX.push(x);
      x += columnW[g + 1] as number;
    }
  }
  const width = Math.ceil(x + PAD);

  // Heights: the tallest column of boxes or of labels.
  const stackHeight = (heights: number[], gap: number) =>
    heights.reduce((sum, h) => sum + h, 0) + gap * Math.max(0, heights.length - 1);
  const columnHeights = columns.map((nodes) =>
    stackHeight(
      nodes.map((n) => nodeHeight(n.lines)),
      ROW_GAP,
    ),
  );
  const labelHeights: number[] = [];
  for (let g = -1; g <= lastGap; g++) labelHeights.push(stackHeight(labelsIn(g).map(labelHeight), LABEL_GAP));
  const inner = Math.max(40, ...columnHeights, ...labelHeights);
  const top = PAD;
  const bottom = PAD + inner;
  const middle = (top + bottom) / 2;

  // Boxes, column by column: each near the mean height of its callers one column left, in that order.
  const placed = new Map<string, PlacedNode>();
  const centre = (b: Box) => b.y + b.h / 2;
  columns.forEach((nodes, d) => {
    const wantedCentre = nodes.map((n) => {
      const callers =
        d === 0 ? [] : edges.filter((e) => e.to === n.name && depthOf.get(e.from) === d - 1).map((e) => e.from);
      const ys = callers.flatMap((c) => {
        const p = placed.get(c);
        return p ? [centre(p)] : [];
      });
      return ys.length > 0 ? ys.reduce((a, b) => a + b, 0) / ys.length : middle;
    });
    const order = nodes
      .map((_, i) => i)
      .sort((a, b) => (wantedCentre[a] as number) - (wantedCentre[b] as number) || a - b);
    const heights = order.map((i) => nodeHeight((nodes[i] as Topology['nodes'][number]).lines));
    const tops = stackBoxes(
      order.map((i, k) => (wantedCentre[i] as number) - (heights[k] as number) / 2),
      heights,
      ROW_GAP,
      top,
      bottom,
    );
    order.forEach((i, k) => {
      const n = nodes[i] as Topology['nodes'][number];
      const box = { x: columnX[d] as number, y: tops[k] as number, w: columnW[d] as number, h: heights[k] as number };
      placed.set(n.name, { ...box, name: n.name, lines: n.lines });
    });
  });
  const entryYs = traffic.map((t) => centre(placed.get(t.to) as Box));
  const usersCy = entryYs.length > 0 ? entryYs.reduce((a, b) => a + b, 0) / entryYs.length : middle;
  const users: Box = { x: PAD, y: usersCy - USERS_H / 2, w: USERS_W, h: USERS_H };

  const pending: Pending[] = [
    ...traffic.map((t) => ({
      key: `users>${t.to}`,
      lines: [t.line],
      from: users,
      to: placed.get(t.to) as Box,
      gap: -1,
      around: depthOf.get(t.to) !== 0,
    })),
    ...edges.map((e) => ({
      key: `${e.from}>${e.to}`,
      lines: e.lines,
      from: placed.get(e.from) as Box,
      to: placed.get(e.to) as Box,
      ...gapOf(e.from, e.to),
    })),
  ];
  // Labels, gap by gap: in the order of their callers (then callees), each near where its arrow would cross.
  const labelBox = new Map<Pending, Box>();
  for (let g = -1; g <= lastGap; g++) {
    const here = pending.filter((p) => p.gap === g);
    const wantedCentre = (p: Pending) => (p.around ? centre(p.from) : (centre(p.from) + centre(p.to)) / 2);
    const rank = (p: Pending) => [centre(p.from), p.around ? Number.POSITIVE_INFINITY : centre(p.to)] as const;
    here.sort((a, b) => {
      const [a1, a2] = rank(a);
      const [b1, b2] = rank(b);
      return a1 - b1 || a2 - b2;
    });
    const heights = here.map((p) => labelHeight(p.lines));
    const wanted = here.map((p, k) => wantedCentre(p) - (heights[k] as number) / 2);
    // @ko report-label-no-overlap
    const tops = stackBoxes(wanted, heights, LABEL_GAP, top, bottom);
    here.forEach((p, k) => {
      labelBox.set(p, {
        x: labelX.get(g) as number,
        y: tops[k] as number,
        w: labelW.get(g) as number,
        h: heights[k] as number,
      });
    });
  }

  // Ports: the arrows leaving a box (or reaching it) spread down its side in the order of their labels, so two
  // arrows never share a stretch of line; a call drawn around arrives lowest (it comes from the lane below).
  const ports = (end: 'from' | 'to') => {
    const at = new Map<Pending, number>();
    const byBox = new Map<Box, Pending[]>();
    for (const p of pending) byBox.set(p[end], [...(byBox.get(p[end]) ?? []), p]);
    for (const [box, list] of byBox) {
      const y = (p: Pending) => (end === 'to' && p.around ? Number.POSITIVE_INFINITY : centre(labelBox.get(p) as Box));
      list.sort((a, b) => y(a) - y(b));
      list.forEach((p, i) => {
        at.set(p, box.y + 4 + ((box.h - 8) * (i + 1)) / (list.length + 1));
      });
    }
    return at;
  };
  const outY = ports('from');
  const inY = ports('to');

  // Paths. Lanes below the picture, one per call drawn around, each with its own x in the bands it climbs.
  let lane = 0;
  const placedEdges: PlacedEdge[] = pending.map((p) => {
    const label = labelBox.get(p) as Box;
    const toLabel = curve(p.from.x + p.from.w, outY.get(p) as number, label.x, centre(label));
    const targetY = inY.get(p) as number;
    // @ko report-topology-around
    if (!p.around) {
      const toTarget = curve(label.x + label.w, centre(label), p.to.x - 2, targetY);
      return { key: p.key, lines: p.lines, label, toLabel, toTarget, around: false };
    }
    const laneY = bottom + 14 + lane * LANE_GAP;
    const offset = (lane * 5) % (GAP_OUT - 24);
    lane++;
    const down = label.x + label.w + 12 + offset;
    const up = p.to.x - 12 - offset;
    const toTarget = `M${r1(label.x + label.w)},${r1(centre(label))} H${r1(down)} V${r1(laneY)} H${r1(up)} V${r1(targetY)} H${r1(p.to.x - 2)}`;
    return { key: p.key, lines: p.lines, label, toLabel, toTarget, around: true };
  });
  const height = Math.ceil(bottom + (lane > 0 ? 14 + (lane - 1) * LANE_GAP + 6 : 0) + PAD);
  return { width, height, users, nodes: [...placed.values()], edges: placedEdges };
}
