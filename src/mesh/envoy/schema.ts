// A strict zod schema of the Envoy v3 fields Seawall reads and writes (retries, timeouts, circuit breakers, outliers).
//
// Written from Envoy's API protos (envoyproxy/envoy, api/): envoy/config/route/v3/route_components.proto
// (VirtualHost, Route, RouteMatch, HeaderMatcher, RouteAction, RetryPolicy and its RetryBackOff,
// RateLimitedRetryBackOff, ResetHeader), envoy/config/route/v3/route.proto (RouteConfiguration),
// envoy/config/cluster/v3/cluster.proto (Cluster, CommonLbConfig), envoy/config/cluster/v3/circuit_breaker.proto
// (CircuitBreakers.Thresholds, RetryBudget), envoy/config/cluster/v3/outlier_detection.proto,
// envoy/config/bootstrap/v3/bootstrap.proto (Bootstrap, StaticResources), envoy/config/core/v3/base.proto (Node),
// envoy/type/v3/percent.proto (Percent). Field names are the protos' (snake_case, as Envoy's YAML uses them);
// values follow the proto3 JSON mapping: Duration as "0.25s", UInt32Value as a number, Percent as { value }.
// Every field of these messages is known; the ones Seawall does not read may hold anything. A name that is no field
// of the message is an error with its path. Listeners and the HTTP connection manager are walked, not checked:
// only their route_config is.

import { z } from 'zod';
import { envoyMs, readProtoDuration } from '../durations.js';
import { bool, durationString, list, message, str, uint32, uint32Percent } from '../schema-kit.js';
import {
  BOOTSTRAP_FIELDS,
  CLUSTER_FIELDS,
  RETRY_POLICY_FIELDS,
  ROUTE_ACTION_FIELDS,
  ROUTE_CONFIGURATION_FIELDS,
  ROUTE_FIELDS,
  VIRTUAL_HOST_FIELDS,
} from './fields.js';

const duration = durationString(readProtoDuration);
/** A Duration under Envoy's `(validate.rules).duration.gt: {}`: Envoy refuses "0s" there, so Seawall does too. */
function positiveReader(value: unknown) {
  const read = readProtoDuration(value);
  return read.ok && read.ms === 0
    ? ({ ok: false, message: 'must be greater than 0s (Envoy refuses 0s here)' } as const)
    : read;
}
const positiveDuration = durationString(positiveReader);
/**
 * An outlier-detection interval or ejection time: Envoy reads it as whole ms (envoyMs), so "0.0005s" is 0 ms, a sweep
 * on every event-loop turn or no ejection at all, which Seawall does not simulate: refused, saying so.
 */
function outlierReader(value: unknown) {
  const read = positiveReader(value);
  if (read.ok && envoyMs(value as string) === 0)
    return {
      ok: false,
      message: `is 0 ms as Envoy reads it (whole milliseconds, truncated), which Seawall does not simulate: write at least 0.001s`,
    } as const;
  return read;
}
const outlierDuration = durationString(outlierReader);

/** Envoy's default base_ejection_time (source/common/upstream/outlier_detection_impl.h), ms. */
const ENVOY_BASE_EJECTION_TIME_MS = 30_000;

/**
 * RetryPolicy.RetryBackOff as Envoy loads it (source/common/router/retry_policy_impl.cc, RetryPolicyImpl): base_interval
 * is required; both intervals are read as whole ms, raised to 1 ms when below; then a max_interval below the
 * base_interval fails the route config.
 */
const retryBackOffSchema = z
  .strictObject({
    base_interval: z.unknown().superRefine((value, ctx) => {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is required: Envoy refuses a retry_back_off without base_interval' });
        return;
      }
      const read = positiveReader(value);
      if (!read.ok) ctx.addIssue({ code: 'custom', message: read.message });
    }) as unknown as z.ZodType<string>,
    max_interval: durationString(positiveReader).optional(),
  })
  .superRefine((backoff, ctx) => {
    if (backoff.max_interval === undefined) return;
    // A field refused on its own (not a duration, or 0s) gets its own line only.
    if (!positiveReader(backoff.base_interval).ok || !positiveReader(backoff.max_interval).ok) return;
    const base = Math.max(1, envoyMs(backoff.base_interval));
    const max = Math.max(1, envoyMs(backoff.max_interval));
    // @ko envoy-backoff-max-below-base
    if (max < base) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_interval'],
        message: `${backoff.max_interval} is below base_interval ${backoff.base_interval} (${max} ms < ${base} ms as Envoy reads them): Envoy refuses the route config`,
      });
    }
  });

