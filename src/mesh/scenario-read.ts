// Reads a scenario's variants for mesh export and lint: merged calls blocks (retry keys and the new blocks) and services.

import { dirname, join, resolve } from 'node:path';
import { validateLoadBalancerConfig } from '../policy/balancer.js';
import { validateCircuitBreakerConfig } from '../policy/breaker-config.js';
import { validateConcurrencyBreakerConfig } from '../policy/concurrency.js';
import type { ConfigIssue } from '../policy/config-error.js';
import { validateOutlierDetectionConfig } from '../policy/outlier-config.js';
import { validateRetryConfig } from '../policy/retry-config.js';
import { validateLoadShedderConfig } from '../policy/shed.js';
import { builtinScenarioDir, listBuiltinScenarios, parseScenario } from '../sim/scenario/load.js';
import { deepMerge, edgeKey, isPlainObject, normalizeOverlay } from '../sim/scenario/merge.js';
import { MAX_SERVICES, readBoundedFile } from './bounds.js';
import { MeshError } from './errors.js';
import { parseYamlDocuments, toYaml } from './yaml-io.js';

const MODEL_KEYS = ['traffic', 'network', 'services', 'calls', 'faults', 'cancellation', 'ownership'] as const;
/** Keys of a `calls:` entry that are not RetryPolicy config. */
export const HOP_KEYS = ['seawall', 'oneLayer'] as const;
export const BLOCK_KEYS = ['circuitBreaker', 'limits', 'outlierDetection', 'loadBalancer'] as const;

export interface ScenarioService {
  name: string;
  calls: string[];
  seawall: boolean;
  instances: number;
  workers?: number;
  queueLimit?: number;
  /** The LoadShedder keys as written (retryAfter, dropExpired, discipline, lifoAfter). */
  shed: Record<string, unknown>;
}

export interface ScenarioEdge {
  from: string;
  to: string;
  /** RetryPolicyConfig keys only. */
  retry: Record<string, unknown>;
  circuitBreaker?: unknown;
  limits?: unknown;
  outlierDetection?: unknown;
  loadBalancer?: unknown;
  seawall: boolean;
  oneLayer: boolean;
  /** Variant-wide `ownership` applied, as resolve.ts does. */
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

const MAX_EXTENDS = 8;

function fileOf(nameOrPath: string, baseDir: string): { file: string; ref: string } {
  const looksLikePath = /[/\\]/.test(nameOrPath) || /\.ya?ml$/i.test(nameOrPath);
  if (!looksLikePath && listBuiltinScenarios().includes(nameOrPath)) {
    return { file: join(builtinScenarioDir(), `${nameOrPath}.yaml`), ref: nameOrPath };
  }
  const file = resolve(baseDir, nameOrPath);
  return { file, ref: file };
}

function readRaw(nameOrPath: string, baseDir: string, depth: number): Record<string, unknown> {
  const { file } = fileOf(nameOrPath, baseDir);
  const docs = parseYamlDocuments(readBoundedFile(file), nameOrPath);
  const raw = docs[0]?.value;
  if (docs.length !== 1 || !isPlainObject(raw)) throw new MeshError([`${nameOrPath}: a scenario is one YAML mapping`]);
  if (raw.extends === undefined) return raw;
  if (typeof raw.extends !== 'string') throw new MeshError([`${nameOrPath}: extends: must be a scenario name or path`]);
  if (depth >= MAX_EXTENDS) throw new MeshError([`${nameOrPath}: extends: too deep (a cycle?)`]);
  const parent = readRaw(raw.extends, dirname(file), depth + 1);
  const own = { ...raw };
  delete own.extends;
  const merged = deepMerge(parent, own) as Record<string, unknown>;
  if (own.variants !== undefined) merged.variants = own.variants;
  return merged;
}

function stripBlocks(model: Record<string, unknown>): Record<string, unknown> {
  const calls = model.calls;
  if (!isPlainObject(calls)) return model;
  const out: Record<string, unknown> = {};
  for (const [key, block] of Object.entries(calls)) {
    if (!isPlainObject(block)) out[key] = block;
    else
      out[key] = Object.fromEntries(
        Object.entries(block).filter(([k]) => !(BLOCK_KEYS as readonly string[]).includes(k)),
      );
  }
  return { ...model, calls: out };
}

/** The file as the simulator's own loader sees it, minus the blocks it may not know yet: catches every other mistake. */
function checkWithSimulator(raw: Record<string, unknown>, source: string, baseDir: string): void {
  const copy: Record<string, unknown> = stripBlocks(raw);
  if (isPlainObject(raw.variants)) {
    copy.variants = Object.fromEntries(
      Object.entries(raw.variants).map(([name, v]) => [name, isPlainObject(v) ? stripBlocks(v) : v]),
    );
  }
  try {
    parseScenario(toYaml(copy), source, baseDir);
  } catch (error) {
    const problems = (error as { problems?: unknown }).problems;
    if (Array.isArray(problems)) throw new MeshError(problems.map((p) => `${source}: ${String(p)}`));
    throw error;
  }
}

function variantChain(name: string, variants: Record<string, unknown>): string[] {
  const chain: string[] = [];
  let current: string | undefined = name;
  while (current !== undefined && !chain.includes(current)) {
    chain.unshift(current);
    const v: unknown = variants[current];
    current = isPlainObject(v) && typeof v.extends === 'string' ? v.extends : undefined;
  }
  return chain;
}

/** The simulator's reading (`p2c`; `{ panicThreshold }` with round-robin implied), as `{ kind, panicThreshold }`. */
function readLoadBalancer(input: unknown, path: string, issues: ConfigIssue[]): unknown {
  return validateLoadBalancerConfig(input, path, issues) ?? input;
}

function readEdge(
  from: string,
  to: string,
  block: unknown,
  services: Map<string, ScenarioService>,
  ownership: unknown,
  path: string,
  issues: ConfigIssue[],
): ScenarioEdge {
  const raw = isPlainObject(block) ? block : {};
  if (block !== undefined && block !== null && !isPlainObject(block))
    issues.push({ path, message: 'must be a mapping' });
  const retry: Record<string, unknown> = {};
  const edge: ScenarioEdge = {
    from,
    to,
    retry,
    seawall: services.get(from)?.seawall ?? true,
    oneLayer: true,
    ownership: false,
  };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'seawall' || key === 'oneLayer') {
      if (typeof value !== 'boolean') issues.push({ path: `${path}.${key}`, message: 'must be true or false' });
      else if (key === 'seawall') edge.seawall = edge.seawall && value;
      else edge.oneLayer = value;
    } else if ((BLOCK_KEYS as readonly string[]).includes(key)) {
      (edge as unknown as Record<string, unknown>)[key] = value;
      if (value === false) continue;
      if (key === 'circuitBreaker') validateCircuitBreakerConfig(value, `${path}.${key}`, issues);
      else if (key === 'limits') validateConcurrencyBreakerConfig(value, `${path}.${key}`, issues);
      else if (key === 'outlierDetection') validateOutlierDetectionConfig(value, `${path}.${key}`, issues);
      else edge.loadBalancer = readLoadBalancer(value, `${path}.${key}`, issues);
    } else retry[key] = value;
  }
  if (typeof ownership === 'boolean' && edge.seawall && retry.ownership === undefined) retry.ownership = ownership;
  edge.ownership = retry.ownership === true;
  issues.push(...validateRetryConfig(retry, path).issues);
  return edge;
}

