// Between the retry loop and the wire: per upstream, the balancer, outlier detector, circuit breaker and limits, and the permits of one call.

import { randomInt } from 'node:crypto';
import { Balancer, NO_ENDPOINT } from '../policy/balancer.js';
import { type BreakerPermit, type BreakerStats, breakerReportOf, CircuitBreaker } from '../policy/breaker.js';
import {
  ConcurrencyBreaker,
  type ConcurrencyPermit,
  type ConcurrencyStats,
  type OverflowReason,
} from '../policy/concurrency.js';
import { OutlierDetector, type OutlierStats } from '../policy/outlier.js';
import { createRandom, type Random } from '../policy/random.js';
import { MAX_TRACKED_UPSTREAMS } from '../policy/retry.js';
import type { Outcome } from '../policy/types.js';
import { monotonicNowMs } from './clock.js';
import {
  endpointOrigins,
  isBreakerInstance,
  isLimitsInstance,
  isOutlierInstance,
  outlierConfigFor,
  type UpstreamOptions,
} from './upstream-options.js';

/**
 * Why an attempt was refused before any network I/O (the policy's `shed-locally` outcome): the circuit breaker is open
 * or its half-open probes are all out, a concurrency cap is reached (Envoy's circuit_breakers), or every endpoint is
 * ejected with the panic threshold at 0 (Envoy's "no healthy upstream").
 */
export type UpstreamRefusal =
  | 'breaker-open'
  | 'breaker-half-open-full'
  | 'max-pending'
  | 'max-requests'
  | 'max-retries'
  | 'no-healthy-endpoint';

export const UPSTREAM_REFUSALS: readonly UpstreamRefusal[] = [
  'breaker-open',
  'breaker-half-open-full',
  'max-pending',
  'max-requests',
  'max-retries',
  'no-healthy-endpoint',
];

/** One endpoint as the client sees it now. */
export interface EndpointStats {
  endpoint: string;
  /** Out of the pool now (outlier detection); false without it. */
  ejected: boolean;
  /** Attempts in flight to it (what p2c compares). */
  inFlight: number;
}

/** One upstream's policies and counters (`stats().upstreams`). */
export interface UpstreamStats {
  /** The scope's name: the client's `upstream` (or "default") for endpoints and shared instances, else the budget key. */
  upstream: string;
  /** Attempts sent to this upstream by this client (Envoy upstream_rq_total), and of those, retries (upstream_rq_retry). */
  attempts: number;
  retries: number;
  /** Attempts this client refused without sending, by reason. */
  refused: Record<UpstreamRefusal, number>;
  circuitBreaker: BreakerStats | null;
  limits: ConcurrencyStats | null;
  loadBalancer: ReturnType<Balancer['stats']> | null;
  outlierDetection: OutlierStats | null;
  /** Empty without endpoints. */
  endpoints: EndpointStats[];
}

function zeroRefusals(): Record<UpstreamRefusal, number> {
  return Object.fromEntries(UPSTREAM_REFUSALS.map((r) => [r, 0])) as Record<UpstreamRefusal, number>;
}

/** The policies of one upstream. With endpoints there is one scope (Envoy's cluster); else one per budget key. */
export class UpstreamScope {
  readonly balancer: Balancer | null;
  readonly outlier: OutlierDetector | null;
  attempts = 0;
  retries = 0;
  readonly refused = zeroRefusals();
  private readonly pickDraws: Random | null;
  private readonly outlierDraws: Random | null;
  /** onResult needs a draw: an enforcing percentage of a consecutive detector is strictly between 0 and 100. */
  private readonly resultDraws: boolean;

  constructor(
    readonly name: string,
    readonly endpoints: readonly string[],
    readonly breaker: CircuitBreaker | null,
    readonly limits: ConcurrencyBreaker | null,
    balancer: UpstreamOptions['loadBalancer'],
    outlier: OutlierDetector | null,
    random: Random | null,
    nowMs: number,
  ) {
    this.outlier = outlier;
    if (endpoints.length === 0 || random === null) {
      this.balancer = null;
      this.pickDraws = this.outlierDraws = null;
      this.resultDraws = false;
      return;
    }
    this.balancer = new Balancer(endpoints, typeof balancer === 'string' ? { kind: balancer } : balancer, outlier);
    this.pickDraws = this.balancer.config.kind === 'p2c' ? random.fork('balancer') : null;
    this.outlierDraws = random.fork('outlier');
    const cfg = outlier?.config;
    const between = (percent: number) => percent > 0 && percent < 100;
    this.resultDraws =
      cfg !== undefined && (between(cfg.enforcingConsecutive5xx) || between(cfg.enforcingConsecutiveGatewayFailure));
    // The pool is declared up front: maxEjectionPercent counts endpoints not called yet.
    outlier?.addHosts(endpoints, nowMs);
  }

