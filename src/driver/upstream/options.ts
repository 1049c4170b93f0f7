// The client's upstream options (endpoints, load balancer, outlier detection, circuit breaker, limits, seed): types and checks.

import { type ConfigIssue, joinPath } from '../../policy/core/config-error.js';
import {
  type BalancerKind,
  type LoadBalancerConfig,
  MAX_BALANCER_ENDPOINTS,
  validateLoadBalancerConfig,
} from '../../policy/upstream/balancer.js';
import {
  CircuitBreaker,
  type CircuitBreakerConfig,
  validateCircuitBreakerConfig,
} from '../../policy/upstream/breaker.js';
import {
  ConcurrencyBreaker,
  type ConcurrencyBreakerConfig,
  validateConcurrencyBreakerConfig,
} from '../../policy/upstream/concurrency.js';
import {
  DEFAULT_OUTLIER_MAX_HOSTS,
  type OutlierDetectionConfig,
  OutlierDetector,
  validateOutlierDetectionConfig,
} from '../../policy/upstream/outlier.js';
import { type ThrottleConfig, validateThrottleConfig } from '../../policy/upstream/throttle-config.js';

/** Options of createFetch and retryInterceptor that put the upstream policies between the retry loop and the wire. */
export interface UpstreamOptions {
  /**
   * The upstream's endpoints (`http://10.0.0.7:8080`, origins only). With endpoints, every call of this client goes to
   * one of them: each attempt's URL keeps its path and query and gets the picked endpoint's origin. Call the client
   * with a logical origin (`http://member-api/users/7`): it names the retry budget, not a host to connect to.
   */
  endpoints?: readonly string[];
  /** How an attempt's endpoint is picked (with endpoints): 'round-robin' (default), 'p2c', or `{ kind, panicThreshold }`. */
  loadBalancer?: BalancerKind | LoadBalancerConfig;
  /** Envoy's outlier detection over the endpoints (config, or a shared OutlierDetector). Off when absent. */
  outlierDetection?: OutlierDetectionConfig | OutlierDetector;
  /**
   * The classic circuit breaker, asked before every attempt (config, or a shared CircuitBreaker). A config gives each
   * upstream its own breaker: the endpoint set, else each budget key (call's `upstream`, client's, or origin).
   */
  circuitBreaker?: CircuitBreakerConfig | CircuitBreaker;
  /**
   * Envoy's circuit_breakers: caps on pending requests, requests and retries in flight (config, or a shared
   * ConcurrencyBreaker); an attempt over a cap fails at once, never queues. Scoped like `circuitBreaker`.
   */
  limits?: ConcurrencyBreakerConfig | ConcurrencyBreaker;
  /**
   * Client-side adaptive throttling (SRE book ch. 21): each attempt, first or retry, is refused locally with
   * probability max(0, (requests − k·accepts) / (requests + 1)) over the last `window`, where only the callee's own
   * overload answers (429, 503, pushback; not an error relayed from further down) are not accepts. Scoped like
   * `circuitBreaker`. `{ kind: 'adaptive', k: 2, window: '2m', minRequests: 20 }`.
   */
  throttle?: ThrottleConfig;
  /** Seed of the balancer's, the outlier detector's and the throttle's random draws (default: random). For tests. */
  seed?: number;
}

export const UPSTREAM_OPTION_KEYS = [
  'endpoints',
  'loadBalancer',
  'outlierDetection',
  'circuitBreaker',
  'limits',
  'throttle',
  'seed',
] as const;

/** Keys that only mean something with endpoints. */
const NEEDS_ENDPOINTS = ['loadBalancer', 'outlierDetection', 'seed'] as const;

/**
 * A shared policy object (or one from another copy of the package, recognised by every method the client calls,
 * stats() and sweeps included): an object with only some is taken for a config, and refused with a ConfigError naming
 * its keys, rather than failing with a TypeError at the first call or stats().
 */
export function isBreakerInstance(value: unknown): value is CircuitBreaker {
  return (
    value instanceof CircuitBreaker ||
    hasMethods(value, ['tryAcquire', 'onSuccess', 'onFailure', 'onCancel', 'state', 'stats'])
  );
}
export function isLimitsInstance(value: unknown): value is ConcurrencyBreaker {
  return value instanceof ConcurrencyBreaker || hasMethods(value, ['tryAcquire', 'promote', 'release', 'stats']);
}
export function isOutlierInstance(value: unknown): value is OutlierDetector {
  return (
    value instanceof OutlierDetector ||
    hasMethods(value, ['onResult', 'sweep', 'isEjected', 'addHosts', 'nextWakeMs', 'stats'])
  );
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return names.every((name) => typeof o[name] === 'function');
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return value === null || typeof value !== 'object' ? String(value) : Array.isArray(value) ? 'an array' : 'an object';
}

/** The endpoint's origin (`http://host:port`, lower-case, default port dropped), or an issue. */
export function endpointOrigin(value: unknown, path: string, issues: ConfigIssue[]): string | undefined {
  const example = 'an http(s) origin such as "http://10.0.0.7:8080"';
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) {
    issues.push({ path, message: `must be ${example}, got ${shown(value)}` });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path, message: `must be ${example}, got ${shown(value)}` });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    issues.push({ path, message: `must be an http: or https: URL, got ${shown(value)}` });
    return undefined;
  }
  // The request's path and query are kept: an endpoint with its own would be silently dropped or mixed in.
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    issues.push({
      path,
      message: `must be an origin only (no credentials, path, query or fragment), got ${shown(value)}`,
    });
    return undefined;
  }
  // Port 0 is no port a peer listens on (connecting to it fails at once, every attempt).
  if (url.port === '0') {
    issues.push({ path, message: `must name a port from 1 to 65535, got ${shown(value)}` });
    return undefined;
  }
  return url.origin;
}

