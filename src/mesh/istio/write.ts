// Export to Istio: a VirtualService per callee (a route per caller), a DestinationRule per call, a Sidecar per limited service.

import { DEFAULT_OUTLIER_DETECTION, validateOutlierDetectionConfig } from '../../policy/upstream/outlier-config.js';
import { writeIstioDuration } from '../durations.js';
import { ENVOY_BACKOFF_BASE_MS, ENVOY_BACKOFF_MAX_FACTOR, UINT32_MAX } from '../envoy/defaults.js';
import { fqdn, IDEMPOTENT_METHODS_REGEX } from '../envoy/write.js';
import type { MeshWarning } from '../errors.js';
import type { ExportEdge, ExportService } from '../export-policy.js';
import { writeMeshRetryOn } from '../retry-on.js';
import { ISTIO_PANIC_THRESHOLD } from './defaults.js';
import type { IstioDocument, IstioHttpRoute, IstioTrafficPolicy } from './schema.js';

// Typed by Seawall's own schema of Istio's CRD fields (istio-schema.ts): a field name that is not Istio's fails to compile.
type HttpRoute = IstioHttpRoute;
type TrafficPolicy = IstioTrafficPolicy;
const INT32_MAX = 2_147_483_647;
const API = 'networking.istio.io/v1';

/** Istio's int32 fields; 0 means "not set" to Istio (cluster_traffic_policy.go), so a 0 limit cannot be written. */
/** A duration as Istio validates it (whole ms, at least 1 ms), with a warning when that changes it. */
function istioDuration(ms: number, where: string, field: string, warnings: MeshWarning[]): string {
  const written = writeIstioDuration(ms);
  if (Math.max(1, Math.round(ms)) !== ms)
    warnings.push({
      kind: 'changed',
      where,
      field,
      message: `Istio takes whole milliseconds, at least 1 ms (ValidateDuration); ${ms} ms written as ${written}`,
    });
  return written;
}

function int32Limit(value: number, where: string, field: string, warnings: MeshWarning[]): number | undefined {
  if (value >= UINT32_MAX) return undefined;
  if (value === 0) {
    warnings.push({
      kind: 'changed',
      where,
      field,
      message: 'Istio reads 0 as "no limit"; the closest limit, 1, is written',
    });
    return 1;
  }
  if (value > INT32_MAX) {
    warnings.push({
      kind: 'changed',
      where,
      field,
      message: `Istio's field is 32-bit signed: ${value} written as ${INT32_MAX}`,
    });
    return INT32_MAX;
  }
  return value;
}

function retries(edge: ExportEdge, conditions: readonly unknown[], warnings: MeshWarning[]): HttpRoute['retries'] {
  if (edge.attempts <= 1 || conditions.length === 0) return { attempts: 0 };
  const on = writeMeshRetryOn(conditions, edge.where, 'istio');
  warnings.push(...on.warnings);
  const r: NonNullable<HttpRoute['retries']> = {
    attempts: edge.attempts - 1,
    retryOn: [...on.tokens.filter((t) => t !== 'retriable-status-codes'), ...on.codes.map(String)].join(','),
  };
  // Envoy's own base (25 ms) needs no field, and leaving it out keeps the file readable by Istio before 1.26.
  if (edge.backoff.baseMs !== ENVOY_BACKOFF_BASE_MS)
    r.backoff = istioDuration(edge.backoff.baseMs, edge.where, 'backoff', warnings);
  if (edge.perTryTimeoutMs !== null)
    r.perTryTimeout = istioDuration(edge.perTryTimeoutMs, edge.where, 'perTryTimeout', warnings);
  return r;
}