  /**
   * Runs the outlier detector's interval sweep when it is due. Sweeps are driven lazily, at pick time and when stats
   * are read, never by a timer: nothing here can keep a process alive. (isEjected() already answers as if a late sweep
   * had run; the sweep itself runs the success-rate and failure-percentage analyses and the multiplier's decay.)
   */
  sweepIfDue(nowMs: number): void {
    const outlier = this.outlier;
    if (outlier !== null && nowMs >= outlier.nextWakeMs()) outlier.sweep(nowMs, this.outlierDraws as Random);
  }

  /** The balancer's choice for an attempt; `previous` is the endpoint of the call's failed attempt (-1 for none). */
  pick(nowMs: number, previous: number): number {
    this.sweepIfDue(nowMs);
    const draws = this.pickDraws;
    const balancer = this.balancer as Balancer;
    return draws === null
      ? balancer.pick(nowMs, previous, 0, 0)
      : balancer.pick(nowMs, previous, draws.next(), draws.next());
  }

  /** Reports an attempt's result on endpoint `index` to the outlier detector. */
  result(index: number, outcome: Outcome, nowMs: number): void {
    const outlier = this.outlier;
    if (outlier === null) return;
    const u = this.resultDraws ? (this.outlierDraws as Random).next() : undefined;
    outlier.onResult(this.endpoints[index] as string, outcome, nowMs, u);
  }

  stats(nowMs: number): UpstreamStats {
    this.sweepIfDue(nowMs);
    // The breaker's state now: an open one whose break has passed is half-open (the next attempt would be a probe).
    this.breaker?.state(nowMs);
    const balancer = this.balancer;
    const outlier = this.outlier;
    return {
      upstream: this.name,
      attempts: this.attempts,
      retries: this.retries,
      refused: { ...this.refused },
      circuitBreaker: this.breaker?.stats() ?? null,
      limits: this.limits?.stats() ?? null,
      loadBalancer: balancer?.stats() ?? null,
      outlierDetection: outlier?.stats() ?? null,
      endpoints: this.endpoints.map((endpoint, i) => ({
        endpoint,
        ejected: outlier?.isEjected(endpoint, nowMs) ?? false,
        inFlight: balancer?.load(i) ?? 0,
      })),
    };
  }
}

/** Told about every scope a client creates, and every one it forgets (telemetry registers and drops them). */
export interface ScopeListener {
  added(scope: UpstreamScope): void;
  forgotten(scope: UpstreamScope): void;
}

/** A client's upstream policies: one fixed scope (endpoints, or shared instances only), or one per budget key. */
export class Upstreams {
  /** The client's name for its upstream: its `upstream` option, else "default" (shared instances go by it). */
  readonly name: string;
  private readonly fixed: UpstreamScope | null;
  private readonly scopes = new Map<string, UpstreamScope>();
  private readonly listeners: ScopeListener[] = [];
  /** The policy objects given as instances (shared with other clients, or across this client's per-key scopes). */
  private readonly shared = new Set<object>();

  private constructor(
    private readonly options: UpstreamOptions,
    name: string | undefined,
  ) {
    this.name = name ?? 'default';
    const { circuitBreaker: cb, limits: l, outlierDetection: od } = options;
    if (cb !== undefined && isBreakerInstance(cb)) this.shared.add(cb);
    if (l !== undefined && isLimitsInstance(l)) this.shared.add(l);
    if (od !== undefined && isOutlierInstance(od)) this.shared.add(od);
    const now = monotonicNowMs();
    const endpoints = options.endpoints === undefined ? [] : (endpointOrigins(options.endpoints, []) as string[]);
    const perKey =
      endpoints.length === 0 &&
      ((options.circuitBreaker !== undefined && !isBreakerInstance(options.circuitBreaker)) ||
        (options.limits !== undefined && !isLimitsInstance(options.limits)));
    if (perKey) {
      this.fixed = null;
      return;
    }
    const outlier =
      od === undefined
        ? null
        : isOutlierInstance(od)
          ? od
          : new OutlierDetector(outlierConfigFor(od, endpoints.length));
    const random = endpoints.length === 0 ? null : createRandom(options.seed ?? randomInt(2 ** 32));
    this.fixed = this.scope(this.name, endpoints, outlier, random, now);
  }

