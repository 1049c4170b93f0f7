// Outlier detection configuration: Envoy's keys and defaults in camelCase, validated with one issue per problem.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

/**
 * What an outlier detector is told. Every key is optional; each default is Envoy's
 * (envoy/config/cluster/v3/outlier_detection.proto), except `maxHosts`, which Envoy does not need.
 */
export interface OutlierDetectionConfig {
  /** consecutive_5xx: this many 5xx or locally originated failures in a row detect an outlier. Default 5; 0 = off. */
  consecutive5xx?: number;
  /** consecutive_gateway_failure: this many 502/503/504 or locally originated failures in a row. Default 5; 0 = off. */
  consecutiveGatewayFailure?: number;
  /** enforcing_consecutive_5xx: % chance a consecutive-5xx detection ejects. Default 100. */
  enforcingConsecutive5xx?: number;
  /** enforcing_consecutive_gateway_failure: % chance a consecutive-gateway detection ejects. Default 0. */
  enforcingConsecutiveGatewayFailure?: number;
  /** interval: time between sweeps (un-ejection, success-rate and failure-percentage analysis, decay). Default 10s. */
  interval?: Duration;
  /** base_ejection_time: an ejection lasts base × the host's ejection multiplier. Default 30s. */
  baseEjectionTime?: Duration;
  /** max_ejection_time: cap on one ejection. Default 300s, or baseEjectionTime if that is larger. */
  maxEjectionTime?: Duration;
  /** max_ejection_percent: never eject a host if that would put more than this % of hosts out. Default 10. */
  maxEjectionPercent?: number;
  /** always_eject_one_host: allow one ejection whatever maxEjectionPercent says, when none is active. Default false. */
  alwaysEjectOneHost?: boolean;
  /** success_rate_minimum_hosts: hosts with enough volume needed for success-rate analysis. Default 5. */
  successRateMinimumHosts?: number;
  /** success_rate_request_volume: results in the last interval a host needs to be analysed. Default 100. */
  successRateRequestVolume?: number;
  /** success_rate_stdev_factor: threshold = mean − stdev × factor / 1000. Default 1900 (1.9). */
  successRateStdevFactor?: number;
  /** enforcing_success_rate: % chance a success-rate detection ejects. Default 100. */
  enforcingSuccessRate?: number;
  /** failure_percentage_threshold: a host failing at least this % of its last interval is detected. Default 85. */
  failurePercentageThreshold?: number;
  /** failure_percentage_minimum_hosts: hosts with enough volume needed for the analysis. Default 5. */
  failurePercentageMinimumHosts?: number;
  /** failure_percentage_request_volume: results in the last interval a host needs to be analysed. Default 50. */
  failurePercentageRequestVolume?: number;
  /** enforcing_failure_percentage: % chance a failure-percentage detection ejects. Default 0. */
  enforcingFailurePercentage?: number;
  /** Seawall's own: at most this many hosts are tracked; the least recently seen healthy one is forgotten first. */
  maxHosts?: number;
}

export interface ResolvedOutlierDetectionConfig {
  readonly consecutive5xx: number;
  readonly consecutiveGatewayFailure: number;
  readonly enforcingConsecutive5xx: number;
  readonly enforcingConsecutiveGatewayFailure: number;
  readonly intervalMs: number;
  readonly baseEjectionTimeMs: number;
  readonly maxEjectionTimeMs: number;
  readonly maxEjectionPercent: number;
  readonly alwaysEjectOneHost: boolean;
  readonly successRateMinimumHosts: number;
  readonly successRateRequestVolume: number;
  readonly successRateStdevFactor: number;
  readonly enforcingSuccessRate: number;
  readonly failurePercentageThreshold: number;
  readonly failurePercentageMinimumHosts: number;
  readonly failurePercentageRequestVolume: number;
  readonly enforcingFailurePercentage: number;
  readonly maxHosts: number;
}

