// What lint looks at, from either source: a scenario variant, or a mesh file read through import.

import { validateRetryConfig } from '../../policy/retry/retry-config.js';
import { edgeKey } from '../../sim/scenario/merge.js';
import type { MeshFile } from '../import.js';
import type { UnsafeReplay } from '../model.js';
import { hasUnsafeConditions } from '../retry-on.js';
import { standaloneModel } from '../scenario-build.js';
import type { ScenarioVariantView, ScenarioView } from '../scenario-read.js';

export interface LintEdge {
  from: string;
  to: string;
  /** RetryPolicyConfig keys; null when the file says nothing about this call's retries (one attempt assumed). */
  retry: Record<string, unknown> | null;
  limits?: unknown;
  outlierDetection?: unknown;
  seawall: boolean;
  oneLayer: boolean;
  ownership: boolean;
  unsafeReplay: UnsafeReplay;
  /** Where to point the reader: `calls.a -> b` of a scenario, or the mesh file's path. */
  path: string;
}

export interface LintModel {
  /** The file or built-in name. */
  file: string;
  variant: string | null;
  services: { name: string; seawall: boolean; calls: string[] }[];
  edges: LintEdge[];
  entries: string[];
}

export function fromScenario(view: ScenarioView, variant: ScenarioVariantView): LintModel {
  const edges: LintEdge[] = variant.edges.map((e) => {
    const resolved = validateRetryConfig(e.retry).config;
    const unsafe = resolved?.retryNonIdempotent && resolved.maxAttempts > 1 && hasUnsafeConditions(resolved.retryOn);
    return {
      from: e.from,
      to: e.to,
      retry: e.retry,
      ...(e.limits !== undefined ? { limits: e.limits } : {}),
      ...(e.outlierDetection !== undefined ? { outlierDetection: e.outlierDetection } : {}),
      seawall: e.seawall,
      oneLayer: e.oneLayer,
      ownership: e.ownership,
      unsafeReplay: unsafe ? 'explicit' : 'none',
      path: `calls.${edgeKey(e.from, e.to)}`,
    };
  });
  return {
    file: view.source,
    variant: view.variants.length === 1 && variant.name === 'default' ? null : variant.name,
    services: variant.services.map((s) => ({ name: s.name, seawall: s.seawall, calls: s.calls })),
    edges,
    entries: variant.entries,
  };
}

export function fromMesh(read: MeshFile): LintModel {
  const model = standaloneModel(read);
  const edges: LintEdge[] = [...model.edges.values()].map((e) => ({
    from: e.from as string,
    to: e.to,
    retry: e.retry,
    ...(e.limits !== undefined ? { limits: e.limits } : {}),
    ...(e.outlierDetection !== undefined ? { outlierDetection: e.outlierDetection } : {}),
    seawall: false,
    oneLayer: true,
    ownership: false,
    unsafeReplay: e.unsafeReplay,
    path: `${e.source.startsWith(`${read.source}: `) ? e.source.slice(read.source.length + 2) : e.source} (${e.from} -> ${e.to})`,
  }));
  return {
    file: read.source,
    variant: null,
    services: [...model.services.entries()].map(([name, s]) => ({ name, seawall: false, calls: s.calls })),
    edges,
    entries: model.entries,
  };
}
