// Envoy's circuit_breakers as a sans-I/O policy: caps on connections, pending requests, requests and retries; over one, fail fast.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { PercentBudget } from '../retry/budget.js';

/** What a permit holds: Envoy's per-cluster resources (max_connections, max_pending_requests, max_requests, max_retries). */
export type ConcurrencyResource = 'connection' | 'pending' | 'request' | 'retry';
export type OverflowReason = 'max-connections' | 'max-pending' | 'max-requests' | 'max-retries';

export interface ConcurrencyBreakerConfig {
  /** Envoy max_connections: connections open at once; default 1024. */
  maxConnections?: number;
  /** Envoy max_pending_requests: requests waiting for a connection; default 1024. */
  maxPendingRequests?: number;
  /** Envoy max_requests: requests outstanding at once (first tries and retries alike); default 1024. */
  maxRequests?: number;
  /** Envoy max_retries: retries outstanding at once; default 3. */
  maxRetries?: number;
  /**
   * Envoy retry_budget, which replaces maxRetries: at most max(trunc(percent/100 · (requests + pending)),
   * minConcurrency) retries at once; defaults 20 % and 3 (Envoy's budget_percent and min_retry_concurrency).
   */
  retryBudget?: { percent?: number; minConcurrency?: number } | false;
}

export interface ResolvedConcurrencyBreakerConfig {
  readonly maxConnections: number;
  readonly maxPendingRequests: number;
  readonly maxRequests: number;
  /** Ignored when retryBudget is set. */
  readonly maxRetries: number;
  readonly retryBudget: { readonly percent: number; readonly minConcurrency: number } | null;
}