/** envoy.type.v3.Percent: a double in [0, 100]. */
export const percentSchema = z.strictObject({
  value: z
    .number({ error: 'must be a number from 0 to 100' })
    .min(0, { error: 'must be a number from 0 to 100' })
    .max(100, { error: 'must be a number from 0 to 100' }),
});

const stringMatcher = message(['exact', 'prefix', 'suffix', 'safe_regex', 'contains', 'custom', 'ignore_case'], {
  exact: str,
  prefix: str,
  suffix: str,
  contains: str,
  safe_regex: message(['google_re2', 'regex'], { regex: str }),
  ignore_case: bool,
});

export const headerMatcherSchema = message(
  [
    'name',
    'exact_match',
    'safe_regex_match',
    'range_match',
    'present_match',
    'prefix_match',
    'suffix_match',
    'contains_match',
    'string_match',
    'invert_match',
    'treat_missing_header_as_empty',
  ],
  {
    name: str,
    exact_match: str,
    safe_regex_match: message(['google_re2', 'regex'], { regex: str }),
    present_match: bool,
    prefix_match: str,
    string_match: stringMatcher,
    invert_match: bool,
  },
);

export const retryPolicySchema = message(RETRY_POLICY_FIELDS, {
  retry_on: str,
  num_retries: uint32,
  per_try_timeout: duration,
  per_try_idle_timeout: duration,
  retriable_status_codes: list(uint32),
  retry_back_off: retryBackOffSchema,
  rate_limited_retry_back_off: z.strictObject({
    reset_headers: list(
      z.strictObject({
        name: str.min(1, { error: 'must not be empty' }),
        format: z.enum(['SECONDS', 'UNIX_TIMESTAMP'], { error: 'must be SECONDS or UNIX_TIMESTAMP' }).optional(),
      }),
    ).min(1, { error: 'must list at least one header' }),
    max_interval: positiveDuration.optional(),
  }),
  retriable_request_headers: list(headerMatcherSchema),
});

const routeMatchSchema = message(
  [
    'prefix',
    'path',
    'safe_regex',
    'connect_matcher',
    'path_separated_prefix',
    'path_match_policy',
    'case_sensitive',
    'runtime_fraction',
    'headers',
    'query_parameters',
    'grpc',
    'tls_context',
    'dynamic_metadata',
    'filter_state',
  ],
  { prefix: str, path: str, headers: list(headerMatcherSchema) },
);

const weightedClustersSchema = message(
  ['clusters', 'total_weight', 'runtime_key_prefix', 'header_name', 'use_hash_policy'],
  {
    clusters: list(
      message(
        [
          'name',
          'cluster_header',
          'weight',
          'metadata_match',
          'request_headers_to_add',
          'request_headers_to_remove',
          'response_headers_to_add',
          'response_headers_to_remove',
          'typed_per_filter_config',
          'host_rewrite_literal',
        ],
        { name: str, weight: uint32 },
      ),
    ),
  },
);

export const routeActionSchema = message(ROUTE_ACTION_FIELDS, {
  cluster: str,
  weighted_clusters: weightedClustersSchema,
  timeout: duration,
  retry_policy: retryPolicySchema,
});

export const routeSchema = message(ROUTE_FIELDS, { name: str, match: routeMatchSchema, route: routeActionSchema });

export const virtualHostSchema = message(VIRTUAL_HOST_FIELDS, {
  name: str,
  domains: list(str),
  routes: list(routeSchema),
  retry_policy: retryPolicySchema,
});

export const routeConfigurationSchema = message(ROUTE_CONFIGURATION_FIELDS, {
  name: str,
  virtual_hosts: list(virtualHostSchema),
});

const thresholdsSchema = z.strictObject({
  priority: z.enum(['DEFAULT', 'HIGH'], { error: 'must be DEFAULT or HIGH' }).optional(),
  max_connections: uint32.optional(),
  max_pending_requests: uint32.optional(),
  max_requests: uint32.optional(),
  max_retries: uint32.optional(),
  retry_budget: z
    .strictObject({ budget_percent: percentSchema.optional(), min_retry_concurrency: uint32.optional() })
    .optional(),
  track_remaining: bool.optional(),
  max_connection_pools: uint32.optional(),
});

export const circuitBreakersSchema = z.strictObject({
  thresholds: list(thresholdsSchema).optional(),
  per_host_thresholds: list(thresholdsSchema).optional(),
});

