// The topology picture: a Topology (topology-model.ts) laid out (topology-layout.ts) as inline SVG — service boxes,
// call arrows, and each call's policy in a label box of its own on its arrow.

import { escapeHtml } from './html-escape.js';
import { LINE_H, layoutTopology } from './topology-layout.js';
import type { Topology } from './topology-model.js';

/** Services drawn, at most: beyond this the picture would be unreadable (and unbounded in size). */
export const MAX_DRAWN_SERVICES = 40;
/** Calls drawn, at most (each has a label box of its own). */
export const MAX_DRAWN_CALLS = 120;
/** The smallest the picture is scaled to fit the page; a narrower page scrolls the picture instead (the phone). */
export const MIN_TOPOLOGY_SCALE = 0.8;

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
 * The SVG in a box that scrolls sideways when the page is narrower than the picture at MIN_TOPOLOGY_SCALE. With
 * `base`, node and edge lines the base does not have are highlighted: the picture of a variant shows at a glance
 * what it changes.
 */
export function topologySvg(topology: Topology, options: { base?: Topology; title: string; id: string }): string {
  if (topology.nodes.length > MAX_DRAWN_SERVICES) {
    return `<p class="meta">${topology.nodes.length} services: too many to draw (at most ${MAX_DRAWN_SERVICES}).</p>`;
  }
  if (topology.edges.length > MAX_DRAWN_CALLS) {
    return `<p class="meta">${topology.edges.length} calls: too many to draw (at most ${MAX_DRAWN_CALLS}).</p>`;
  }
  const layout = layoutTopology(topology);
  const baseNodes = new Map(options.base?.nodes.map((n) => [n.name, n.lines]));
  const baseEdges = new Map(options.base?.edges.map((e) => [`${e.from}>${e.to}`, e.lines]));
  const parts: string[] = [];
  const { users } = layout;
  parts.push(
    `<rect x="${users.x}" y="${users.y}" width="${users.w}" height="${users.h}" rx="16" class="users"/>`,
    `<text x="${users.x + users.w / 2}" y="${users.y + 21}" text-anchor="middle" class="node-name">users</text>`,
  );
  for (const e of layout.edges) {
    const traffic = e.key.startsWith('users>');
    const changed = traffic
      ? new Set<string>()
      : changedLines(e.lines, options.base ? (baseEdges.get(e.key) ?? []) : undefined);
    const { x, y, w, h } = e.label;
    const cls = e.around ? 'edge around' : 'edge';
    parts.push(
      `<g class="call" data-call="${escapeHtml(e.key)}">`,
      `<path d="${e.toLabel}" class="${cls}"/>`,
      `<path d="${e.toTarget}" class="${cls}" marker-end="url(#${options.id}-arrow)"/>`,
      `<g class="edge-box"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" class="label-box${changed.size > 0 ? ' changed-box' : ''}"/>`,
      textLines(e.lines, x + w / 2, y + 15, 'middle', changed, 'edge-label'),
      '</g></g>',
    );
  }
  for (const { name, lines, x, y, w, h } of layout.nodes) {
    const changed = changedLines(lines, options.base ? (baseNodes.get(name) ?? []) : undefined);
    parts.push(
      `<g class="service" data-service="${escapeHtml(name)}">`,
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" class="node"/>`,
      `<text x="${x + 10}" y="${y + 19}" class="node-name">${escapeHtml(name)}</text>`,
      textLines(lines, x + 10, y + 19 + LINE_H + 2, 'start', changed, 'node-line'),
      '</g>',
    );
  }
  const { width, height } = layout;
  // @ko report-topology-min-scale
  const minWidth = Math.ceil(width * MIN_TOPOLOGY_SCALE);
  const size = `min-width:${minWidth}px;max-width:${width}px`;
  return `<div class="topology-scroll"><svg class="topology" id="${options.id}" role="img" aria-label="${escapeHtml(options.title)}" viewBox="0 0 ${width} ${height}" width="100%" style="${size}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">
<defs><marker id="${options.id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>
${parts.join('\n')}
</svg></div>`;
}

/** Whether two topologies draw the same picture (same services, edges and lines). */
export function sameTopology(a: Topology, b: Topology): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
