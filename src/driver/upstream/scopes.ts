// The HTTP client's thin driver of the guard pipeline (policy/upstream): an upstream's policies and stats, and the permits of one call.

import { randomInt } from 'node:crypto';
import { createRandom, type Random } from '../../policy/core/random.js';
import type { Outcome } from '../../policy/core/types.js';
import { MAX_TRACKED_UPSTREAMS, type RetryCall } from '../../policy/retry/retry.js';
import { Balancer } from '../../policy/upstream/balancer.js';
import {
  type BreakerChange,
  type BreakerPermit,
  type BreakerStats,
  CircuitBreaker,
} from '../../policy/upstream/breaker.js';
import type { ChangeLog } from '../../policy/upstream/changes.js';
import {
  ConcurrencyBreaker,
  type ConcurrencyPermit,
  type ConcurrencyStats,
} from '../../policy/upstream/concurrency.js';
import type { GuardHold, UpstreamRefusal } from '../../policy/upstream/hold.js';
import { type EjectionChange, OutlierDetector, type OutlierStats } from '../../policy/upstream/outlier.js';
import { GuardPipeline, type GuardTime, type PoolView, RETRY_REFUSED } from '../../policy/upstream/pipeline.js';
import { AdaptiveThrottle, type ThrottleStats } from '../../policy/upstream/throttle.js';
import { monotonicNowMs } from '../clock.js';
import type { RefusedEvent } from '../events.js';
import type { GuardEvents } from './guard-events.js';
import {
  endpointOrigins,
  isBreakerInstance,
  isLimitsInstance,
  isOutlierInstance,
  outlierConfigFor,
  type UpstreamOptions,
} from './options.js';

export { UPSTREAM_REFUSALS, type UpstreamRefusal } from '../../policy/upstream/hold.js';

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
  /** The adaptive throttle's window and counts; null without one. */
  throttle: ThrottleStats | null;
  /** Empty without endpoints. */
  endpoints: EndpointStats[];
}

/** The policies of one upstream, run by its guard pipeline. With endpoints there is one scope (Envoy's cluster); else one per budget key. */
export class UpstreamScope {
  readonly balancer: Balancer | null;
  readonly outlier: OutlierDetector | null;
  /** The order the guards admit an attempt in and what follows its outcome (policy/upstream/pipeline.ts). */
  readonly pipeline: GuardPipeline;
  /** The monotonic time handed to the pipeline, set by each CallAdmission call just before it (all synchronous). */
  readonly time = { nowMs: 0 };
  private readonly breakerLog: ChangeLog<BreakerChange> | null;
  private readonly ejectionLog: ChangeLog<EjectionChange> | null;

  constructor(
    readonly name: string,
    readonly endpoints: readonly string[],
    readonly breaker: CircuitBreaker | null,
    readonly limits: ConcurrencyBreaker | null,
    balancer: UpstreamOptions['loadBalancer'],
    outlier: OutlierDetector | null,
    random: Random | null,
    nowMs: number,
    /** The client's publisher of guard events (null: nothing published, nothing recorded). */
    readonly events: GuardEvents | null = null,
    /** The adaptive throttle and the stream it draws from (both or neither). */
    readonly throttle: AdaptiveThrottle | null = null,
    throttleDraws: Random | null = null,
  ) {
    this.outlier = outlier;
    // The policies record their changes as data from now on; drain() publishes them.
    this.breakerLog = events === null ? null : (breaker?.recordChanges() ?? null);
    this.ejectionLog = events === null ? null : (outlier?.recordChanges() ?? null);
    let pickDraws: Random | null = null;
    let outlierDraws: Random | null = null;
    if (endpoints.length === 0 || random === null) {
      this.balancer = null;
    } else {
      this.balancer = new Balancer(endpoints, typeof balancer === 'string' ? { kind: balancer } : balancer, outlier);
      pickDraws = this.balancer.config.kind === 'p2c' ? random.fork('balancer') : null;
      outlierDraws = random.fork('outlier');
      // The pool is declared up front: maxEjectionPercent counts endpoints not called yet.
      outlier?.addHosts(endpoints, nowMs);
    }
    const parts = { breaker, limits, balancer: this.balancer, outlier, pickDraws, outlierDraws };
    this.pipeline = new GuardPipeline({ ...parts, throttle, throttleDraws });
  }

