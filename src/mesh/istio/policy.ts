// Istio -> Seawall for one route and its DestinationRule: retries and timeout, connection pool, outlier detection,
// retry budget and load balancer, as Istio itself translates them to Envoy.

import { MAX_ATTEMPTS_LIMIT } from '../../policy/retry/retry-config.js';
import { readGoDuration, writeSeawallDuration } from '../durations.js';
import { UINT32_MAX } from '../envoy/defaults.js';
import type { MeshWarning } from '../errors.js';
import type { EdgePolicy } from '../model.js';
import { readMeshRetryOn } from '../retry-on.js';
import {
  ISTIO_DEFAULT_ATTEMPTS,
  ISTIO_DEFAULT_RETRY_ON,
  ISTIO_DEFAULT_WITHOUT_503_SINCE,
  ISTIO_MIN_RETRY_CONCURRENCY,
  ISTIO_PANIC_THRESHOLD,
  ISTIO_PRE_1_24_DEFAULT_STATUS,
  ISTIO_RETRY_BUDGET_PERCENT,
} from './defaults.js';
import type { IstioConnectionPool, IstioDestinationRuleSpec, IstioHttpRoute, IstioTrafficPolicy } from './schema.js';

function dur(value: string): string | number {
  const read = readGoDuration(value);
  return writeSeawallDuration(read.ok ? read.ms : 0);
}

export function retryFromIstio(
  route: IstioHttpRoute,
  where: string,
  path: string,
  warnings: MeshWarning[],
  problems: string[],
): Record<string, unknown> {
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where, field, message });
  const out: Record<string, unknown> = {};
  const r = route.retries;
  const byDefault = r?.retryOn === undefined || r.retryOn === '';
  if (r === undefined)
    warn(
      'note',
      'maxAttempts',
      `no retries: Istio's default applies, 2 retries on connect-failure, refused-stream, unavailable, cancelled (gRPC only) and no status code (Istio ${ISTIO_DEFAULT_WITHOUT_503_SINCE}+; 1.23 and earlier also retried ${ISTIO_PRE_1_24_DEFAULT_STATUS})`,
    );
  else if (byDefault && (r.attempts ?? 0) > 0)
    warn(
      'note',
      'retryOn',
      `no retryOn: Istio's default conditions, connect-failure, refused-stream, unavailable, cancelled (gRPC only) and no status code (Istio ${ISTIO_DEFAULT_WITHOUT_503_SINCE}+; 1.23 and earlier also retried ${ISTIO_PRE_1_24_DEFAULT_STATUS})`,
    );
  const attempts = r === undefined ? ISTIO_DEFAULT_ATTEMPTS : (r.attempts ?? 0);
  const deadline =
    route.timeout === undefined ||
    (readGoDuration(route.timeout).ok && (readGoDuration(route.timeout) as { ms: number }).ms === 0)
      ? false
      : { patience: dur(route.timeout) };
  if (attempts <= 0) return { maxAttempts: 1, deadline };
  // @ko mesh-istio-attempts-are-retries
  let maxAttempts = attempts + 1;
  if (maxAttempts > MAX_ATTEMPTS_LIMIT) {
    warn(
      'changed',
      'maxAttempts',
      `attempts ${attempts} is absurd; Seawall allows at most ${MAX_ATTEMPTS_LIMIT} attempts (read as ${MAX_ATTEMPTS_LIMIT})`,
    );
    maxAttempts = MAX_ATTEMPTS_LIMIT;
  }
  out.maxAttempts = maxAttempts;
  if (r?.perTryTimeout !== undefined) out.perTryTimeout = dur(r.perTryTimeout);
  out.deadline = deadline;
  out.backoff = r?.backoff !== undefined ? { kind: 'envoy', base: dur(r.backoff) } : { kind: 'envoy' };
  out.budget = false;
  const retryOn = readMeshRetryOn(
    byDefault ? ISTIO_DEFAULT_RETRY_ON : (r?.retryOn as string),
    [],
    where,
    `${path}.retries.retryOn`,
    'istio',
  );
  problems.push(...retryOn.problems);
  // The default's gRPC conditions are said once, in the note above.
  if (!byDefault) warnings.push(...retryOn.warnings);
  out.retryOn = retryOn.conditions;
  out.honorRetryAfter = false;
  if (r?.retryRemoteLocalities === true)
    warn('dropped', 'retryOn', 'retryRemoteLocalities has no Seawall equivalent; not mapped');
  if (r?.retryIgnorePreviousHosts === false)
    warn(
      'dropped',
      'retryOn',
      "retryIgnorePreviousHosts false: Seawall's balancer always prefers another endpoint; not mapped",
    );
  return out;
}

/** What a call gets from Istio with no VirtualService route for it: the default retry policy. */
export function istioDefaultRetry(where: string, warnings: MeshWarning[]): Record<string, unknown> {
  const problems: string[] = [];
  const retry = retryFromIstio({}, where, 'Istio default', warnings, problems);
  // The default policy is one Seawall reads without a problem; a problem here is a bug in these tables.
  if (problems.length > 0) throw new Error(`Istio's default retry policy: ${problems.join('; ')}`);
  return retry;
}