function httpRoutes(edge: ExportEdge, namespace: string, warnings: MeshWarning[]): HttpRoute[] {
  const base = (conditions: readonly unknown[], method: boolean): HttpRoute => {
    const route: HttpRoute = {
      match: [{ sourceLabels: { app: edge.from }, ...(method ? { method: { regex: IDEMPOTENT_METHODS_REGEX } } : {}) }],
      // @ko istio-export-published-fields
      route: [{ destination: { host: fqdn(edge.to, namespace) } }],
      retries: retries(edge, conditions, warnings),
    };
    if (edge.timeoutMs !== null) route.timeout = istioDuration(edge.timeoutMs, edge.where, 'deadline', warnings);
    return route;
  };
  if (edge.attempts > 1 && edge.backoff.maxMs !== ENVOY_BACKOFF_MAX_FACTOR * edge.backoff.baseMs) {
    warnings.push({
      kind: 'changed',
      where: edge.where,
      field: 'backoff',
      message: `Istio sets only the base back-off; Envoy's max is then ${ENVOY_BACKOFF_MAX_FACTOR} × base (${ENVOY_BACKOFF_MAX_FACTOR * edge.backoff.baseMs} ms), not ${edge.backoff.maxMs} ms`,
    });
  }
  if (edge.retryAfterMaxMs !== null && edge.attempts > 1) {
    warnings.push({
      kind: 'dropped',
      where: edge.where,
      field: 'honorRetryAfter',
      message: 'Istio cannot set rate_limited_retry_back_off: Envoy under Istio ignores Retry-After',
    });
  }
  if (edge.writeRetryOn === null || edge.attempts <= 1) return [base(edge.retryOn, false)];
  return [base(edge.retryOn, true), base(edge.writeRetryOn, false)];
}

function outlierDetection(edge: ExportEdge, warnings: MeshWarning[]): TrafficPolicy['outlierDetection'] {
  const config = edge.outlier as Record<string, unknown>;
  const r = validateOutlierDetectionConfig(config, '', []) ?? DEFAULT_OUTLIER_DETECTION;
  const warn = (kind: MeshWarning['kind'], field: string, message: string) =>
    warnings.push({ kind, where: edge.where, field: `outlierDetection.${field}`, message });
  const od: NonNullable<TrafficPolicy['outlierDetection']> = {};
  // Istio sets enforcement to 100 % for a count it is given (0 % for 0): other percentages cannot be written.
  if (r.enforcingConsecutive5xx !== 100 && r.enforcingConsecutive5xx !== 0)
    warn(
      'changed',
      'enforcingConsecutive5xx',
      `Istio enforces 100 % or nothing; ${r.enforcingConsecutive5xx} % written as 100 %`,
    );
  if (config.consecutive5xx !== undefined || config.enforcingConsecutive5xx !== undefined) {
    od.consecutive5xxErrors = r.enforcingConsecutive5xx === 0 ? 0 : r.consecutive5xx;
  }
  if (r.enforcingConsecutiveGatewayFailure !== 0) {
    if (r.enforcingConsecutiveGatewayFailure !== 100)
      warn(
        'changed',
        'enforcingConsecutiveGatewayFailure',
        `Istio enforces 100 % or nothing; ${r.enforcingConsecutiveGatewayFailure} % written as 100 %`,
      );
    od.consecutiveGatewayErrors = r.consecutiveGatewayFailure;
  }
  if (config.interval !== undefined)
    od.interval = istioDuration(r.intervalMs, edge.where, 'outlierDetection.interval', warnings);
  if (config.baseEjectionTime !== undefined)
    od.baseEjectionTime = istioDuration(
      r.baseEjectionTimeMs,
      edge.where,
      'outlierDetection.baseEjectionTime',
      warnings,
    );
  if (config.maxEjectionPercent !== undefined) {
    if (r.maxEjectionPercent === 0)
      warn('changed', 'maxEjectionPercent', 'Istio reads 0 as "not set" (10 %); written as 1 %');
    od.maxEjectionPercent = Math.max(1, r.maxEjectionPercent);
  }
  od.minHealthPercent = edge.balancer.panicThreshold;
  if (r.enforcingSuccessRate !== 0)
    warn(
      'changed',
      'enforcingSuccessRate',
      `Istio turns success-rate ejection off (Seawall: ${r.enforcingSuccessRate} %)`,
    );
  const unsupported: [string, boolean][] = [
    ['maxEjectionTime', config.maxEjectionTime !== undefined],
    ['successRateMinimumHosts', config.successRateMinimumHosts !== undefined],
    ['successRateRequestVolume', config.successRateRequestVolume !== undefined],
    ['successRateStdevFactor', config.successRateStdevFactor !== undefined],
    ['failurePercentageThreshold', r.enforcingFailurePercentage !== 0],
    ['enforcingFailurePercentage', r.enforcingFailurePercentage !== 0],
    ['alwaysEjectOneHost', r.alwaysEjectOneHost],
  ];
  for (const [key, set] of unsupported) if (set) warn('dropped', key, 'Istio has no such setting; not written');
  return od;
}

