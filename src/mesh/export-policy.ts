// Export, step 1: a scenario edge's Seawall settings resolved to what a mesh can carry, with what it cannot.

import { DEFAULT_RETRY_AFTER_MS } from '../policy/admission/shed-config.js';
import { DEFAULT_BUDGET_PERCENT, DEFAULT_MIN_RETRY_CONCURRENCY } from '../policy/retry/budget.js';
import { describeBudget, describeRetryBreaker } from '../policy/retry/describe.js';
import { DEFAULT_RETRY_RATIO } from '../policy/retry/ratio-budget.js';
import { retriesAtOneLayer } from '../policy/retry/retry-call.js';
import { type ResolvedRetryConfig, validateRetryConfig } from '../policy/retry/retry-config.js';
import { callDeadlineMs, effectiveAttempts } from '../policy/retry/retry-facts.js';
import {
  DEFAULT_FAILURE_THRESHOLD,
  type ResolvedCircuitBreakerConfig,
  validateCircuitBreakerConfig,
} from '../policy/upstream/breaker-config.js';
import {
  type ResolvedConcurrencyBreakerConfig,
  validateConcurrencyBreakerConfig,
} from '../policy/upstream/concurrency.js';
import { DEFAULT_THROTTLE_K } from '../policy/upstream/throttle-config.js';
import {
  ENVOY_BACKOFF_BASE_MS,
  ENVOY_BACKOFF_MAX_FACTOR,
  ENVOY_MIN_RETRY_CONCURRENCY,
  UINT32_MAX,
} from './envoy/defaults.js';
import type { MeshWarning } from './errors.js';
import { canonicalRetryOn, hasUnsafeConditions, safeConditions } from './retry-on.js';
import type { ScenarioEdge, ScenarioVariantView } from './scenario-read.js';

export interface ExportEdge {
  from: string;
  to: string;
  where: string;
  /** Attempts the mesh makes (1: no retries). */
  attempts: number;
  perTryTimeoutMs: number | null;
  /** The route's overall timeout; null = none. */
  timeoutMs: number | null;
  backoff: { baseMs: number; maxMs: number };
  retryOn: unknown[];
  /** When writes must not be replayed on every condition: the conditions a write may still be retried on. */
  writeRetryOn: unknown[] | null;
  retryAfterMaxMs: number | null;
  budget: { percent: number; minConcurrency: number } | null;
  limits: ResolvedConcurrencyBreakerConfig | null;
  outlier: Record<string, unknown> | null;
  balancer: { kind: 'round-robin' | 'p2c'; panicThreshold: number };
}

function alwaysFromSeawallHop(edge: ScenarioEdge, variant: ScenarioVariantView): boolean {
  if (variant.entries.includes(edge.from)) return false;
  const callee = variant.services.find((s) => s.name === edge.from);
  const inbound = variant.edges.filter((e) => e.to === edge.from);
  return inbound.length > 0 && (callee?.seawall ?? true) && inbound.every((e) => e.seawall);
}