export const outlierDetectionSchema = z
  .strictObject({
    consecutive_5xx: uint32.optional(),
    interval: outlierDuration.optional(),
    base_ejection_time: outlierDuration.optional(),
    max_ejection_percent: uint32Percent.optional(),
    enforcing_consecutive_5xx: uint32Percent.optional(),
    enforcing_success_rate: uint32Percent.optional(),
    success_rate_minimum_hosts: uint32.optional(),
    success_rate_request_volume: uint32.optional(),
    success_rate_stdev_factor: uint32.optional(),
    consecutive_gateway_failure: uint32.optional(),
    enforcing_consecutive_gateway_failure: uint32Percent.optional(),
    split_external_local_origin_errors: bool.optional(),
    consecutive_local_origin_failure: uint32.optional(),
    enforcing_consecutive_local_origin_failure: uint32Percent.optional(),
    enforcing_local_origin_success_rate: uint32Percent.optional(),
    failure_percentage_threshold: uint32Percent.optional(),
    enforcing_failure_percentage: uint32Percent.optional(),
    enforcing_failure_percentage_local_origin: uint32Percent.optional(),
    failure_percentage_minimum_hosts: uint32.optional(),
    failure_percentage_request_volume: uint32.optional(),
    max_ejection_time: outlierDuration.optional(),
    max_ejection_time_jitter: duration.optional(),
    successful_active_health_check_uneject_host: bool.optional(),
    monitors: z.unknown().optional(),
    always_eject_one_host: bool.optional(),
  })
  .superRefine((od, ctx) => {
    // DetectorImpl::create (source/common/upstream/outlier_detection_impl.cc) refuses the cluster when
    // max_ejection_time < base_ejection_time, both in whole ms; an unset max_ejection_time is
    // max(300 s, base_ejection_time), so only an explicit one can be too small.
    if (od.max_ejection_time === undefined) return;
    if (!outlierReader(od.max_ejection_time).ok) return;
    if (od.base_ejection_time !== undefined && !outlierReader(od.base_ejection_time).ok) return;
    const base = od.base_ejection_time === undefined ? ENVOY_BASE_EJECTION_TIME_MS : envoyMs(od.base_ejection_time);
    const max = envoyMs(od.max_ejection_time);
    // @ko envoy-max-ejection-below-base
    if (max < base) {
      const baseText = od.base_ejection_time === undefined ? "30s (Envoy's default)" : od.base_ejection_time;
      ctx.addIssue({
        code: 'custom',
        path: ['max_ejection_time'],
        message: `${od.max_ejection_time} is below base_ejection_time ${baseText} (${max} ms < ${base} ms): Envoy refuses the cluster (max_ejection_time cannot be smaller than base_ejection_time)`,
      });
    }
  });

const commonLbConfigSchema = message(
  [
    'healthy_panic_threshold',
    'zone_aware_lb_config',
    'locality_weighted_lb_config',
    'update_merge_window',
    'ignore_new_hosts_until_first_hc',
    'close_connections_on_host_set_change',
    'consistent_hashing_lb_config',
    'override_host_status',
  ],
  { healthy_panic_threshold: percentSchema },
);

export const LB_POLICIES = [
  'ROUND_ROBIN',
  'LEAST_REQUEST',
  'RING_HASH',
  'RANDOM',
  'MAGLEV',
  'CLUSTER_PROVIDED',
  'LOAD_BALANCING_POLICY_CONFIG',
] as const;

export const clusterSchema = message(CLUSTER_FIELDS, {
  name: str.min(1, { error: 'must not be empty' }),
  connect_timeout: positiveDuration,
  lb_policy: z.enum(LB_POLICIES, { error: `must be one of ${LB_POLICIES.join(', ')}` }),
  circuit_breakers: circuitBreakersSchema,
  outlier_detection: outlierDetectionSchema,
  common_lb_config: commonLbConfigSchema,
});

export const nodeSchema = message(
  [
    'id',
    'cluster',
    'metadata',
    'dynamic_parameters',
    'locality',
    'user_agent_name',
    'user_agent_version',
    'user_agent_build_version',
    'extensions',
    'client_features',
    'listening_addresses',
  ],
  { id: str, cluster: str },
);

const staticResourcesSchema = z.strictObject({
  listeners: list(z.unknown()).optional(),
  clusters: list(clusterSchema).optional(),
  secrets: z.unknown().optional(),
});

export const bootstrapSchema = message(BOOTSTRAP_FIELDS, { node: nodeSchema, static_resources: staticResourcesSchema });

export type EnvoyRetryPolicy = z.output<typeof retryPolicySchema>;
export type EnvoyRoute = z.output<typeof routeSchema>;
export type EnvoyVirtualHost = z.output<typeof virtualHostSchema>;
export type EnvoyRouteConfiguration = z.output<typeof routeConfigurationSchema>;
export type EnvoyCluster = z.output<typeof clusterSchema>;
export type EnvoyOutlierDetection = z.output<typeof outlierDetectionSchema>;
export type EnvoyThresholds = z.output<typeof thresholdsSchema>;
export type EnvoyBootstrap = z.output<typeof bootstrapSchema>;