  /** Attempts sent to this upstream by this client (Envoy upstream_rq_total), and of those, retries. */
  get attempts(): number {
    return this.pipeline.attempts;
  }

  get retries(): number {
    return this.pipeline.retries;
  }

  /** Attempts and retries this client refused without sending, by reason. */
  get refused(): Readonly<Record<UpstreamRefusal, number>> {
    return this.pipeline.refused;
  }

  /**
   * Runs what the pipeline has due (the outlier detector's interval sweep). Driven lazily, at each admission and when
   * stats are read, never by a timer: nothing here can keep a process alive. (isEjected() already answers as if a
   * late sweep had run; the sweep itself runs the success-rate and failure-percentage analyses and the decay.)
   */
  wake(nowMs: number): void {
    this.pipeline.wake(nowMs);
    this.drain();
  }

  /** Publishes the guards' changes since the last step (breaker transitions, ejections): after every pipeline step. */
  drain(): void {
    // @ko guard-events-drained
    this.events?.drain(this.name, this.breakerLog, this.ejectionLog);
  }

  stats(nowMs: number): UpstreamStats {
    this.wake(nowMs);
    // The breaker's state now: an open one whose break has passed is half-open (the next attempt would be a probe).
    this.breaker?.state(nowMs);
    this.drain();
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
      throttle: this.throttle?.stats(nowMs) ?? null,
      endpoints: this.endpoints.map((endpoint, i) => ({
        endpoint,
        ejected: outlier?.isEjected(endpoint, nowMs) ?? false,
        inFlight: balancer?.load(i) ?? 0,
      })),
    };
  }
}

/** The call a CallAdmission belongs to, as a refusal event names it (the attempt loop's runner). */
export interface RefusalSource {
  eventBase(nowMs: number): Omit<RefusedEvent, 'attempt' | 'refusal'>;
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
    private readonly events: GuardEvents | null,
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
        (options.limits !== undefined && !isLimitsInstance(options.limits)) ||
        options.throttle !== undefined);
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
  static from(options: UpstreamOptions, name: string | undefined, events: GuardEvents | null = null): Upstreams | null {
    const o = options;
    const none = o.endpoints === undefined && o.circuitBreaker === undefined && o.limits === undefined;
    if (none && o.throttle === undefined) return null;
    return new Upstreams(options, name, events);
  }

  /** The permits of a new call whose budget key is `key`; `call` gives the facts a refusal event carries. */
  admission(key: string, call: RefusalSource | null = null): CallAdmission {
    return new CallAdmission(this.scopeFor(key), call);
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

  /** The throttle's draws of scope `name`: forked from the client's seed, so a seeded client draws the same. */
  private throttleDraws(name: string): Random {
    return createRandom(this.options.seed ?? randomInt(2 ** 32)).fork(`throttle:${name}`);
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
    const lb = this.options.loadBalancer;
    // @ko http-throttle-built
    const throttle = this.options.throttle === undefined ? null : new AdaptiveThrottle(this.options.throttle);
    const draws = throttle === null ? null : this.throttleDraws(name);
    const s = new UpstreamScope(
      name,
      endpoints,
      breaker,
      limits,
      lb,
      outlier,
      random,
      nowMs,
      this.events,
      throttle,
      draws,
    );
    for (const listener of this.listeners) listener.added(s);
    return s;
  }
}

