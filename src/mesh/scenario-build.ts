// Builds the Seawall scenario an imported mesh config stands for: standalone, or a variant over an existing scenario.

import { edgeKey } from '../sim/scenario/merge.js';
import { MAX_SERVICES } from './bounds.js';
import { MeshError, type MeshWarning } from './errors.js';
import { istioDefaultRetry } from './istio/policy.js';
import type { MeshEdge, MeshRead } from './model.js';
import type { ScenarioView } from './scenario-read.js';

/** The caller a standalone scenario gives routes whose caller the mesh file does not name. */
export const ANY_CALLER = 'mesh-client';

/** One `calls:` entry as written: the hop is a sidecar's, so `seawall: false`; then the retry keys and the blocks. */
export function callBlock(edge: MeshEdge): Record<string, unknown> {
  const block: Record<string, unknown> = { seawall: false, ...(edge.retry ?? {}) };
  if (edge.limits !== undefined) block.limits = edge.limits;
  if (edge.outlierDetection !== undefined) block.outlierDetection = edge.outlierDetection;
  if (edge.loadBalancer !== undefined) block.loadBalancer = edge.loadBalancer;
  return block;
}

export interface BuiltModel {
  /** Service name -> its calls (in order) and limits. */
  services: Map<string, { calls: string[]; workers?: number; queueLimit?: number }>;
  /** Edge key -> the mesh edge it came from. */
  edges: Map<string, MeshEdge>;
  entries: string[];
  warnings: MeshWarning[];
}

function sorted<T>(values: Iterable<T>): T[] {
  return [...values].sort();
}

/** The call graph the mesh file itself describes; routes without a known caller hang off ANY_CALLER. */
export function standaloneModel(read: MeshRead): BuiltModel {
  const services: BuiltModel['services'] = new Map();
  const edges = new Map<string, MeshEdge>();
  const ensure = (name: string) => {
    if (!services.has(name)) services.set(name, { calls: [] });
    return services.get(name) as { calls: string[] };
  };
  for (const edge of read.edges) {
    const from = edge.from ?? ANY_CALLER;
    const key = edgeKey(from, edge.to);
    if (edges.has(key) || from === edge.to) continue;
    edges.set(key, { ...edge, from });
    ensure(from).calls.push(edge.to);
    ensure(edge.to);
  }
  for (const limits of read.services) {
    const s = ensure(limits.name) as { calls: string[]; workers?: number; queueLimit?: number };
    if (limits.workers !== undefined) s.workers = limits.workers;
    if (limits.queueLimit !== undefined) s.queueLimit = limits.queueLimit;
  }
  if (services.size > MAX_SERVICES) throw new MeshError([`more than ${MAX_SERVICES} services`]);
  for (const s of services.values()) s.calls = sorted(new Set(s.calls));
  const called = new Set([...services.values()].flatMap((s) => s.calls));
  const entries = sorted([...services.keys()].filter((n) => !called.has(n)));
  return { services, edges, entries, warnings: [] };
}

/** Matches imported edges to a scenario variant's edges: a route without a caller applies to every caller of its host. */
export function overScenario(read: MeshRead, view: ScenarioView, format: 'envoy' | 'istio' | 'mixed'): BuiltModel {
  const base = view.variants[0];
  if (base === undefined) throw new MeshError([`${view.source}: has no variants`]);
  const warnings: MeshWarning[] = [];
  const edges = new Map<string, MeshEdge>();
  const known = new Set(base.edges.map((e) => edgeKey(e.from, e.to)));
  for (const edge of read.edges) {
    const targets = base.edges.filter((e) => e.to === edge.to && (edge.from === null || edge.from === e.from));
    if (targets.length === 0) {
      const where = `${edge.from ?? '*'} -> ${edge.to}`;
      warnings.push({
        kind: 'dropped',
        where,
        field: 'calls',
        message: `${view.source} has no such call; not mapped (${edge.source})`,
      });
      continue;
    }
    for (const t of targets) {
      const key = edgeKey(t.from, t.to);
      const prior = edges.get(key);
      // A route naming its caller wins over one for every caller.
      if (prior === undefined || (prior.from === null && edge.from !== null)) edges.set(key, { ...edge, from: t.from });
    }
  }
  for (const key of known) {
    if (edges.has(key)) continue;
    const [from, to] = key.split(' -> ') as [string, string];
    if (format === 'envoy') {
      warnings.push({
        kind: 'note',
        where: key,
        field: 'maxAttempts',
        message: 'no route in the file: one attempt (Envoy retries nothing without a retry_policy)',
      });
      edges.set(key, { from, to, source: 'no route', retry: { maxAttempts: 1 }, unsafeReplay: 'none' });
    } else {
      edges.set(key, {
        from,
        to,
        source: 'Istio default',
        retry: istioDefaultRetry(key, warnings),
        unsafeReplay: 'none',
      });
    }
  }
  const services: BuiltModel['services'] = new Map(base.services.map((s) => [s.name, { calls: [...s.calls] }]));
  for (const limits of read.services) {
    const s = services.get(limits.name);
    if (s === undefined) {
      warnings.push({
        kind: 'dropped',
        where: limits.name,
        field: 'services',
        message: `${view.source} has no such service; not mapped`,
      });
      continue;
    }
    const own = base.services.find((x) => x.name === limits.name);
    if (limits.workers !== undefined) {
      // The process's own capacity (a DB pool) stays; the mesh can only lower what runs at once.
      s.workers = own?.workers !== undefined ? Math.min(own.workers, limits.workers) : limits.workers;
    }
    if (limits.queueLimit !== undefined) s.queueLimit = limits.queueLimit;
  }
  return { services, edges, entries: base.entries, warnings };
}