/** Envoy's defaults (envoy/config/cluster/v3/circuit_breaker.proto). */
export const DEFAULT_MAX_CONNECTIONS = 1024;
export const DEFAULT_MAX_PENDING_REQUESTS = 1024;
export const DEFAULT_MAX_REQUESTS = 1024;
export const DEFAULT_MAX_RETRIES = 3;
/** Envoy's thresholds are UInt32Value. */
const MAX_LIMIT = 4_294_967_295;
const LIMIT_KEYS = ['maxConnections', 'maxPendingRequests', 'maxRequests', 'maxRetries'] as const;
const DEFAULTS = [DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PENDING_REQUESTS, DEFAULT_MAX_REQUESTS, DEFAULT_MAX_RETRIES];
const KEYS = [...LIMIT_KEYS, 'retryBudget'];
const BUDGET_KEYS = ['percent', 'minConcurrency'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLimit(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_LIMIT;
}

/** Checks a concurrency-breaker config, pushing one issue per problem (paths under `path`); undefined if any. */
export function validateConcurrencyBreakerConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedConcurrencyBreakerConfig | undefined {
  if (input === undefined) input = {};
  if (!isRecord(input)) {
    issues.push({ path, message: 'must be an object such as { maxRequests: 100, maxPendingRequests: 20 }' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(input)) {
    if (!KEYS.includes(key) && input[key] !== undefined) issues.push(unknownKey(joinPath(path, key), key, KEYS));
  }
  const limits = LIMIT_KEYS.map((key, i) => {
    const value = input[key] ?? DEFAULTS[i];
    if (!isLimit(value)) {
      issues.push({ path: joinPath(path, key), message: `must be an integer from 0 to ${MAX_LIMIT}` });
    }
    return value as number;
  });
  let retryBudget: ResolvedConcurrencyBreakerConfig['retryBudget'] = null;
  const budget = input.retryBudget;
  const budgetPath = joinPath(path, 'retryBudget');
  if (isRecord(budget)) {
    for (const key of Object.keys(budget)) {
      if (!BUDGET_KEYS.includes(key)) issues.push(unknownKey(joinPath(budgetPath, key), key, BUDGET_KEYS));
    }
    const { percent = 20, minConcurrency = 3 } = budget;
    if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100)) {
      issues.push({ path: joinPath(budgetPath, 'percent'), message: 'must be a number in [0, 100]' });
    }
    if (!isLimit(minConcurrency)) {
      issues.push({
        path: joinPath(budgetPath, 'minConcurrency'),
        message: `must be an integer from 0 to ${MAX_LIMIT}`,
      });
    }
    retryBudget = { percent: percent as number, minConcurrency: minConcurrency as number };
    if (input.maxRetries !== undefined) {
      issues.push({
        path: joinPath(path, 'maxRetries'),
        message: 'has no effect with retryBudget (Envoy: the budget overrides it); drop one',
      });
    }
  } else if (budget !== undefined && budget !== false) {
    issues.push({
      path: budgetPath,
      message: 'must be an object such as { percent: 20, minConcurrency: 3 }, or false',
    });
  }
  if (issues.length !== before) return undefined;
  const [maxConnections, maxPendingRequests, maxRequests, maxRetries] = limits as [number, number, number, number];
  return { maxConnections, maxPendingRequests, maxRequests, maxRetries, retryBudget };
}

/** One unit of a resource, held until release()d (exactly once). */
export class ConcurrencyPermit {
  readonly allowed = true as const;
  /** @internal */ released = false;
  constructor(
    readonly resource: ConcurrencyResource,
    /** @internal */ readonly owner: ConcurrencyBreaker,
  ) {}
}

export interface ConcurrencyOverflow {
  readonly allowed: false;
  readonly reason: OverflowReason;
}
export type ConcurrencyVerdict = ConcurrencyPermit | ConcurrencyOverflow;

const RESOURCES: readonly ConcurrencyResource[] = ['connection', 'pending', 'request', 'retry'];
const OVERFLOW: Readonly<Record<ConcurrencyResource, ConcurrencyOverflow>> = {
  connection: Object.freeze({ allowed: false, reason: 'max-connections' }),
  pending: Object.freeze({ allowed: false, reason: 'max-pending' }),
  request: Object.freeze({ allowed: false, reason: 'max-requests' }),
  retry: Object.freeze({ allowed: false, reason: 'max-retries' }),
};

/** Envoy's names in comments: cluster.<name>.* and cluster.<name>.circuit_breakers.<priority>.*. */
export interface ConcurrencyStats {
  /** upstream_cx_active */
  activeConnections: number;
  /** upstream_rq_pending_active */
  pendingRequests: number;
  /** upstream_rq_active */
  activeRequests: number;
  activeRetries: number;
  /**
   * remaining_cx, remaining_pending, remaining_rq, remaining_retries: how far each is from its limit. With a retry
   * budget, remainingRetries is still the free retry slots (the budget's limit now, less the retries in flight), where
   * Envoy's remaining_retries gauge reads 0 (RetryBudgetImpl::clearRemainingGauge: the limit moves with traffic).
   */
  remainingConnections: number;
  remainingPending: number;
  remainingRequests: number;
  remainingRetries: number;
  /** cx_open, rq_pending_open, rq_open, rq_retry_open: at capacity, admitting no more. */
  connectionsOpen: boolean;
  pendingOpen: boolean;
  requestsOpen: boolean;
  retriesOpen: boolean;
  /** upstream_cx_total, upstream_rq_pending_total, upstream_rq_total, upstream_rq_retry: permits granted. */
  connectionsTotal: number;
  pendingTotal: number;
  requestsTotal: number;
  retriesTotal: number;
  /** upstream_cx_overflow */
  connectionOverflow: number;
  /** upstream_rq_pending_overflow: max-pending and max-requests overflows together, as Envoy counts them. */
  pendingOverflow: number;
  /** upstream_rq_active_overflow: the max-requests share of pendingOverflow. */
  activeOverflow: number;
  /** upstream_rq_retry_overflow */
  retryOverflow: number;
  /** upstream_rq_cancelled: pending permits released without getting a connection. */
  pendingCancelled: number;
  /** release() calls for a permit already released: ignored, so no count goes negative. */
  doubleReleases: number;
}

/**
 * Sans-I/O concurrency limits for one upstream cluster (one per priority, as Envoy keeps its thresholds). Nothing
 * waits here: a resource at its limit answers an overflow at once, and the driver fails the request fast (503).
 * Driver protocol: with a ready connection, tryAcquire('request'); without one, tryAcquire('pending') and promote()
 * the permit once a connection is ready (or release() it if the caller gives up). A retry takes tryAcquire('retry')
 * when it is decided, and its attempt a 'request' like any other. Every permit is released exactly once.
 */
export class ConcurrencyBreaker {
  readonly config: ResolvedConcurrencyBreakerConfig;
  private readonly budget: PercentBudget | null;
  private readonly active: Record<ConcurrencyResource, number> = { connection: 0, pending: 0, request: 0, retry: 0 };
  private readonly total: Record<ConcurrencyResource, number> = { connection: 0, pending: 0, request: 0, retry: 0 };
  private readonly overflow: Record<ConcurrencyResource, number> = { connection: 0, pending: 0, request: 0, retry: 0 };
  private pendingCancelled = 0;
  private doubleReleases = 0;

  /** Throws ConfigError listing every problem. */
  constructor(config: ConcurrencyBreakerConfig = {}) {
    const issues: ConfigIssue[] = [];
    const resolved = validateConcurrencyBreakerConfig(config, '', issues);
    if (resolved === undefined) throw new ConfigError(issues);
    this.config = resolved;
    // The budget's rule lives in budget.ts (Envoy's retry budget); here it only answers its limit.
    this.budget = resolved.retryBudget && new PercentBudget(resolved.retryBudget);
  }

  /** The resource's limit now: a retry budget's depends on the requests and pending requests outstanding. */
  limit(resource: ConcurrencyResource): number {
    const c = this.config;
    switch (resource) {
      case 'connection':
        return c.maxConnections;
      case 'pending':
        return c.maxPendingRequests;
      case 'request':
        return c.maxRequests;
      default:
        // @ko concurrency-retry-budget
        return this.budget ? this.budget.allowedRetries(this.active.request + this.active.pending) : c.maxRetries;
    }
  }

  /**
   * Units of `resource` that may still be taken now (Envoy's remaining_* gauges); never negative. Deliberately not
   * Envoy's 0 for a retry budget: the free slots are what an operator wants to see, and what tryAcquire would grant.
   */
  remaining(resource: ConcurrencyResource): number {
    return Math.max(this.limit(resource) - this.active[resource], 0);
  }

  /** A unit of `resource`, or the overflow (Envoy: a resource is created only while count < max). */
  tryAcquire(resource: ConcurrencyResource): ConcurrencyVerdict {
    // @ko concurrency-overflow
    if (this.active[resource] >= this.limit(resource)) {
      this.overflow[resource]++;
      return OVERFLOW[resource];
    }
    this.active[resource]++;
    this.total[resource]++;
    return new ConcurrencyPermit(resource, this);
  }

  /**
   * A pending request got its connection: its pending slot is freed and it takes a request slot, or fails with
   * 'max-requests' (Envoy checks max_requests when it attaches a request to a ready connection).
   */
  promote(pending: ConcurrencyPermit): ConcurrencyVerdict {
    this.check(pending);
    if (pending.resource !== 'pending' || pending.released) {
      throw new Error('ConcurrencyBreaker.promote() needs a pending permit not released yet');
    }
    pending.released = true;
    this.active.pending--;
    return this.tryAcquire('request');
  }

  /** Frees the permit's unit. Exactly once: a second release changes nothing and answers false. */
  release(permit: ConcurrencyPermit): boolean {
    this.check(permit);
    if (permit.released) {
      this.doubleReleases++;
      return false;
    }
    permit.released = true;
    this.active[permit.resource]--;
    if (permit.resource === 'pending') this.pendingCancelled++;
    return true;
  }

  stats(): ConcurrencyStats {
    const [a, t, o] = [this.active, this.total, this.overflow];
    const [cx, pending, rq, retry] = RESOURCES.map((r) => this.remaining(r)) as [number, number, number, number];
    return {
      activeConnections: a.connection,
      pendingRequests: a.pending,
      activeRequests: a.request,
      activeRetries: a.retry,
      remainingConnections: cx,
      remainingPending: pending,
      remainingRequests: rq,
      remainingRetries: retry,
      connectionsOpen: cx === 0,
      pendingOpen: pending === 0,
      requestsOpen: rq === 0,
      retriesOpen: retry === 0,
      connectionsTotal: t.connection,
      pendingTotal: t.pending,
      requestsTotal: t.request,
      retriesTotal: t.retry,
      connectionOverflow: o.connection,
      pendingOverflow: o.pending + o.request,
      activeOverflow: o.request,
      retryOverflow: o.retry,
      pendingCancelled: this.pendingCancelled,
      doubleReleases: this.doubleReleases,
    };
  }

  private check(permit: ConcurrencyPermit): void {
    if (permit.owner !== this) throw new Error('ConcurrencyBreaker: a permit from another breaker');
  }
}
