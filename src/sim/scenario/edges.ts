// Resolves the `calls:` blocks: each edge's RetryPolicy config, its hop flags, and the guards of its attempts.

import { type ConfigIssue, didYouMean } from '../../policy/core/config-error.js';
import { validateRetryConfig } from '../../policy/retry/retry-config.js';
import { DEFAULT_PANIC_THRESHOLD, validateLoadBalancerConfig } from '../../policy/upstream/balancer.js';
import { validateCircuitBreakerConfig } from '../../policy/upstream/breaker-config.js';
import { validateConcurrencyBreakerConfig } from '../../policy/upstream/concurrency.js';
import {
  type OutlierDetectionConfig,
  resolveOutlierDetectionConfig,
  validateOutlierDetectionConfig,
} from '../../policy/upstream/outlier-config.js';
import { validateThrottleConfig } from '../../policy/upstream/throttle-config.js';
import { joinKey, noServiceNamed, type Problem } from './errors.js';
import { edgeKey, parseEdgeKey } from './merge.js';
import type { EdgeSpec, ServiceSpec } from './types.js';

/** Keys of a `calls:` block that are not RetryPolicy config: the hop's flags and the attempt guards. */
export const EDGE_KEYS = [
  'seawall',
  'oneLayer',
  'circuitBreaker',
  'limits',
  'outlierDetection',
  'loadBalancer',
  'throttle',
] as const;

export function fromConfigIssues(issues: readonly ConfigIssue[]): Problem[] {
  return issues.map((i) => ({ path: i.path, message: i.message }));
}

function readFlag(value: unknown, path: string, problems: Problem[]): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  problems.push({ path, message: 'must be true or false' });
  return undefined;
}

/**
 * A guard's block, checked by its policy's own validator (every issue, with its full path); null when absent or
 * `false`. The block is kept as written: the policy object of each run resolves it again.
 */
function guard<T extends object>(
  value: unknown,
  path: string,
  validate: (input: unknown, path: string, issues: ConfigIssue[]) => unknown,
  problems: Problem[],
): T | null {
  if (value === undefined || value === false) return null;
  const issues: ConfigIssue[] = [];
  validate(value, path, issues);
  problems.push(...fromConfigIssues(issues));
  return issues.length === 0 ? (value as T) : null;
}

type Guards = Pick<EdgeSpec, 'circuitBreaker' | 'limits' | 'outlierDetection' | 'loadBalancer'> & {
  throttle: NonNullable<EdgeSpec['throttle']> | null;
};

function readGuards(block: Record<string, unknown>, path: string, problems: Problem[]): Guards {
  const issues: ConfigIssue[] = [];
  const loadBalancer = validateLoadBalancerConfig(block.loadBalancer, joinKey(path, 'loadBalancer'), issues);
  problems.push(...fromConfigIssues(issues));
  return {
    circuitBreaker: guard(
      block.circuitBreaker,
      joinKey(path, 'circuitBreaker'),
      validateCircuitBreakerConfig,
      problems,
    ),
    limits: guard(block.limits, joinKey(path, 'limits'), validateConcurrencyBreakerConfig, problems),
    outlierDetection: guard(
      block.outlierDetection,
      joinKey(path, 'outlierDetection'),
      validateOutlierDetectionConfig,
      problems,
    ),
    throttle: guard(block.throttle, joinKey(path, 'throttle'), validateThrottleConfig, problems),
    // A plain copy: the validator's answer may be frozen, and the spec crosses to worker threads.
    loadBalancer: {
      kind: loadBalancer?.kind ?? 'round-robin',
      panicThreshold: loadBalancer?.panicThreshold ?? DEFAULT_PANIC_THRESHOLD,
    },
  };
}

const NO_GUARDS: Guards = Object.freeze({
  circuitBreaker: null,
  limits: null,
  outlierDetection: null,
  throttle: null,
  loadBalancer: Object.freeze({ kind: 'round-robin' as const, panicThreshold: DEFAULT_PANIC_THRESHOLD }),
});

/**
 * Outlier detection sweeps per edge and run, at most: each caller instance's detector sweeps every `interval` as a
 * simulator event, so an interval of a microsecond over an hour would be billions of events (a run that never ends).
 */
export const MAX_OUTLIER_SWEEPS = 10_000_000;

/**
 * What a detector needs of the run, beyond its own validator: its pool is the callee's instances, declared when the
 * run starts (addHosts), so a `maxHosts` below their number would make it forget members of its own pool at every
 * result (it would never see 5 failures in a row); and its sweeps are events, so their number is bounded.
 */
function checkDetector(
  od: OutlierDetectionConfig,
  caller: ServiceSpec,
  callee: ServiceSpec,
  durationMs: number,
  path: string,
  problems: Problem[],
): void {
  const { maxHosts, intervalMs } = resolveOutlierDetectionConfig(od);
  const at = joinKey(path, 'outlierDetection');
  if (callee.instances > maxHosts) {
    problems.push({
      path: joinKey(at, 'maxHosts'),
      message: `must be at least ${callee.instances} (${callee.name} has ${callee.instances} instances, all in the detector's pool), got ${maxHosts}`,
    });
  }
  const sweeps = caller.instances * Math.floor(durationMs / intervalMs);
  if (Number.isFinite(durationMs) && sweeps > MAX_OUTLIER_SWEEPS) {
    const n = (x: number) => x.toLocaleString('en-US');
    problems.push({
      path: joinKey(at, 'interval'),
      message:
        `${n(sweeps)} sweeps over the run (${n(caller.instances)} caller instance${caller.instances > 1 ? 's' : ''} × ` +
        `${n(durationMs)} ms / ${n(intervalMs)} ms); at most ${n(MAX_OUTLIER_SWEEPS)}: lengthen the interval`,
    });
  }
}

