// Export to Envoy: one bootstrap per service's sidecar (outbound routes + clusters, inbound limits in front of the app).

import { parseDuration } from '../../policy/core/duration.js';
import { ENVOY_OUTLIER_FIELDS } from '../../policy/upstream/outlier-config.js';
import { writePositiveProtoDuration } from '../durations.js';
import type { MeshWarning } from '../errors.js';
import type { ExportEdge, ExportService } from '../export-policy.js';
import { writeMeshRetryOn } from '../retry-on.js';
import { ENVOY_HEALTHY_PANIC_THRESHOLD, UINT32_MAX } from './defaults.js';

export const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
export const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
/** RFC 9110 idempotent methods: the route that may replay on any condition. */
export const IDEMPOTENT_METHODS_REGEX = '^(GET|HEAD|OPTIONS|TRACE|PUT|DELETE)$';
export const APP_PORT = 8080;
const OUTLIER_DURATIONS = new Set(['interval', 'baseEjectionTime', 'maxEjectionTime']);

export function fqdn(service: string, namespace: string): string {
  return `${service}.${namespace}.svc.cluster.local`;
}

/** A positive duration Envoy reads as whole ms: under 1 ms it would be 0 (off or refused), so 1 ms, said so. */
function positive(ms: number, where: string, field: string, warnings: MeshWarning[]): string {
  if (ms < 1)
    warnings.push({
      kind: 'changed',
      where,
      field,
      message: `Envoy reads durations as whole milliseconds: ${ms} ms would be 0 (off or refused); written as 1 ms`,
    });
  return writePositiveProtoDuration(ms);
}

function retryPolicy(
  edge: ExportEdge,
  conditions: readonly unknown[],
  warnings: MeshWarning[],
): Record<string, unknown> | undefined {
  if (edge.attempts <= 1 || conditions.length === 0) return undefined;
  const on = writeMeshRetryOn(conditions, edge.where, 'envoy');
  warnings.push(...on.warnings);
  const policy: Record<string, unknown> = { retry_on: on.tokens.join(','), num_retries: edge.attempts - 1 };
  // per_try_timeout "0s" would disable it; base_interval, max_interval: Envoy's duration.gt: {} (never "0s").
  if (edge.perTryTimeoutMs !== null)
    policy.per_try_timeout = positive(edge.perTryTimeoutMs, edge.where, 'perTryTimeout', warnings);
  if (on.codes.length > 0) policy.retriable_status_codes = on.codes;
  policy.retry_back_off = {
    base_interval: positive(edge.backoff.baseMs, edge.where, 'backoff.base', warnings),
    max_interval: positive(edge.backoff.maxMs, edge.where, 'backoff.max', warnings),
  };
  if (edge.retryAfterMaxMs !== null) {
    if (edge.retryAfterMaxMs < 1) {
      warnings.push({
        kind: 'changed',
        where: edge.where,
        field: 'maxRetryAfter',
        message:
          'Envoy refuses a max_interval of 0s and reads one under 1 ms as 1 ms; 1 ms written: Retry-After counts whole seconds, so both take only a Retry-After of 0',
      });
    }
    policy.rate_limited_retry_back_off = {
      reset_headers: [{ name: 'retry-after', format: 'SECONDS' }],
      max_interval: writePositiveProtoDuration(edge.retryAfterMaxMs),
    };
  }
  return policy;
}

function routes(edge: ExportEdge, warnings: MeshWarning[]): Record<string, unknown>[] {
  const action = (conditions: readonly unknown[]) => {
    // A timeout under 1 ms would be read as 0 ms, no timeout at all: written as 1 ms.
    const timeout =
      edge.timeoutMs === null || edge.timeoutMs === 0
        ? '0s'
        : positive(edge.timeoutMs, edge.where, 'deadline', warnings);
    const r: Record<string, unknown> = { cluster: edge.to, timeout };
    const policy = retryPolicy(edge, conditions, warnings);
    if (policy !== undefined) r.retry_policy = policy;
    return r;
  };
  if (edge.writeRetryOn === null || edge.attempts <= 1)
    return [{ match: { prefix: '/' }, route: action(edge.retryOn) }];
  // Seawall does not replay a write after the server may have acted (classify.ts); Envoy does not look at the method,
  // so writes get a route of their own that retries only where the server never saw the request.
  return [
    {
      match: {
        prefix: '/',
        headers: [{ name: ':method', string_match: { safe_regex: { regex: IDEMPOTENT_METHODS_REGEX } } }],
      },
      route: action(edge.retryOn),
    },
    { match: { prefix: '/' }, route: action(edge.writeRetryOn) },
  ];
}