  /** The upstream policies of a client's options, or null when it has none (the call path then skips them). */
  static from(options: UpstreamOptions, name: string | undefined): Upstreams | null {
    const o = options;
    if (o.endpoints === undefined && o.circuitBreaker === undefined && o.limits === undefined) return null;
    return new Upstreams(options, name);
  }

  /** The permits of a new call whose budget key is `key`. */
  admission(key: string): CallAdmission {
    return new CallAdmission(this.scopeFor(key));
  }

  /** The scope of a call whose budget key is `key`. */
  scopeFor(key: string): UpstreamScope {
    if (this.fixed !== null) return this.fixed;
    const scopes = this.scopes;
    let scope = scopes.get(key);
    if (scope === undefined) {
      if (scopes.size >= MAX_TRACKED_UPSTREAMS) {
        // Insertion order is recency order (every use re-inserts): the first key is the least recently used.
        const oldest = scopes.keys().next().value as string;
        const forgotten = scopes.get(oldest) as UpstreamScope;
        scopes.delete(oldest);
        for (const listener of this.listeners) listener.forgotten(forgotten);
      }
      scope = this.scope(key, [], null, null, monotonicNowMs());
      scopes.set(key, scope);
    } else if (scopes.size > 1) {
      scopes.delete(key);
      scopes.set(key, scope);
    }
    return scope;
  }

  /** Every scope, e.g. for stats (least recently used first). */
  all(): UpstreamScope[] {
    return this.fixed !== null ? [this.fixed] : [...this.scopes.values()];
  }

  /** Tells `listener` of every scope there is, every scope created from now on, and every scope forgotten. */
  watch(listener: ScopeListener): void {
    this.listeners.push(listener);
    for (const scope of this.all()) listener.added(scope);
  }

  /** Does every call go to one of the client's endpoints (its URL's origin only a name)? */
  get routed(): boolean {
    return this.fixed !== null && this.fixed.endpoints.length > 0;
  }

  /** Was `policy` given as an instance (not built by this client from a config)? */
  isShared(policy: object): boolean {
    return this.shared.has(policy);
  }

  private scope(
    name: string,
    endpoints: readonly string[],
    outlier: OutlierDetector | null,
    random: Random | null,
    nowMs: number,
  ): UpstreamScope {
    const { circuitBreaker: cb, limits: l } = this.options;
    const breaker = cb === undefined ? null : isBreakerInstance(cb) ? cb : new CircuitBreaker(cb);
    const limits = l === undefined ? null : isLimitsInstance(l) ? l : new ConcurrencyBreaker(l);
    const s = new UpstreamScope(name, endpoints, breaker, limits, this.options.loadBalancer, outlier, random, nowMs);
    for (const listener of this.listeners) listener.added(s);
    return s;
  }
}

const ABORTED: Outcome = { kind: 'aborted' };

/** The client takes no 'connection' permits (undici's pool owns connections), so max-connections cannot come back. */
function overflow(reason: OverflowReason): UpstreamRefusal {
  return reason as Exclude<OverflowReason, 'max-connections'>;
}

/**
 * The permits of one call: the endpoint, breaker permit and concurrency slot of the attempt in flight, and the retry
 * slot held from a retry's decision to its attempt's end (Envoy holds max_retries over the backoff too). Every permit
 * ends in exactly one report or release: attemptEnded() for the attempt, callEnded() for whatever is left.
 */
export class CallAdmission {
  /** The endpoint of the attempt in flight, or of the last one (-1: none yet). */
  private endpoint = -1;
  private breakerPermit: BreakerPermit | null = null;
  private slot: ConcurrencyPermit | null = null;
  private retrySlot: ConcurrencyPermit | null = null;
  /** The balancer counts an attempt in flight to `endpoint`. */
  private started = false;
  private retry = false;
  /** Why the last attempt or retry was refused, if it was. */
  refusal: UpstreamRefusal | null = null;

  constructor(readonly scope: UpstreamScope) {}

  /** The origin the attempt in flight goes to, or undefined to keep the request's own. */
  get target(): string | undefined {
    return this.endpoint < 0 ? undefined : this.scope.endpoints[this.endpoint];
  }