/** Seawall's key → Envoy's field (config.cluster.v3.OutlierDetection), for mesh import/export and docs. */
export const ENVOY_OUTLIER_FIELDS: Readonly<Record<keyof OutlierDetectionConfig, string | null>> = Object.freeze({
  consecutive5xx: 'consecutive_5xx',
  consecutiveGatewayFailure: 'consecutive_gateway_failure',
  enforcingConsecutive5xx: 'enforcing_consecutive_5xx',
  enforcingConsecutiveGatewayFailure: 'enforcing_consecutive_gateway_failure',
  interval: 'interval',
  baseEjectionTime: 'base_ejection_time',
  maxEjectionTime: 'max_ejection_time',
  maxEjectionPercent: 'max_ejection_percent',
  alwaysEjectOneHost: 'always_eject_one_host',
  successRateMinimumHosts: 'success_rate_minimum_hosts',
  successRateRequestVolume: 'success_rate_request_volume',
  successRateStdevFactor: 'success_rate_stdev_factor',
  enforcingSuccessRate: 'enforcing_success_rate',
  failurePercentageThreshold: 'failure_percentage_threshold',
  failurePercentageMinimumHosts: 'failure_percentage_minimum_hosts',
  failurePercentageRequestVolume: 'failure_percentage_request_volume',
  enforcingFailurePercentage: 'enforcing_failure_percentage',
  maxHosts: null,
});

/** Default of `maxHosts`: far above any real pool, low enough that a stream of unique keys cannot grow memory. */
export const DEFAULT_OUTLIER_MAX_HOSTS = 1024;
/** Envoy's DEFAULT_MAX_EJECTION_TIME_MS; the effective default is max(this, baseEjectionTime). */
const DEFAULT_MAX_EJECTION_TIME_MS = 300_000;

/** Envoy's defaults (source/common/upstream/outlier_detection_impl.h), resolved. */
export const DEFAULT_OUTLIER_DETECTION: ResolvedOutlierDetectionConfig = Object.freeze({
  consecutive5xx: 5,
  consecutiveGatewayFailure: 5,
  enforcingConsecutive5xx: 100,
  enforcingConsecutiveGatewayFailure: 0,
  intervalMs: 10_000,
  baseEjectionTimeMs: 30_000,
  maxEjectionTimeMs: DEFAULT_MAX_EJECTION_TIME_MS,
  maxEjectionPercent: 10,
  alwaysEjectOneHost: false,
  successRateMinimumHosts: 5,
  successRateRequestVolume: 100,
  successRateStdevFactor: 1900,
  enforcingSuccessRate: 100,
  failurePercentageThreshold: 85,
  failurePercentageMinimumHosts: 5,
  failurePercentageRequestVolume: 50,
  enforcingFailurePercentage: 0,
  maxHosts: DEFAULT_OUTLIER_MAX_HOSTS,
});

const KNOWN_KEYS: readonly string[] = Object.keys(ENVOY_OUTLIER_FIELDS);
const PERCENT_KEYS = [
  'enforcingConsecutive5xx',
  'enforcingConsecutiveGatewayFailure',
  'maxEjectionPercent',
  'enforcingSuccessRate',
  'failurePercentageThreshold',
  'enforcingFailurePercentage',
] as const;
const COUNT_KEYS = [
  'consecutive5xx',
  'consecutiveGatewayFailure',
  'successRateMinimumHosts',
  'successRateRequestVolume',
  'successRateStdevFactor',
  'failurePercentageMinimumHosts',
  'failurePercentageRequestVolume',
] as const;
/** Envoy's UInt32Value fields: counts above this cannot be written in an Envoy config. */
const UINT32_MAX = 4_294_967_295;