/** The endpoints as origins; pushes one issue per problem. */
export function endpointOrigins(input: unknown, issues: ConfigIssue[]): string[] | undefined {
  if (!Array.isArray(input) || input.length === 0) {
    issues.push({ path: 'endpoints', message: `must be a non-empty list of origins, got ${shown(input)}` });
    return undefined;
  }
  if (input.length > MAX_BALANCER_ENDPOINTS) {
    issues.push({ path: 'endpoints', message: `must have at most ${MAX_BALANCER_ENDPOINTS} endpoints` });
    return undefined;
  }
  const before = issues.length;
  const seen = new Map<string, number>();
  const origins: string[] = [];
  // By index, not forEach: a hole (`new Array(3)`, `[a, , b]`) is an endpoint missing, not one to skip.
  for (let i = 0; i < input.length; i++) {
    const path = joinPath('endpoints', i);
    const origin = endpointOrigin(input[i], path, issues);
    if (origin === undefined) continue;
    const first = seen.get(origin);
    if (first !== undefined) issues.push({ path, message: `repeats endpoints.${first} (${origin})` });
    else seen.set(origin, i);
    origins.push(origin);
  }
  return issues.length === before ? origins : undefined;
}

/**
 * A detector tracking fewer hosts than there are endpoints forgets one for each result of another (least recently seen
 * first): with round-robin no endpoint keeps its consecutive failures, and none is ever ejected.
 */
function tooFewHosts(maxHosts: number, endpoints: number): string {
  return `is ${maxHosts}, fewer than the ${endpoints} endpoints: it would forget endpoints and never eject them; set at least ${endpoints}`;
}

/** The detector's config for `endpoints`: it tracks every endpoint (maxHosts at least their number; checked above). */
export function outlierConfigFor(config: OutlierDetectionConfig, endpoints: number): OutlierDetectionConfig {
  return config.maxHosts === undefined && endpoints > DEFAULT_OUTLIER_MAX_HOSTS
    ? { ...config, maxHosts: endpoints }
    : config;
}

/** Problems of the upstream options of a client's options object (createFetch / retryInterceptor). */
export function upstreamOptionIssues(input: Record<string, unknown>, issues: ConfigIssue[]): void {
  const hasEndpoints = input.endpoints !== undefined;
  const endpoints = hasEndpoints ? endpointOrigins(input.endpoints, issues) : undefined;
  for (const key of NEEDS_ENDPOINTS) {
    // The seed also seeds the throttle's draws, which need no endpoints.
    if (input[key] !== undefined && !hasEndpoints && !(key === 'seed' && input.throttle !== undefined)) {
      issues.push({ path: key, message: 'needs endpoints (it chooses among them); without endpoints it does nothing' });
    }
  }
  if (input.loadBalancer !== undefined) validateLoadBalancerConfig(input.loadBalancer, 'loadBalancer', issues);
  const outlier = input.outlierDetection;
  if (outlier !== undefined && !isOutlierInstance(outlier)) {
    validateOutlierDetectionConfig(outlier, 'outlierDetection', issues);
    // A valid maxHosts (an invalid one has its issue already) below the number of endpoints.
    const raw = typeof outlier === 'object' && outlier !== null ? (outlier as Record<string, unknown>).maxHosts : 0;
    const maxHosts = Number.isSafeInteger(raw) && (raw as number) >= 1 ? (raw as number) : Number.POSITIVE_INFINITY;
    if (endpoints !== undefined && maxHosts < endpoints.length) {
      issues.push({ path: 'outlierDetection.maxHosts', message: tooFewHosts(maxHosts, endpoints.length) });
    }
  } else if (outlier !== undefined && endpoints !== undefined) {
    const maxHosts = (outlier as OutlierDetector).config?.maxHosts;
    if (typeof maxHosts === 'number' && maxHosts < endpoints.length) {
      issues.push({ path: 'outlierDetection', message: tooFewHosts(maxHosts, endpoints.length) });
    }
  }
  const breaker = input.circuitBreaker;
  if (breaker !== undefined && !isBreakerInstance(breaker)) {
    validateCircuitBreakerConfig(breaker, 'circuitBreaker', issues);
  }
  const limits = input.limits;
  if (limits !== undefined && !isLimitsInstance(limits)) {
    validateConcurrencyBreakerConfig(limits, 'limits', issues);
    // The client holds no connections of its own (undici's pool does): a cap it cannot enforce is refused, not ignored.
    if (
      typeof limits === 'object' &&
      limits !== null &&
      (limits as Record<string, unknown>).maxConnections !== undefined
    ) {
      issues.push({
        path: 'limits.maxConnections',
        message: 'is not enforced by the client: cap connections on the undici pool (new Agent({ connections }))',
      });
    }
  }
  if (input.throttle !== undefined) validateThrottleConfig(input.throttle, 'throttle', issues);
  const seed = input.seed;
  if (seed !== undefined && !(typeof seed === 'number' && Number.isFinite(seed))) {
    issues.push({ path: 'seed', message: `must be a finite number, got ${shown(seed)}` });
  }
}