/** Resolves one edge; pushes a warning for everything the mesh cannot say as Seawall says it. */
export function exportEdge(edge: ScenarioEdge, variant: ScenarioVariantView, warnings: MeshWarning[]): ExportEdge {
  const where = `${edge.from} -> ${edge.to}`;
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where, field, message });
  const c = validateRetryConfig(edge.retry).config as ResolvedRetryConfig;
  let attempts = effectiveAttempts(c);
  // Under the one-layer rule whenever a Seawall hop sends the request.
  const hop = edge.seawall && retriesAtOneLayer(true, edge.oneLayer, edge.ownership);
  if (hop && attempts > 1 && alwaysFromSeawallHop(edge, variant)) {
    warn(
      'note',
      'oneLayer',
      `a Seawall hop under the one-layer rule makes one attempt; a sidecar cannot know where a request came from, so this is written as no retries (num_retries 0 / attempts 0), which is what this topology does`,
    );
    attempts = 1;
  } else if (hop && attempts > 1 && !variant.entries.includes(edge.from)) {
    warn(
      'dropped',
      'oneLayer',
      'the one-layer rule (one attempt inside a request from a Seawall hop) has no mesh setting: the mesh retries every request',
    );
  }
  if (edge.seawall && c.propagateDeadline) {
    warn(
      'dropped',
      'propagateDeadline',
      "Seawall's deadline propagation has no mesh setting: Envoy sends x-envoy-expected-rq-timeout-ms to the next hop, but each app must pass it on (Seawall's middleware reads it)",
    );
  }
  if (edge.ownership)
    warn('dropped', 'ownership', 'error ownership (x-seawall-claimed) has no mesh setting; not written');
  // @ko mesh-export-reports-breaker
  if (edge.circuitBreaker !== undefined) {
    // Valid: the simulator's loader checked it with this validator.
    const cb = validateCircuitBreakerConfig(edge.circuitBreaker, '', []) as ResolvedCircuitBreakerConfig;
    const threshold = Number.isFinite(cb.failureThreshold) ? cb.failureThreshold : DEFAULT_FAILURE_THRESHOLD;
    warn(
      'dropped',
      'circuitBreaker',
      `a classic circuit breaker (one open state for the whole upstream) has no Envoy or Istio setting; not written (the simulator runs this call without it). The closest is outlier detection with consecutive_5xx ${threshold} and base_ejection_time ${cb.breakDurationMs} ms: it ejects hosts one by one, within maxEjectionPercent`,
    );
  }
  // @ko mesh-export-reports-throttle
  if (edge.throttle !== undefined) {
    const k = edge.throttle.k ?? DEFAULT_THROTTLE_K;
    warn(
      'dropped',
      'throttle',
      `client-side adaptive throttling has no Envoy or Istio setting with its meaning; not written (the simulator runs this call without it). Envoy's admission_control filter has the same formula with sr_threshold ${Math.round(100 / k)}% (1/k), but it sits in the listener's filter chain: it sees each request once, before the router's retries, for every upstream together, and judges success by status ranges, so a 503 relayed from further down counts against this callee`,
    );
  }
  // @ko mesh-export-reports-retry-breaker
  if (attempts > 1 && c.retryBreaker !== null) {
    warn(
      'dropped',
      'retryBreaker',
      `the ${describeRetryBreaker(c.retryBreaker)} has no Envoy or Istio setting; not written (outlier detection ejects hosts, it does not stop retries)`,
    );
  }
  let budget: ExportEdge['budget'] = null;
  const b = c.budget;
  if (attempts > 1 && b !== null && b.kind !== 'none') {
    // @ko mesh-export-reports-time-budgets
    if (b.kind === 'rate' || b.kind === 'deposit-bucket')
      warn(
        'dropped',
        'budget',
        `the ${describeBudget(b)} has no Envoy or Istio setting; not written (the mesh's retry budget caps retries in flight, not retries ${b.kind === 'rate' ? 'per second' : 'per call'}), so the mesh retries without a budget here`,
      );
    else if (b.kind === 'percent')
      budget = {
        percent: b.percent ?? DEFAULT_BUDGET_PERCENT,
        minConcurrency: b.minConcurrency ?? DEFAULT_MIN_RETRY_CONCURRENCY,
      };
    else {
      const ratio = b.kind === 'token-bucket' ? b.tokenRatio : (b.ratio ?? DEFAULT_RETRY_RATIO);
      budget = { percent: Math.min(100, ratio * 100), minConcurrency: ENVOY_MIN_RETRY_CONCURRENCY };
      warn(
        'changed',
        'budget',
        `the mesh has no ${b.kind === 'token-bucket' ? 'gRPC A6 token bucket' : 'ratio budget'}; the closest is a retry budget of ${budget.percent} % of active requests (min ${ENVOY_MIN_RETRY_CONCURRENCY} concurrent retries): it caps retries in flight, not retries per success`,
      );
    }
  }
  const backoff = { baseMs: ENVOY_BACKOFF_BASE_MS, maxMs: ENVOY_BACKOFF_MAX_FACTOR * ENVOY_BACKOFF_BASE_MS };
  const bo = c.backoff;
  if (bo.kind === 'envoy') Object.assign(backoff, { baseMs: bo.baseMs, maxMs: bo.capMs });
  else if (attempts > 1) {
    const baseMs = Math.max(1, bo.baseMs);
    Object.assign(backoff, { baseMs, maxMs: Math.max(baseMs, bo.capMs) });
    warn(
      'changed',
      'backoff',
      bo.kind === 'none'
        ? 'the mesh always backs off; the shortest is base 1 ms, written'
        : `the mesh has one back-off, Envoy's jittered exponential; ${bo.kind} written as base ${baseMs} ms, max ${Math.max(baseMs, bo.capMs)} ms`,
    );
  }
  const conditions = canonicalRetryOn(c.retryOn);
  const writeRetryOn = !c.retryNonIdempotent && hasUnsafeConditions(c.retryOn) ? safeConditions(c.retryOn) : null;
  let limits: ResolvedConcurrencyBreakerConfig | null = null;
  if (edge.limits !== undefined) {
    limits = validateConcurrencyBreakerConfig(edge.limits, '', []) ?? null;
    if (limits?.retryBudget) {
      if (budget === null) budget = { ...limits.retryBudget };
      else if (
        budget.percent !== limits.retryBudget.percent ||
        budget.minConcurrency !== limits.retryBudget.minConcurrency
      ) {
        warn(
          'dropped',
          'limits.retryBudget',
          "the mesh has one retry budget per upstream; the retry policy's budget is written, limits.retryBudget is not",
        );
      }
    } else if (budget !== null && limits !== null && limits.maxRetries < UINT32_MAX) {
      // The simulator runs both the policy's budget and maxRetries; in the mesh the budget replaces max_retries.
      // @ko mesh-export-reports-max-retries-under-budget
      warn(
        'changed',
        'limits.maxRetries',
        `a retry budget in the mesh replaces max_retries (circuit_breaker.proto), so the cap of ${limits.maxRetries} retries at once beside the budget is not in force there; to keep it, drop the budget`,
      );
    }
  }
  return {
    from: edge.from,
    to: edge.to,
    where,
    attempts,
    perTryTimeoutMs: Number.isFinite(c.perTryTimeoutMs) ? c.perTryTimeoutMs : null,
    timeoutMs: callDeadlineMs(c),
    backoff,
    retryOn: conditions,
    writeRetryOn,
    retryAfterMaxMs: c.honorRetryAfter ? c.maxRetryAfterMs : null,
    budget,
    limits,
    outlier: edge.outlierDetection !== undefined ? (edge.outlierDetection as Record<string, unknown>) : null,
    balancer: { ...edge.loadBalancer },
  };
}