/**
 * The permits of one call (GuardHold), written by its scope's guard pipeline: the endpoint, breaker permit and
 * concurrency slot of the attempt in flight, and the retry slot held from a retry's decision to its attempt's end.
 * Every permit ends in exactly one report or release: the pipeline's afterOutcome() / attemptEnded() for the attempt,
 * callEnded() for whatever is left.
 */
export class CallAdmission implements GuardHold {
  /** @internal GuardHold: the endpoint of the attempt in flight, or of the last one (-1: none yet). */
  endpoint = -1;
  /** @internal */ breakerPermit: BreakerPermit | null = null;
  /** @internal */ slot: ConcurrencyPermit | null = null;
  /** @internal */ retrySlot: ConcurrencyPermit | null = null;
  /** @internal */ started = false;
  /** @internal */ retried = false;
  /** @internal */ unsent = false;
  /** @internal */ throttleCounted = false;
  /** Why the last attempt or retry was refused, if it was. */
  refusal: UpstreamRefusal | null = null;
  /** The attempt admitted last (or refused). */
  private attempt = 0;

  constructor(
    readonly scope: UpstreamScope,
    private readonly call: RefusalSource | null = null,
  ) {}

  /** The origin the attempt in flight goes to, or undefined to keep the request's own. */
  get target(): string | undefined {
    return this.endpoint < 0 ? undefined : this.scope.endpoints[this.endpoint];
  }

  /**
   * Admits attempt `attempt` through the pipeline (breaker, endpoint pick avoiding the one that just failed, a
   * concurrency slot: `pool` is the driver's view of its connections when it will report the request on one, else
   * null), after running what is due (the lazy sweep). False: refused (see `refusal`); nothing is held then.
   */
  admit(nowMs: number, attempt: number, pool: PoolView | null): boolean {
    const pipeline = this.scope.pipeline;
    pipeline.wake(nowMs);
    this.attempt = attempt;
    return this.stepped(pipeline.admit(this, this.at(nowMs), attempt, pool));
  }

  /** The attempt's request is on a connection, being written (GuardPipeline.sent). False: refused at max-requests. */
  sent(): boolean {
    return this.stepped(this.scope.pipeline.sent(this));
  }

  /** What follows the attempt's outcome (GuardPipeline.afterOutcome): a wait, RETRY_STOPPED or RETRY_REFUSED. */
  afterOutcome(retry: RetryCall, outcome: Outcome, nowMs: number, retryNowMs: number): number {
    const next = this.scope.pipeline.afterOutcome(this, retry, outcome, this.at(nowMs), retryNowMs);
    this.stepped(next !== RETRY_REFUSED);
    return next;
  }

  /** The attempt ended with `outcome` (GuardPipeline.attemptEnded). */
  attemptEnded(outcome: Outcome, nowMs: number): void {
    this.scope.pipeline.attemptEnded(this, outcome, this.at(nowMs));
    this.scope.drain();
  }

  /** A retry was decided: its max_retries slot (GuardPipeline.takeRetry). False: refused. */
  retryDecided(): boolean {
    return this.stepped(this.scope.pipeline.takeRetry(this));
  }

  /** The call is over: an attempt still in flight ends as aborted, a retry slot is freed. Safe to call more than once. */
  callEnded(nowMs: number): void {
    this.scope.pipeline.callEnded(this, this.at(nowMs));
    this.scope.drain();
  }

  /** After a pipeline step: its guards' changes are published, and a refusal (`admitted` false) too. */
  private stepped(admitted: boolean): boolean {
    this.scope.drain();
    const events = this.scope.events;
    // @ko guard-refused-published
    if (!admitted && events !== null && this.call !== null && events.refusedObserved()) {
      events.refused(this.call.eventBase(Date.now()), this.attempt, this.refusal as UpstreamRefusal);
    }
    return admitted;
  }

  private at(nowMs: number): GuardTime {
    const time = this.scope.time;
    time.nowMs = nowMs;
    return time;
  }
}