function limitsFromPool(
  pool: IstioConnectionPool | undefined,
  where: string,
  warnings: MeshWarning[],
): Record<string, unknown> | undefined {
  if (pool === undefined) return undefined;
  // Istio writes MaxUint32 for every threshold it is not given, and reads 0 as "not given" (cluster_traffic_policy.go).
  const pick = (v: number | undefined) => (v === undefined || v === 0 ? UINT32_MAX : v);
  const limits = {
    maxConnections: pick(pool.tcp?.maxConnections),
    maxPendingRequests: pick(pool.http?.http1MaxPendingRequests),
    maxRequests: pick(pool.http?.http2MaxRequests),
    maxRetries: pick(pool.http?.maxRetries),
  };
  const ignored = [
    ...Object.entries(pool.tcp ?? {}).filter(([k]) => k !== 'maxConnections'),
    ...Object.entries(pool.http ?? {}).filter(
      ([k]) => !['http1MaxPendingRequests', 'http2MaxRequests', 'maxRetries'].includes(k),
    ),
  ].map(([k]) => k);
  if (ignored.length > 0)
    warnings.push({
      kind: 'dropped',
      where,
      field: 'limits',
      message: `${ignored.join(', ')}: no Seawall equivalent; not mapped`,
    });
  return Object.values(limits).every((v) => v === UINT32_MAX) ? undefined : limits;
}

export function blocksFromPolicy(
  tp: IstioTrafficPolicy | undefined,
  where: string,
  warnings: MeshWarning[],
): Omit<EdgePolicy, 'retry'> {
  const out: Omit<EdgePolicy, 'retry'> = {};
  let limits = limitsFromPool(tp?.connectionPool, where, warnings);
  const budget = tp?.retryBudget;
  if (budget !== undefined) {
    // Istio writes the budget into the cluster's circuit-breaker thresholds (cluster_traffic_policy.go,
    // applyRetryBudget), where Envoy lets it replace max_retries; a minRetryConcurrency of 0 reads as unset (3).
    const { maxRetries, ...rest } = limits ?? {
      maxConnections: UINT32_MAX,
      maxPendingRequests: UINT32_MAX,
      maxRequests: UINT32_MAX,
      maxRetries: UINT32_MAX,
    };
    if (maxRetries !== UINT32_MAX)
      warnings.push({
        kind: 'dropped',
        where,
        field: 'limits.maxRetries',
        message:
          'connectionPool.http.maxRetries has no effect beside retryBudget (Envoy: the budget is the limit); not mapped',
      });
    // An explicit percent, 0 included, is passed on as it is.
    const min = budget.minRetryConcurrency ?? 0;
    const retryBudget = {
      percent: budget.percent ?? ISTIO_RETRY_BUDGET_PERCENT,
      // @ko istio-min-retry-concurrency-zero-is-default
      minConcurrency: min > 0 ? min : ISTIO_MIN_RETRY_CONCURRENCY,
    };
    // @ko mesh-istio-budget-replaces-max-retries
    limits = { ...rest, retryBudget };
  }
  if (limits !== undefined) out.limits = limits;
  const od = tp?.outlierDetection;
  let panic = ISTIO_PANIC_THRESHOLD;
  if (od !== undefined) {
    // Istio turns success-rate ejection off and sets enforcement from the counts it is given.
    const config: Record<string, unknown> = { enforcingSuccessRate: 0 };
    if (od.consecutive5xxErrors !== undefined) {
      config.consecutive5xx = od.consecutive5xxErrors;
      config.enforcingConsecutive5xx = od.consecutive5xxErrors > 0 ? 100 : 0;
    }
    if (od.consecutiveGatewayErrors !== undefined) {
      config.consecutiveGatewayFailure = od.consecutiveGatewayErrors;
      config.enforcingConsecutiveGatewayFailure = od.consecutiveGatewayErrors > 0 ? 100 : 0;
    }
    if (od.interval !== undefined) config.interval = dur(od.interval);
    if (od.baseEjectionTime !== undefined) config.baseEjectionTime = dur(od.baseEjectionTime);
    if (od.maxEjectionPercent !== undefined && od.maxEjectionPercent > 0)
      config.maxEjectionPercent = od.maxEjectionPercent;
    for (const key of [
      'consecutiveErrors',
      'consecutiveLocalOriginFailures',
      'splitExternalLocalOriginErrors',
    ] as const) {
      if (od[key] !== undefined)
        warnings.push({
          kind: 'dropped',
          where,
          field: 'outlierDetection',
          message: `${key} has no Seawall equivalent; not mapped`,
        });
    }
    out.outlierDetection = config;
    panic = Math.max(0, od.minHealthPercent ?? 0);
  }
  const simple = tp?.loadBalancer?.simple ?? 'UNSPECIFIED';
  let kind: 'round-robin' | 'p2c' = 'p2c'; // Istio's default is LEAST_REQUEST: Envoy's two random choices
  if (simple === 'ROUND_ROBIN') kind = 'round-robin';
  else if (simple === 'RANDOM' || simple === 'PASSTHROUGH') {
    warnings.push({
      kind: 'dropped',
      where,
      field: 'loadBalancer',
      message: `${simple} has no Seawall balancer; read as p2c`,
    });
  }
  if (tp?.loadBalancer?.consistentHash !== undefined)
    warnings.push({
      kind: 'dropped',
      where,
      field: 'loadBalancer',
      message: 'consistentHash has no Seawall balancer; not mapped',
    });
  if (kind !== 'round-robin' || panic !== 50) out.loadBalancer = { kind, panicThreshold: panic };
  return out;
}

/** Subset policy replaces the top level component by component, as Istio merges them. */
export function effectivePolicy(
  dr: IstioDestinationRuleSpec,
  subset: string | undefined,
): IstioTrafficPolicy | undefined {
  const top = dr.trafficPolicy;
  const sub = subset === undefined ? undefined : dr.subsets?.find((s) => s.name === subset)?.trafficPolicy;
  if (sub === undefined) return top;
  return {
    ...(top ?? {}),
    ...Object.fromEntries(Object.entries(sub).filter(([, v]) => v !== undefined)),
  } as IstioTrafficPolicy;
}
