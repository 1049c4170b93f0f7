// A client's stats(): the retry policy's counters, each upstream's policies, and the seed's signals under Envoy's names.

import type { RetryStats } from '../../policy/retry/retry-stats.js';
import type { BreakerState } from '../../policy/upstream/breaker.js';
import { monotonicNowMs } from '../clock.js';
import type { ClientSettings } from '../options.js';
import type { UpstreamStats } from './scopes.js';

/**
 * The three signals seed 002 tells an operator to keep apart, summed over the client's upstreams, named as Envoy's
 * `cluster.<name>.*` stats (no `envoy_cluster_` prefix).
 */
export interface ClientSignals {
  /** Attempts this client sent (Envoy upstream_rq_total); refused attempts are not sent. */
  upstream_rq_total: number;
  /** Of those, retries (Envoy upstream_rq_retry). */
  upstream_rq_retry: number;
  /** upstream_rq_retry / upstream_rq_total: page above 0.05 (retries are then part of the load); 0 with no traffic. */
  retry_ratio: number;
  /** Attempts failed fast at maxPendingRequests or maxRequests (Envoy counts both here): "the breaker is tripping". */
  upstream_rq_pending_overflow: number;
  /** Retries refused by the retry budget or by maxRetries (Envoy counts both here). */
  upstream_rq_retry_overflow: number;
  /** Endpoints ejected now: "outlier detection took hosts out". */
  'outlier_detection.ejections_active': number;
  /** Outlier detections maxEjectionPercent refused (the safety limit at work). */
  'outlier_detection.ejections_overflow': number;
  /** Picks made with ejections ignored because too few endpoints were left (Envoy lb_healthy_panic). */
  lb_healthy_panic: number;
  /** The classic circuit breaker: upstreams whose breaker is open / half-open now, times opened, attempts it failed fast. */
  circuit_breakers_open: number;
  circuit_breakers_half_open: number;
  circuit_breaker_opened: number;
  circuit_breaker_rejected: number;
  /** Attempts the adaptive throttle refused locally, never sent (first attempts and retries alike). */
  adaptive_throttle_rejected: number;
}

export interface ClientStats {
  /** The retry policy's counters (policy.stats(); a policy shared by several clients counts them all). */
  policy: RetryStats;
  /** One entry per upstream scope: with endpoints exactly one. Empty without endpoints, breakers or limits. */
  upstreams: UpstreamStats[];
  signals: ClientSignals;
}

const STATE_COUNT: Record<BreakerState, 'open' | 'halfOpen' | null> = {
  closed: null,
  open: 'open',
  'half-open': 'halfOpen',
};

/** The stats of a client (createFetch's `fetch.stats()`, retryInterceptor's `interceptor.stats()`). */
export function clientStats(settings: ClientSettings, nowMs = monotonicNowMs()): ClientStats {
  const policy = settings.policy.stats();
  const scopes = settings.upstreams?.all() ?? [];
  const upstreams = scopes.map((scope) => scope.stats(nowMs));
  let total = 0;
  let retries = 0;
  let pendingOverflow = 0;
  let retryOverflow = policy.retryOverflow;
  let ejections = 0;
  let ejectionsOverflow = 0;
  let panics = 0;
  const breakers = { open: 0, halfOpen: 0, opened: 0, rejected: 0 };
  let throttled = 0;
  // A shared instance sits in every scope it was given to (a shared CircuitBreaker beside per-key limits is in each
  // per-key scope): each policy object is counted once, or one breaker that opened once would read as N.
  const seen = new Set<object>();
  const first = (policy: object | null): boolean => {
    if (policy === null || seen.has(policy)) return false;
    seen.add(policy);
    return true;
  };
  upstreams.forEach((u, i) => {
    const scope = scopes[i];
    total += u.attempts;
    retries += u.retries;
    panics += u.loadBalancer?.panics ?? 0;
    if (first(scope?.limits ?? null)) {
      pendingOverflow += u.limits?.pendingOverflow ?? 0;
      retryOverflow += u.limits?.retryOverflow ?? 0;
    }
    if (first(scope?.outlier ?? null)) {
      ejections += u.outlierDetection?.ejectionsActive ?? 0;
      ejectionsOverflow += u.outlierDetection?.ejectionsOverflow ?? 0;
    }
    // @ko http-throttle-stats
    if (u.throttle !== null && first(scope?.throttle ?? null)) throttled += u.throttle.throttled;
    const b = u.circuitBreaker;
    if (b !== null && first(scope?.breaker ?? null)) {
      const state = STATE_COUNT[b.state];
      if (state !== null) breakers[state]++;
      breakers.opened += b.opened;
      breakers.rejected += b.rejected;
    }
  });
  if (upstreams.length === 0) {
    // No upstream policies: the policy's own counts are the client's.
    total = policy.attempts;
    retries = policy.retries;
  }
  return {
    policy,
    upstreams,
    signals: {
      upstream_rq_total: total,
      upstream_rq_retry: retries,
      retry_ratio: total === 0 ? 0 : retries / total,
      upstream_rq_pending_overflow: pendingOverflow,
      upstream_rq_retry_overflow: retryOverflow,
      'outlier_detection.ejections_active': ejections,
      'outlier_detection.ejections_overflow': ejectionsOverflow,
      lb_healthy_panic: panics,
      circuit_breakers_open: breakers.open,
      circuit_breakers_half_open: breakers.halfOpen,
      circuit_breaker_opened: breakers.opened,
      circuit_breaker_rejected: breakers.rejected,
      adaptive_throttle_rejected: throttled,
    },
  };
}
