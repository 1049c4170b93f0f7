// The topology picture: a Topology (topology-model.ts) as inline SVG — boxes per service, arrows per call with labels.

import { escapeHtml } from './html-escape.js';
import type { Topology, TopologyEdge, TopologyNode } from './topology-model.js';

const BOX_W = 200;
const GAP = 200;
const USERS_W = 96;
const LINE_H = 15;
const PAD = 14;
const ROW_GAP = 28;
/** Services drawn, at most: beyond this the picture would be unreadable (and unbounded in size). */
export const MAX_DRAWN_SERVICES = 40;

interface Placed {
  node: TopologyNode;
  x: number;
  y: number;
  h: number;
}

const boxHeight = (node: TopologyNode) => 30 + LINE_H * node.lines.length;
const labelHeight = (lines: number) => LINE_H * lines + 4;

/** Lines of `now` that `base` does not have at the same key: what the variant changed, drawn highlighted. */
function changedLines(now: string[], base: string[] | undefined): Set<string> {
  if (base === undefined) return new Set();
  const had = new Set(base);
  return new Set(now.filter((line) => !had.has(line)));
}

function textLines(
  lines: string[],
  x: number,
  y: number,
  anchor: 'start' | 'middle',
  changed: Set<string>,
  cls: string,
): string {
  return lines
    .map((line, i) => {
      const mark = changed.has(line) ? ' changed' : '';
      return `<text x="${x}" y="${y + i * LINE_H}" text-anchor="${anchor}" class="${cls}${mark}">${escapeHtml(line)}</text>`;
    })
    .join('');
}

/**
 * The SVG (width 100 %, height from its content). With `base`, node and edge lines the base does not have are
 * highlighted: the picture of a variant shows at a glance what it changes.
 */
export function topologySvg(topology: Topology, options: { base?: Topology; title: string; id: string }): string {
  if (topology.nodes.length > MAX_DRAWN_SERVICES) {
    return `<p class="meta">${topology.nodes.length} services: too many to draw (at most ${MAX_DRAWN_SERVICES}).</p>`;
  }
  const columns = new Map<number, TopologyNode[]>();
  for (const node of topology.nodes) columns.set(node.depth, [...(columns.get(node.depth) ?? []), node]);
  const depthCount = Math.max(0, ...columns.keys()) + 1;
  const labelRoom = Math.max(
    labelHeight(1),
    ...topology.edges.map((e) => labelHeight(e.lines.length)),
    ...topology.traffic.map(() => labelHeight(1)),
  );
  const columnHeight = (nodes: TopologyNode[]) =>
    nodes.reduce((sum, n) => sum + boxHeight(n), 0) + ROW_GAP * (nodes.length - 1) + labelRoom * (nodes.length - 1);
  const height = Math.max(...[...columns.values()].map(columnHeight), 40) + labelRoom + 2 * PAD;
  const width = PAD * 2 + USERS_W + GAP + depthCount * BOX_W + (depthCount - 1) * GAP;
  const placed = new Map<string, Placed>();
  for (const [depth, nodes] of columns) {
    const x = PAD + USERS_W + GAP + depth * (BOX_W + GAP);
    let y = PAD + labelRoom + (height - PAD * 2 - labelRoom - columnHeight(nodes)) / 2;
    for (const node of nodes) {
      placed.set(node.name, { node, x, y, h: boxHeight(node) });
      y += boxHeight(node) + ROW_GAP + labelRoom;
    }
  }
  const baseNodes = new Map(options.base?.nodes.map((n) => [n.name, n.lines]));
  const baseEdges = new Map(options.base?.edges.map((e) => [`${e.from}>${e.to}`, e.lines]));
  const parts: string[] = [];
  const arrow = (x1: number, y1: number, x2: number, y2: number, lines: string[], changed: Set<string>) => {
    parts.push(
      `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" class="edge" marker-end="url(#${options.id}-arrow)"/>`,
    );
    const top = Math.min(y1, y2) - 6 - LINE_H * (lines.length - 1);
    parts.push(textLines(lines, (x1 + x2) / 2, top, 'middle', changed, 'edge-label'));
  };
  // Users: one pill, an arrow to each entry service with the traffic's rate and patience.
  const entryYs = topology.traffic.flatMap((t) => {
    const p = placed.get(t.to);
    return p ? [p.y + p.h / 2] : [];
  });
  const usersY = entryYs.length > 0 ? entryYs.reduce((a, b) => a + b, 0) / entryYs.length : height / 2;
  parts.push(
    `<rect x="${PAD}" y="${usersY - 16}" width="${USERS_W}" height="32" rx="16" class="users"/>`,
    `<text x="${PAD + USERS_W / 2}" y="${usersY + 5}" text-anchor="middle" class="node-name">users</text>`,
  );
  for (const t of topology.traffic) {
    const p = placed.get(t.to);
    if (p) arrow(PAD + USERS_W, usersY, p.x - 2, p.y + p.h / 2, [t.line], new Set());
  }
  for (const e of topology.edges) drawEdge(e);
  function drawEdge(e: TopologyEdge) {
    const from = placed.get(e.from);
    const to = placed.get(e.to);
    if (!from || !to) return;
    const changed = changedLines(e.lines, options.base ? (baseEdges.get(`${e.from}>${e.to}`) ?? []) : undefined);
    const forward = to.x > from.x;
    const x1 = forward ? from.x + BOX_W : from.x + BOX_W / 2;
    const x2 = forward ? to.x - 2 : to.x + BOX_W / 2;
    const y1 = forward ? from.y + from.h / 2 : from.y + from.h;
    const y2 = forward ? to.y + to.h / 2 : to.y - 2;
    arrow(x1, y1, x2, y2, e.lines, changed);
  }
  for (const { node, x, y, h } of placed.values()) {
    const changed = changedLines(node.lines, options.base ? (baseNodes.get(node.name) ?? []) : undefined);
    parts.push(
      `<g class="service" data-service="${escapeHtml(node.name)}">`,
      `<rect x="${x}" y="${y}" width="${BOX_W}" height="${h}" rx="6" class="node"/>`,
      `<text x="${x + 10}" y="${y + 19}" class="node-name">${escapeHtml(node.name)}</text>`,
      textLines(node.lines, x + 10, y + 19 + LINE_H + 2, 'start', changed, 'node-line'),
      '</g>',
    );
  }
  return `<svg class="topology" id="${options.id}" role="img" aria-label="${escapeHtml(options.title)}" viewBox="0 0 ${width} ${Math.ceil(height)}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">
<defs><marker id="${options.id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>
${parts.join('\n')}
</svg>`;
}

/** Whether two topologies draw the same picture (same services, edges and lines). */
export function sameTopology(a: Topology, b: Topology): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
