// Envoy -> Seawall for one route and its cluster: retry_policy + timeout -> retry keys; circuit_breakers,
// outlier_detection and the load balancer -> limits, outlierDetection, loadBalancer.

import { MAX_ATTEMPTS_LIMIT } from '../../policy/retry/retry-config.js';
import { ENVOY_OUTLIER_FIELDS, type OutlierDetectionConfig } from '../../policy/upstream/outlier-config.js';
import { envoyMs, writeSeawallDuration } from '../durations.js';
import type { MeshWarning } from '../errors.js';
import type { EdgePolicy } from '../model.js';
import { readMeshRetryOn } from '../retry-on.js';
import { ENVOY_MIN_RETRY_CONCURRENCY, ENVOY_RETRY_BUDGET_PERCENT, UINT32_MAX } from './defaults.js';
import type { EnvoyCluster, EnvoyRetryPolicy } from './schema.js';

/** A duration the schema has checked, as Envoy reads it: whole ms (durations.ts, envoyMs). */
function ms(value: string): number {
  return envoyMs(value);
}

export function seawallDuration(value: string): string | number {
  return writeSeawallDuration(ms(value));
}

/** Back-off intervals: Envoy raises one below 1 ms to 1 ms (source/common/router/retry_policy_impl.cc). */
function backOffDuration(value: string): string | number {
  return writeSeawallDuration(Math.max(1, ms(value)));
}

/** Envoy's retry policy (route level, else the virtual host's) and route timeout as Seawall retry keys. */
export function retryFromEnvoy(
  policy: EnvoyRetryPolicy | undefined,
  timeout: string | undefined,
  where: string,
  path: string,
  warnings: MeshWarning[],
  problems: string[],
): Record<string, unknown> {
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where, field, message });
  const deadline: Record<string, unknown> = {};
  // Envoy: an unset route timeout is 15 s (Seawall's default deadline too); 0 turns it off.
  if (timeout !== undefined) {
    deadline.deadline = ms(timeout) === 0 ? false : { patience: seawallDuration(timeout) };
  }
  const retryOn = readMeshRetryOn(
    policy?.retry_on ?? '',
    policy?.retriable_status_codes ?? [],
    where,
    `${path}.retry_on`,
    'envoy',
  );
  problems.push(...retryOn.problems);
  warnings.push(...retryOn.warnings);
  if (policy === undefined || retryOn.conditions.length === 0) {
    if (policy !== undefined) warn('note', 'retryOn', 'retry_on names no condition Seawall retries on: one attempt');
    return { maxAttempts: 1, ...deadline };
  }
  let maxAttempts = (policy.num_retries ?? 1) + 1;
  if (maxAttempts > MAX_ATTEMPTS_LIMIT) {
    warn(
      'changed',
      'maxAttempts',
      `num_retries ${policy.num_retries} is absurd; Seawall allows at most ${MAX_ATTEMPTS_LIMIT} attempts (read as ${MAX_ATTEMPTS_LIMIT})`,
    );
    maxAttempts = MAX_ATTEMPTS_LIMIT;
  }
  const out: Record<string, unknown> = { maxAttempts };
  if (policy.per_try_timeout !== undefined && ms(policy.per_try_timeout) > 0) {
    out.perTryTimeout = seawallDuration(policy.per_try_timeout);
  }
  Object.assign(out, deadline);
  const backoff = policy.retry_back_off;
  out.backoff =
    backoff === undefined
      ? { kind: 'envoy' }
      : {
          kind: 'envoy',
          base: backOffDuration(backoff.base_interval),
          ...(backoff.max_interval !== undefined ? { max: backOffDuration(backoff.max_interval) } : {}),
        };
  out.budget = false;
  out.retryOn = retryOn.conditions;
  const limited = policy.rate_limited_retry_back_off;
  if (limited === undefined) out.honorRetryAfter = false;
  else {
    out.honorRetryAfter = true;
    if (limited.max_interval !== undefined) out.maxRetryAfter = backOffDuration(limited.max_interval);
    if (
      !limited.reset_headers.some(
        (h) => h.name.toLowerCase() === 'retry-after' && (h.format ?? 'SECONDS') === 'SECONDS',
      )
    ) {
      warn(
        'note',
        'honorRetryAfter',
        'rate_limited_retry_back_off reads other headers than Retry-After in seconds; Seawall reads Retry-After, retry-after-ms and grpc-retry-pushback-ms',
      );
    } else
      warn(
        'note',
        'honorRetryAfter',
        'Envoy waits U(Retry-After, 1.5 × Retry-After) and ignores longer hints; Seawall waits at least Retry-After and stops when the hint is longer than maxRetryAfter',
      );
  }
  if (policy.per_try_idle_timeout !== undefined)
    warn('dropped', 'perTryTimeout', 'per_try_idle_timeout has no Seawall equivalent; not mapped');
  if (policy.retry_host_predicate !== undefined)
    warn('note', 'retryOn', "retry_host_predicate: Seawall's balancer prefers another endpoint for a retry on its own");
  if (policy.retry_priority !== undefined)
    warn('dropped', 'retryOn', 'retry_priority has no Seawall equivalent; not mapped');
  if (policy.retriable_headers !== undefined)
    warn('dropped', 'retryOn', 'retriable_headers has no Seawall equivalent; not mapped');
  if (policy.retriable_request_headers !== undefined)
    warn('dropped', 'retryOn', 'retriable_request_headers has no Seawall equivalent; not mapped');
  if (policy.retry_options_predicates !== undefined)
    warn('dropped', 'retryOn', 'retry_options_predicates has no Seawall equivalent; not mapped');
  return out;
}