  /**
   * Admits attempt `attempt`: picks its endpoint (avoiding the one that just failed), asks the circuit breaker, takes a
   * concurrency slot (`pending` when the driver will say when the request gets a connection, else `request`).
   * False: refused (see `refusal`); nothing is held then.
   */
  admit(nowMs: number, attempt: number, pending: boolean): boolean {
    const scope = this.scope;
    if (scope.balancer !== null) {
      const index = scope.pick(nowMs, this.endpoint);
      if (index === NO_ENDPOINT) return this.refuse('no-healthy-endpoint');
      this.endpoint = index;
    }
    const breaker = scope.breaker;
    if (breaker !== null) {
      const verdict = breaker.tryAcquire(nowMs);
      if (!verdict.allowed) return this.refuse(verdict.reason === 'open' ? 'breaker-open' : 'breaker-half-open-full');
      this.breakerPermit = verdict;
    }
    const limits = scope.limits;
    if (limits !== null) {
      const verdict = limits.tryAcquire(pending ? 'pending' : 'request');
      if (!verdict.allowed) {
        this.cancelBreakerPermit();
        return this.refuse(overflow(verdict.reason));
      }
      this.slot = verdict;
    }
    if (scope.balancer !== null) {
      scope.balancer.started(this.endpoint);
      this.started = true;
    }
    this.retry = attempt > 1;
    scope.attempts++;
    if (this.retry) scope.retries++;
    return true;
  }

  /**
   * The attempt's request got a connection: its pending slot becomes a request slot (Envoy checks max_requests then).
   * False: refused at max-requests; the caller ends the attempt (shed-locally) before a byte is written.
   */
  promote(): boolean {
    const slot = this.slot;
    if (slot === null || slot.resource !== 'pending') return true;
    const verdict = (this.scope.limits as ConcurrencyBreaker).promote(slot); // frees the pending slot either way
    if (verdict.allowed) {
      this.slot = verdict;
      return true;
    }
    this.slot = null;
    this.scope.attempts--;
    if (this.retry) this.scope.retries--;
    return this.refuse(overflow(verdict.reason));
  }

  /** The attempt ended with `outcome`: the breaker, the outlier detector and the balancer hear of it; slots are freed. */
  attemptEnded(outcome: Outcome, nowMs: number): void {
    const scope = this.scope;
    const permit = this.breakerPermit;
    if (permit !== null) {
      this.breakerPermit = null;
      const breaker = scope.breaker as CircuitBreaker;
      const report = breakerReportOf(outcome);
      if (report === 'success') breaker.onSuccess(permit, nowMs);
      else if (report === 'failure') breaker.onFailure(permit, nowMs);
      else breaker.onCancel(permit);
    }
    const slot = this.slot;
    if (slot !== null) {
      this.slot = null;
      (scope.limits as ConcurrencyBreaker).release(slot);
    }
    this.releaseRetry();
    if (this.started) {
      this.started = false;
      (scope.balancer as Balancer).ended(this.endpoint);
      scope.result(this.endpoint, outcome, nowMs);
    }
  }

  /** The policy decided to retry: a retry slot is taken now and held until the retry's attempt ends. False: refused. */
  retryDecided(): boolean {
    const limits = this.scope.limits;
    if (limits === null) return true;
    const verdict = limits.tryAcquire('retry');
    if (!verdict.allowed) return this.refuse(overflow(verdict.reason));
    this.retrySlot = verdict;
    return true;
  }

  /** The call is over: an attempt still in flight ends as aborted, a retry slot is freed. Safe to call more than once. */
  callEnded(nowMs: number): void {
    if (this.breakerPermit !== null || this.slot !== null || this.started) this.attemptEnded(ABORTED, nowMs);
    this.releaseRetry();
  }

  private releaseRetry(): void {
    const slot = this.retrySlot;
    if (slot !== null) {
      this.retrySlot = null;
      (this.scope.limits as ConcurrencyBreaker).release(slot);
    }
  }

  private cancelBreakerPermit(): void {
    const permit = this.breakerPermit;
    if (permit !== null) {
      this.breakerPermit = null;
      (this.scope.breaker as CircuitBreaker).onCancel(permit);
    }
  }

  private refuse(reason: UpstreamRefusal): false {
    this.refusal = reason;
    this.scope.refused[reason]++;
    return false;
  }
}