function readVariant(
  name: string,
  model: Record<string, unknown>,
  prefix: string,
  issues: ConfigIssue[],
): ScenarioVariantView {
  const servicesRaw = isPlainObject(model.services) ? model.services : {};
  const names = Object.keys(servicesRaw);
  if (names.length > MAX_SERVICES) throw new MeshError([`${prefix}services: more than ${MAX_SERVICES} services`]);
  const services = new Map<string, ScenarioService>();
  for (const n of names) {
    const s = isPlainObject(servicesRaw[n]) ? (servicesRaw[n] as Record<string, unknown>) : {};
    const calls = Array.isArray(s.calls) ? s.calls.map((c) => (isPlainObject(c) ? String(c.to) : String(c))) : [];
    const shed: Record<string, unknown> = {};
    for (const k of ['retryAfter', 'dropExpired', 'discipline', 'lifoAfter']) if (s[k] !== undefined) shed[k] = s[k];
    const service: ScenarioService = {
      name: n,
      calls,
      seawall: s.seawall !== false,
      instances: typeof s.instances === 'number' ? s.instances : 1,
      shed,
    };
    if (typeof s.workers === 'number') service.workers = s.workers;
    if (typeof s.queueLimit === 'number') service.queueLimit = s.queueLimit;
    if (service.workers !== undefined || service.queueLimit !== undefined || Object.keys(shed).length > 0) {
      validateLoadShedderConfig(
        {
          workers: service.workers ?? 1,
          ...shed,
          ...(service.queueLimit !== undefined ? { queueLimit: service.queueLimit } : {}),
        },
        `${prefix}services.${n}`,
        issues,
      );
    }
    services.set(n, service);
  }
  const calls = isPlainObject(model.calls) ? model.calls : {};
  const edges: ScenarioEdge[] = [];
  for (const service of services.values()) {
    for (const to of service.calls) {
      const key = edgeKey(service.name, to);
      edges.push(readEdge(service.name, to, calls[key], services, model.ownership, `${prefix}calls.${key}`, issues));
    }
  }
  const entries = Array.isArray(model.traffic)
    ? [...new Set(model.traffic.map((t) => (isPlainObject(t) ? String(t.to) : '')).filter((t) => t !== ''))]
    : [];
  return { name, services: [...services.values()], edges, entries };
}

/** Loads a scenario (built-in name or path) and every variant's services and edges; throws MeshError on any problem. */
export function readScenarioView(nameOrPath: string, baseDir = process.cwd()): ScenarioView {
  const { file, ref } = fileOf(nameOrPath, baseDir);
  const raw = readRaw(nameOrPath, baseDir, 0);
  checkWithSimulator(raw, nameOrPath, dirname(file));
  const base: Record<string, unknown> = {};
  for (const key of MODEL_KEYS) if (raw[key] !== undefined) base[key] = raw[key];
  const variantsRaw = isPlainObject(raw.variants) ? raw.variants : {};
  const names = Object.keys(variantsRaw);
  const issues: ConfigIssue[] = [];
  const variants: ScenarioVariantView[] = [];
  for (const name of names.length > 0 ? names : ['default']) {
    let merged: unknown = normalizeOverlay(base);
    for (const link of names.length > 0 ? variantChain(name, variantsRaw) : []) {
      const v = variantsRaw[link];
      const overlay: Record<string, unknown> = {};
      if (isPlainObject(v)) for (const key of MODEL_KEYS) if (key in v) overlay[key] = v[key];
      merged = deepMerge(merged, normalizeOverlay(overlay));
    }
    variants.push(
      readVariant(name, merged as Record<string, unknown>, names.length > 0 ? `variants.${name}: ` : '', issues),
    );
  }
  if (issues.length > 0) throw new MeshError(issues.map((i) => `${nameOrPath}: ${i.path}: ${i.message}`));
  return { name: typeof raw.name === 'string' ? raw.name : 'scenario', source: nameOrPath, ref, variants };
}