function thresholds(edge: ExportEdge): Record<string, unknown> {
  const l = edge.limits;
  const t: Record<string, unknown> = {
    priority: 'DEFAULT',
    max_connections: l?.maxConnections ?? UINT32_MAX,
    max_pending_requests: l?.maxPendingRequests ?? UINT32_MAX,
    max_requests: l?.maxRequests ?? UINT32_MAX,
  };
  if (edge.budget !== null) {
    t.retry_budget = {
      budget_percent: { value: edge.budget.percent },
      min_retry_concurrency: edge.budget.minConcurrency,
    };
  } else t.max_retries = l?.maxRetries ?? UINT32_MAX;
  return t;
}

function outlier(config: Record<string, unknown>, where: string, warnings: MeshWarning[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(ENVOY_OUTLIER_FIELDS)) {
    const value = config[key];
    if (value === undefined) continue;
    if (field === null) {
      warnings.push({
        kind: 'note',
        where,
        field: `outlierDetection.${key}`,
        message: "Seawall's own bound on tracked hosts; Envoy knows its cluster membership",
      });
      continue;
    }
    out[field] = OUTLIER_DURATIONS.has(key)
      ? positive(parseDuration(value as never), where, `outlierDetection.${key}`, warnings)
      : value;
  }
  return out;
}

function hcm(name: string, virtualHosts: unknown[], respectExpected: boolean): Record<string, unknown> {
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typed_config: {
      '@type': HCM_TYPE,
      stat_prefix: name,
      route_config: { name, virtual_hosts: virtualHosts },
      http_filters: [
        {
          name: 'envoy.filters.http.router',
          typed_config: { '@type': ROUTER_TYPE, ...(respectExpected ? { respect_expected_rq_timeout: true } : {}) },
        },
      ],
    },
  };
}

function listener(
  name: string,
  address: string,
  port: number,
  filter: Record<string, unknown>,
): Record<string, unknown> {
  return { name, address: { socket_address: { address, port_value: port } }, filter_chains: [{ filters: [filter] }] };
}

/** The bootstrap of `service`'s sidecar: routes and clusters for its calls, and the inbound limits of the service. */
export function envoyBootstrap(
  service: string,
  edges: readonly ExportEdge[],
  inbound: ExportService | null,
  namespace: string,
  warnings: MeshWarning[],
): Record<string, unknown> {
  const listeners: unknown[] = [];
  const clusters: unknown[] = [];
  if (edges.length > 0) {
    const vhosts = edges.map((e) => ({
      name: e.to,
      domains: [e.to, fqdn(e.to, namespace)],
      routes: routes(e, warnings),
    }));
    listeners.push(listener('outbound', '127.0.0.1', 15001, hcm('outbound', vhosts, false)));
    for (const e of edges) {
      const cluster: Record<string, unknown> = {
        name: e.to,
        type: 'STRICT_DNS',
        connect_timeout: '1s',
        lb_policy: e.balancer.kind === 'p2c' ? 'LEAST_REQUEST' : 'ROUND_ROBIN',
        load_assignment: {
          cluster_name: e.to,
          endpoints: [
            {
              lb_endpoints: [
                { endpoint: { address: { socket_address: { address: fqdn(e.to, namespace), port_value: APP_PORT } } } },
              ],
            },
          ],
        },
        circuit_breakers: { thresholds: [thresholds(e)] },
      };
      if (e.outlier !== null) cluster.outlier_detection = outlier(e.outlier, e.where, warnings);
      if (e.balancer.panicThreshold !== ENVOY_HEALTHY_PANIC_THRESHOLD)
        cluster.common_lb_config = { healthy_panic_threshold: { value: e.balancer.panicThreshold } };
      clusters.push(cluster);
    }
  }
  if (inbound !== null) {
    const name = `inbound|${APP_PORT}||${inbound.name}`;
    const vhost = {
      name: inbound.name,
      domains: ['*'],
      routes: [{ match: { prefix: '/' }, route: { cluster: name, timeout: '0s' } }],
    };
    listeners.push(listener('inbound', '0.0.0.0', 15006, hcm('inbound', [vhost], inbound.dropExpired)));
    const workers = inbound.workers ?? UINT32_MAX;
    clusters.push({
      name,
      type: 'STATIC',
      connect_timeout: '1s',
      load_assignment: {
        cluster_name: name,
        endpoints: [
          {
            lb_endpoints: [
              { endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: APP_PORT } } } },
            ],
          },
        ],
      },
      // HTTP/1.1 to the app: one request per connection, so connections and requests are both capped at `workers`;
      // the rest wait in Envoy's pending queue, and past max_pending_requests get a 503 at once.
      circuit_breakers: {
        thresholds: [
          {
            priority: 'DEFAULT',
            max_connections: workers,
            max_pending_requests: inbound.queueLimit ?? UINT32_MAX,
            max_requests: workers,
            max_retries: 0,
          },
        ],
      },
    });
  }
  return { node: { id: `${service}-sidecar`, cluster: service }, static_resources: { listeners, clusters } };
}