function trafficPolicy(edge: ExportEdge, warnings: MeshWarning[]): TrafficPolicy {
  const tp: TrafficPolicy = {};
  const l = edge.limits;
  if (l !== null) {
    const w = (v: number, f: string) => int32Limit(v, edge.where, `limits.${f}`, warnings);
    const tcp = w(l.maxConnections, 'maxConnections');
    const http: NonNullable<NonNullable<TrafficPolicy['connectionPool']>['http']> = {};
    const pending = w(l.maxPendingRequests, 'maxPendingRequests');
    const requests = w(l.maxRequests, 'maxRequests');
    const retries = edge.budget === null ? w(l.maxRetries, 'maxRetries') : undefined;
    if (pending !== undefined) http.http1MaxPendingRequests = pending;
    if (requests !== undefined) http.http2MaxRequests = requests;
    if (retries !== undefined) http.maxRetries = retries;
    tp.connectionPool = {
      ...(tcp !== undefined ? { tcp: { maxConnections: tcp } } : {}),
      ...(Object.keys(http).length > 0 ? { http } : {}),
    };
  }
  tp.loadBalancer = { simple: edge.balancer.kind === 'p2c' ? 'LEAST_REQUEST' : 'ROUND_ROBIN' };
  if (edge.outlier !== null) tp.outlierDetection = outlierDetection(edge, warnings);
  else if (edge.balancer.panicThreshold !== ISTIO_PANIC_THRESHOLD) {
    warnings.push({
      kind: 'dropped',
      where: edge.where,
      field: 'loadBalancer.panicThreshold',
      message: 'Istio sets the panic threshold only beside outlierDetection (minHealthPercent); not written',
    });
  }
  if (edge.budget !== null)
    tp.retryBudget = { percent: edge.budget.percent, minRetryConcurrency: edge.budget.minConcurrency };
  return tp;
}

/** Istio documents for a variant, in a fixed order: VirtualServices by callee, DestinationRules by call, Sidecars. */
export function istioDocuments(
  edges: readonly ExportEdge[],
  services: readonly ExportService[],
  namespace: string,
  warnings: MeshWarning[],
): IstioDocument[] {
  const docs: IstioDocument[] = [];
  const callees = [...new Set(edges.map((e) => e.to))].sort();
  for (const callee of callees) {
    const into = edges.filter((e) => e.to === callee);
    docs.push({
      apiVersion: API,
      kind: 'VirtualService',
      metadata: { name: `${callee}-seawall`, namespace },
      spec: { hosts: [fqdn(callee, namespace)], http: into.flatMap((e) => httpRoutes(e, namespace, warnings)) },
    });
  }
  for (const e of edges) {
    docs.push({
      apiVersion: API,
      kind: 'DestinationRule',
      metadata: { name: `${e.to}-from-${e.from}`, namespace },
      spec: {
        host: fqdn(e.to, namespace),
        workloadSelector: { matchLabels: { app: e.from } },
        trafficPolicy: trafficPolicy(e, warnings),
      },
    });
  }
  for (const s of services) {
    const http: Record<string, number> = {};
    const workers =
      s.workers === null ? undefined : int32Limit(s.workers, s.name, `services.${s.name}.workers`, warnings);
    const queue = int32Limit(s.queueLimit ?? INT32_MAX, s.name, `services.${s.name}.queueLimit`, warnings);
    if (workers !== undefined) http.http2MaxRequests = workers;
    if (queue !== undefined) http.http1MaxPendingRequests = queue;
    docs.push({
      apiVersion: API,
      kind: 'Sidecar',
      metadata: { name: `${s.name}-inbound`, namespace },
      spec: {
        workloadSelector: { labels: { app: s.name } },
        inboundConnectionPool: { ...(workers !== undefined ? { tcp: { maxConnections: workers } } : {}), http },
      },
    });
  }
  return docs;
}
