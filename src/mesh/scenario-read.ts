// The mesh tools' view of a scenario: what the simulator's loader (sim/scenario) resolved, per variant; no second reader.

import { isAbsolute, resolve } from 'node:path';
import type { ResolvedLoadShedderConfig } from '../policy/admission/shed-config.js';
import type { CircuitBreakerConfig } from '../policy/upstream/breaker-config.js';
import type { ConcurrencyBreakerConfig } from '../policy/upstream/concurrency.js';
import type { OutlierDetectionConfig } from '../policy/upstream/outlier-config.js';
import type { ThrottleConfig } from '../policy/upstream/throttle-config.js';
import { loadScenario, ScenarioError } from '../sim/scenario/load.js';
import { UNLIMITED_WORKERS } from '../sim/scenario/resolve.js';
import type { EdgeSpec, ServiceSpec, VariantSpec } from '../sim/scenario/types.js';
import { MeshError } from './errors.js';

export interface ScenarioService {
  name: string;
  calls: string[];
  seawall: boolean;
  instances: number;
  /** The worker limit the file sets; undefined when it sets none (unlimited concurrency). */
  workers?: number;
  /** The queue limit; undefined when unbounded. */
  queueLimit?: number;
  /** The load shedder as the simulator resolved it; null when the service has none. */
  shed: ResolvedLoadShedderConfig | null;
}

export interface ScenarioEdge {
  from: string;
  to: string;
  /** The RetryPolicy config the simulator hands the policy (the variant's `ownership` applied). */
  retry: Record<string, unknown>;
  circuitBreaker?: CircuitBreakerConfig;
  limits?: ConcurrencyBreakerConfig;
  outlierDetection?: OutlierDetectionConfig;
  throttle?: ThrottleConfig;
  loadBalancer: EdgeSpec['loadBalancer'];
  seawall: boolean;
  oneLayer: boolean;
  ownership: boolean;
}

export interface ScenarioVariantView {
  name: string;
  services: ScenarioService[];
  edges: ScenarioEdge[];
  /** Services that users' traffic enters. */
  entries: string[];
}

export interface ScenarioView {
  name: string;
  source: string;
  /** How another file can `extends:` it: a built-in name, or the absolute path. */
  ref: string;
  variants: ScenarioVariantView[];
}

function viewService(s: ServiceSpec): ScenarioService {
  const out: ScenarioService = {
    name: s.name,
    calls: s.calls.map((c) => c.to),
    seawall: s.seawall,
    instances: s.instances,
    shed: null,
  };
  if (s.shed === null) return out;
  const shed: ResolvedLoadShedderConfig = {
    workers: s.shed.workers,
    queueLimit: s.shed.queueLimit ?? Number.POSITIVE_INFINITY,
    retryAfterMs: s.shed.retryAfter as number,
    dropExpired: s.shed.dropExpired !== false,
    discipline: s.shed.discipline ?? 'fifo',
    lifoAfterMs: s.shed.lifoAfter as number,
  };
  out.shed = shed;
  if (shed.workers !== UNLIMITED_WORKERS) out.workers = shed.workers;
  if (Number.isFinite(shed.queueLimit)) out.queueLimit = shed.queueLimit;
  return out;
}

function viewEdge(e: EdgeSpec): ScenarioEdge {
  const retry = { ...(e.policy as Record<string, unknown>) };
  const out: ScenarioEdge = {
    from: e.from,
    to: e.to,
    retry,
    loadBalancer: { ...e.loadBalancer },
    seawall: e.seawall,
    oneLayer: e.oneLayer,
    ownership: retry.ownership === true,
  };
  if (e.circuitBreaker !== null) out.circuitBreaker = e.circuitBreaker;
  // @ko mesh-reads-simulator-guards
  if (e.limits !== null) out.limits = e.limits;
  if (e.outlierDetection !== null) out.outlierDetection = e.outlierDetection;
  if (e.throttle !== undefined) out.throttle = e.throttle;
  return out;
}

function viewVariant(v: VariantSpec): ScenarioVariantView {
  return {
    name: v.name,
    services: v.model.services.map(viewService),
    edges: v.model.edges.map(viewEdge),
    entries: [...new Set(v.model.traffic.map((t) => t.to))],
  };
}

/** Loads a scenario (built-in name or path) with the simulator's loader; its problems become a MeshError. */
export function readScenarioView(nameOrPath: string): ScenarioView {
  let scenario: ReturnType<typeof loadScenario>;
  try {
    scenario = loadScenario(nameOrPath);
  } catch (error) {
    if (error instanceof ScenarioError) throw new MeshError(error.located.map((p) => `${nameOrPath}: ${p}`));
    throw error;
  }
  const looksLikePath = /[/\\]/.test(nameOrPath) || /\.ya?ml$/i.test(nameOrPath);
  const ref = looksLikePath && !isAbsolute(nameOrPath) ? resolve(nameOrPath) : nameOrPath;
  return { name: scenario.name, source: nameOrPath, ref, variants: scenario.variants.map(viewVariant) };
}