export interface ExportService {
  name: string;
  workers: number | null;
  /** null = unbounded. */
  queueLimit: number | null;
  dropExpired: boolean;
}

/** The callee-side limits of a service (workers + queueLimit in front of the process), and what does not map. */
export function exportService(
  s: ScenarioVariantView['services'][number],
  warnings: MeshWarning[],
): ExportService | null {
  if (s.workers === undefined && s.queueLimit === undefined) return null;
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where: s.name, field: `services.${s.name}.${field}`, message });
  if (s.queueLimit === undefined) {
    warn(
      'note',
      'queueLimit',
      `an unbounded queue: written as the largest limit (${UINT32_MAX}); a flood then waits in the sidecar instead of being refused (set queueLimit)`,
    );
  }
  // An unbounded queue never overflows; a scenario read back (import) gets the default Retry-After again.
  const retryAfterMs = s.shed?.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  if (s.queueLimit !== undefined && retryAfterMs !== DEFAULT_RETRY_AFTER_MS)
    warn(
      'dropped',
      'retryAfter',
      `the mesh's overflow 503 carries no Retry-After (Seawall's says ${retryAfterMs / 1000} s); not written`,
    );
  if (s.shed?.discipline === 'adaptive-lifo')
    warn('dropped', 'discipline', 'the mesh queues first-in first-out only; not written');
  const dropExpired = s.shed?.dropExpired !== false && s.seawall;
  if (dropExpired)
    warn(
      'note',
      'dropExpired',
      "Envoy drops expired queued work only with the inbound router's respect_expected_rq_timeout (written for Envoy; Istio cannot set it)",
    );
  if (s.instances > 1)
    warn(
      'note',
      'instances',
      `the limits are per instance, as in the mesh (each pod has its sidecar): ${s.instances} instances`,
    );
  return { name: s.name, workers: s.workers ?? null, queueLimit: s.queueLimit ?? null, dropExpired };
}