/** The RetryPolicy's "unknown key" for a misspelt edge key (`circuitBreker`) points at the key it resembles. */
function withEdgeKeyHint(problem: Problem, path: string): Problem {
  const key = problem.path.slice(path.length + 1);
  if (problem.message !== 'unknown key' || problem.path !== joinKey(path, key)) return problem;
  return { path: problem.path, message: `unknown key${didYouMean(key, EDGE_KEYS)}` };
}

/** What one `calls:` block resolves to: the RetryPolicy config, the hop's flags and the attempt guards. */
export interface EdgeBlock {
  config: unknown;
  seawall: boolean;
  oneLayer: boolean;
  guards: Guards;
}

/**
 * Checks one `calls:` block with the policies' own validators (problems and warnings under `path`). `callerSeawall`
 * is whether the calling service runs Seawall; `onDetector` gets a valid outlier-detection block, for the checks
 * that need the run (the callee's instances, the duration).
 */
export function resolveEdgeBlock(
  block: unknown,
  path: string,
  callerSeawall: boolean,
  ownership: boolean | undefined,
  problems: Problem[],
  warnings: Problem[],
  onDetector: (od: OutlierDetectionConfig) => void = () => {},
): EdgeBlock {
  let config: unknown = block;
  // A caller running Seawall sends its headers and applies its policy whether or not the callee reads them.
  let seawall = callerSeawall;
  let oneLayer = true;
  let guards = NO_GUARDS;
  if (block !== null && typeof block === 'object' && !Array.isArray(block)) {
    // `seawall` and `oneLayer` describe the hop (the HTTP client's options), the guards each attempt; the rest is
    // the RetryPolicy's config.
    const {
      seawall: edgeSeawall,
      oneLayer: edgeOneLayer,
      circuitBreaker,
      limits,
      outlierDetection,
      loadBalancer,
      throttle,
      ...policy
    } = block as Record<string, unknown>;
    // @ko sim-edge-without-seawall
    seawall = seawall && readFlag(edgeSeawall, joinKey(path, 'seawall'), problems) !== false;
    oneLayer = readFlag(edgeOneLayer, joinKey(path, 'oneLayer'), problems) !== false;
    guards = readGuards({ circuitBreaker, limits, outlierDetection, loadBalancer, throttle }, path, problems);
    if (guards.outlierDetection !== null) onDetector(guards.outlierDetection);
    // The variant's `ownership` applies to every Seawall hop that does not set its own.
    config = ownership !== undefined && seawall && policy.ownership === undefined ? { ...policy, ownership } : policy;
    if (!seawall && policy.ownership === true) {
      problems.push({
        path: joinKey(path, 'ownership'),
        message: 'needs a Seawall hop (this call is seawall: false)',
      });
    }
  }
  const result = validateRetryConfig(config, path);
  problems.push(...fromConfigIssues(result.issues).map((p) => withEdgeKeyHint(p, path)));
  warnings.push(...fromConfigIssues(result.warnings));
  return { config, seawall, oneLayer, guards };
}

/** Every edge of the call graph with its resolved block; problems carry paths under `calls`. */
export function resolveEdges(
  services: ServiceSpec[],
  calls: Record<string, unknown>,
  ownership: boolean | undefined,
  problems: Problem[],
  warnings: Problem[],
  /** The run's duration (Infinity when the file's own is broken): bounds the detectors' sweeps. */
  durationMs = Number.POSITIVE_INFINITY,
): EdgeSpec[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const key of Object.keys(calls)) {
    const path = joinKey('calls', key);
    const edge = parseEdgeKey(key);
    if (!edge) {
      problems.push({ path, message: 'must be written "caller -> callee"' });
      continue;
    }
    const caller = byName.get(edge.from);
    if (!caller) problems.push({ path, message: noServiceNamed(edge.from, byName.keys()) });
    else if (!byName.has(edge.to)) problems.push({ path, message: noServiceNamed(edge.to, byName.keys()) });
    else if (!caller.calls.some((c) => c.to === edge.to)) {
      problems.push({ path, message: `${edge.from} does not call ${edge.to} (add it to services.${edge.from}.calls)` });
    }
  }
  const edges: EdgeSpec[] = [];
  for (const service of services) {
    for (const call of service.calls) {
      const key = edgeKey(service.name, call.to);
      const path = joinKey('calls', key);
      const block = calls[key] ?? {};
      const callee = byName.get(call.to);
      const resolved = resolveEdgeBlock(block, path, service.seawall, ownership, problems, warnings, (od) => {
        if (callee !== undefined) checkDetector(od, service, callee, durationMs, path, problems);
      });
      const { config, seawall, oneLayer, guards } = resolved;
      edges.push({
        from: service.name,
        to: call.to,
        policy: config as EdgeSpec['policy'],
        seawall,
        oneLayer,
        circuitBreaker: guards.circuitBreaker,
        limits: guards.limits,
        outlierDetection: guards.outlierDetection,
        loadBalancer: { ...guards.loadBalancer },
        // Only when configured: an edge without one is the same spec as before the throttle existed.
        ...(guards.throttle === null ? {} : { throttle: guards.throttle }),
      });
    }
  }
  return edges;
}