const OUTLIER_FROM_ENVOY: Readonly<Record<string, keyof OutlierDetectionConfig>> = Object.fromEntries(
  Object.entries(ENVOY_OUTLIER_FIELDS)
    .filter(([, envoy]) => envoy !== null)
    .map(([seawall, envoy]) => [envoy as string, seawall as keyof OutlierDetectionConfig]),
);
const OUTLIER_DURATIONS = new Set(['interval', 'base_ejection_time', 'max_ejection_time']);

/** A cluster's circuit breakers (with its retry budget), outlier detection and load balancer, as Seawall blocks. */
export function clusterToEdgePolicy(
  cluster: EnvoyCluster,
  where: string,
  warnings: MeshWarning[],
): Omit<EdgePolicy, 'retry'> {
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where, field, message });
  const out: Omit<EdgePolicy, 'retry'> = {};
  const thresholds = cluster.circuit_breakers?.thresholds ?? [];
  const chosen = thresholds.find((t) => (t.priority ?? 'DEFAULT') === 'DEFAULT');
  if (thresholds.some((t) => t.priority === 'HIGH'))
    warn('dropped', 'limits', 'HIGH-priority thresholds: Seawall has one priority; not mapped');
  if (cluster.circuit_breakers?.per_host_thresholds !== undefined)
    warn('dropped', 'limits', 'per_host_thresholds: Seawall limits a whole upstream; not mapped');
  // Envoy applies its defaults (1024 / 1024 / 1024 / 3) to a cluster without thresholds; so does ConcurrencyBreaker.
  const limits: Record<string, unknown> = {};
  const pairs = [
    ['maxConnections', chosen?.max_connections],
    ['maxPendingRequests', chosen?.max_pending_requests],
    ['maxRequests', chosen?.max_requests],
    ['maxRetries', chosen?.max_retries],
  ] as const;
  for (const [key, value] of pairs) if (value !== undefined) limits[key] = value;
  let budgeted = false;
  if (chosen?.retry_budget !== undefined) {
    // circuit_breaker.proto: with a retry_budget, the budget is the limit on retries and max_retries is ignored, so
    // it lives where Seawall's ConcurrencyBreaker applies it (limits.retryBudget), in place of maxRetries.
    // @ko mesh-envoy-budget-replaces-max-retries
    limits.retryBudget = {
      percent: chosen.retry_budget.budget_percent?.value ?? ENVOY_RETRY_BUDGET_PERCENT,
      minConcurrency: chosen.retry_budget.min_retry_concurrency ?? ENVOY_MIN_RETRY_CONCURRENCY,
    };
    budgeted = true;
    if (limits.maxRetries !== undefined) {
      warn('dropped', 'limits.maxRetries', 'max_retries has no effect beside retry_budget in Envoy; not mapped');
      delete limits.maxRetries;
    }
  }
  if (chosen?.max_connection_pools !== undefined)
    warn('dropped', 'limits', 'max_connection_pools has no Seawall equivalent; not mapped');
  // All four at UINT32_MAX is Istio's (and Seawall's export's) way of saying "no limits".
  const unlimited = !budgeted && pairs.every(([key]) => limits[key] === UINT32_MAX);
  if (!unlimited) out.limits = limits;
  const od = cluster.outlier_detection;
  if (od !== undefined) {
    const config: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(od)) {
      if (value === undefined) continue;
      const key = OUTLIER_FROM_ENVOY[field];
      if (key === undefined) {
        if (!(field === 'split_external_local_origin_errors' && value === false)) {
          warn(
            'dropped',
            'outlierDetection',
            `${field} has no Seawall equivalent (Seawall runs Envoy's default error mode); not mapped`,
          );
        }
        continue;
      }
      config[key] = OUTLIER_DURATIONS.has(field) ? seawallDuration(value as string) : value;
    }
    out.outlierDetection = config;
  }
  const panic = cluster.common_lb_config?.healthy_panic_threshold?.value;
  const policy = cluster.lb_policy ?? 'ROUND_ROBIN';
  let kind: 'round-robin' | 'p2c' = 'round-robin';
  if (policy === 'LEAST_REQUEST') kind = 'p2c';
  else if (policy !== 'ROUND_ROBIN')
    warn(
      'dropped',
      'loadBalancer',
      `lb_policy ${policy} has no Seawall balancer (round-robin or p2c); read as round-robin`,
    );
  if (kind !== 'round-robin' || (panic !== undefined && panic !== 50)) {
    out.loadBalancer = { kind, ...(panic !== undefined ? { panicThreshold: panic } : {}) };
  }
  return out;
}