/** camelCase of an Envoy snake_case field, for the hint on a key written Envoy's way. */
function camelOf(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function positiveDuration(raw: unknown, fallbackMs: number, path: string, issues: ConfigIssue[]): number | undefined {
  const ms = collectDuration(raw ?? fallbackMs, path, issues);
  if (ms !== undefined && !(ms > 0)) {
    // Envoy: (validate.rules).duration = {gt {}}
    issues.push({ path, message: 'must be longer than 0' });
    return undefined;
  }
  return ms;
}

/** Checks an outlier detection config, pushing one issue per problem (paths under `path`); undefined if any. */
export function validateOutlierDetectionConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedOutlierDetectionConfig | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    issues.push({ path, message: 'must be an object such as { consecutive5xx: 5, maxEjectionPercent: 50 }' });
    return undefined;
  }
  const raw = input as Record<string, unknown>;
  const before = issues.length;
  for (const key of Object.keys(raw)) {
    if (KNOWN_KEYS.includes(key)) continue;
    const camel = camelOf(key);
    // The key is unknown, so a known camelCase of it is another spelling of that key: Envoy's snake_case one.
    issues.push(
      KNOWN_KEYS.includes(camel)
        ? { path: joinPath(path, key), message: `is Envoy's name; write ${camel}` }
        : unknownKey(joinPath(path, key), key, KNOWN_KEYS, 'is not an outlier detection option'),
    );
  }

  const out: Record<string, number | boolean> = { ...DEFAULT_OUTLIER_DETECTION };
  for (const key of PERCENT_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 100) {
      issues.push({ path: joinPath(path, key), message: 'must be an integer percentage from 0 to 100' });
    } else out[key] = value as number;
  }
  for (const key of COUNT_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 0) {
      issues.push({ path: joinPath(path, key), message: 'must be an integer >= 0' });
    } else if ((value as number) > UINT32_MAX) {
      issues.push({ path: joinPath(path, key), message: `must be at most ${UINT32_MAX} (Envoy's UInt32Value)` });
    } else out[key] = value as number;
  }
  if (raw.maxHosts !== undefined) {
    if (!Number.isSafeInteger(raw.maxHosts) || (raw.maxHosts as number) < 1) {
      issues.push({ path: joinPath(path, 'maxHosts'), message: 'must be an integer >= 1' });
    } else out.maxHosts = raw.maxHosts as number;
  }
  if (raw.alwaysEjectOneHost !== undefined) {
    if (typeof raw.alwaysEjectOneHost !== 'boolean') {
      issues.push({ path: joinPath(path, 'alwaysEjectOneHost'), message: 'must be true or false' });
    } else out.alwaysEjectOneHost = raw.alwaysEjectOneHost;
  }

  const intervalMs = positiveDuration(
    raw.interval,
    DEFAULT_OUTLIER_DETECTION.intervalMs,
    joinPath(path, 'interval'),
    issues,
  );
  const baseMs = positiveDuration(
    raw.baseEjectionTime,
    DEFAULT_OUTLIER_DETECTION.baseEjectionTimeMs,
    joinPath(path, 'baseEjectionTime'),
    issues,
  );
  // Envoy: unset max_ejection_time is max(300 s, base_ejection_time); a set one below the base is refused.
  const maxPath = joinPath(path, 'maxEjectionTime');
  const maxMs = positiveDuration(
    raw.maxEjectionTime,
    Math.max(DEFAULT_MAX_EJECTION_TIME_MS, baseMs ?? 0),
    maxPath,
    issues,
  );
  // @eq outlier-config-maxms-basems-maxms-basems
  if (maxMs !== undefined && baseMs !== undefined && maxMs < baseMs) {
    issues.push({ path: maxPath, message: `must be at least baseEjectionTime (${baseMs} ms)` });
  }

  if (issues.length !== before) return undefined;
  return Object.freeze({
    ...(out as unknown as ResolvedOutlierDetectionConfig),
    intervalMs: intervalMs as number,
    baseEjectionTimeMs: baseMs as number,
    maxEjectionTimeMs: maxMs as number,
  });
}

/** Resolves a config or throws one ConfigError listing every problem. */
export function resolveOutlierDetectionConfig(input: unknown): ResolvedOutlierDetectionConfig {
  const issues: ConfigIssue[] = [];
  const resolved = validateOutlierDetectionConfig(input, '', issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}
