// Variant merging: deep-merge overlays onto the top level, normalise edge keys, and attribute problems to the file's keys.

export type Json = unknown;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys that name the variant of a tagged object (budget and backoff `kind`, distribution `dist`). */
const TAGS = ['kind', 'dist'] as const;

/**
 * Objects merge key by key, `null` removes a key (back to its default), anything else replaces. A tagged object
 * whose tag changes (e.g. a budget going from token-bucket to percent) is replaced whole: its old keys mean nothing.
 */
export function deepMerge(base: Json, overlay: Json): Json {
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  for (const tag of TAGS) if (tag in overlay && overlay[tag] !== base[tag]) return overlay;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === null) delete merged[key];
    else if (value === undefined) continue;
    else merged[key] = deepMerge(merged[key], value);
  }
  return merged;
}

const EDGE_KEY = /^\s*([^\s>]+?)\s*->\s*([^\s]+?)\s*$/;

/** "a->b", "a ->  b" -> "a -> b"; undefined when `key` is not an edge. */
export function parseEdgeKey(key: string): { from: string; to: string } | undefined {
  const match = EDGE_KEY.exec(key);
  if (!match) return undefined;
  return { from: match[1] as string, to: match[2] as string };
}

export function edgeKey(from: string, to: string): string {
  return `${from} -> ${to}`;
}

/** A copy of a model overlay with its `calls` keys normalised, so "a->b" and "a -> b" merge. */
export function normalizeOverlay(overlay: Record<string, unknown>): Record<string, unknown> {
  const calls = overlay.calls;
  if (!isPlainObject(calls)) return overlay;
  const normalized: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(calls)) {
    const edge = parseEdgeKey(key);
    normalized[edge ? edgeKey(edge.from, edge.to) : key] = value;
  }
  return { ...overlay, calls: normalized };
}

/** Does `overlay` set the value at `path` (or replace a whole object or list above it)? */
export function setsPath(overlay: unknown, path: readonly string[]): boolean {
  let node: unknown = overlay;
  for (let i = 0; i < path.length; i++) {
    if (!isPlainObject(node)) return false;
    const key = path[i] as string;
    if (!(key in node)) return false;
    node = node[key];
    if (node === null) return true;
    if (!isPlainObject(node)) return true; // a scalar or a list: replaced wholesale here
  }
  return true;
}

/**
 * The file path of a problem found in a merged model: under the last layer (a variant, or the top level) that set
 * it. `layers` are [top level, ...variants in extends order], each with the path prefix of its place in the file.
 */
export function attribute(path: string, layers: readonly { prefix: string; overlay: unknown }[]): string {
  const segments = path === '' ? [] : path.split('.');
  for (let i = layers.length - 1; i >= 1; i--) {
    const layer = layers[i] as { prefix: string; overlay: unknown };
    if (segments.length > 0 && setsPath(layer.overlay, segments)) return `${layer.prefix}.${path}`;
  }
  return path;
}
