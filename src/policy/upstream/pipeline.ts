// The ONE upstream guard pipeline: the order in which breaker, balancer and limits admit an attempt, what follows its outcome, and when it next needs waking.

import type { Random } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import type { RetryCall } from '../retry/retry.js';
import { type Balancer, NO_ENDPOINT } from './balancer.js';
import { type BreakerRejectReason, breakerReportOf, type CircuitBreaker } from './breaker.js';
import type { ConcurrencyBreaker, OverflowReason } from './concurrency.js';
import { type GuardHold, type UpstreamRefusal, zeroRefusals } from './hold.js';
import type { OutlierDetector } from './outlier.js';
import type { AdaptiveThrottle } from './throttle.js';

/** afterOutcome(): the call stops (RetryCall.stopReason says why). */
export const RETRY_STOPPED = -1;
/** afterOutcome(): the policy granted a retry that the limits' max_retries refused; the call has ended (budget-exhausted). */
export const RETRY_REFUSED = -2;

const ABORTED: Outcome = { kind: 'aborted' };

const BREAKER_REFUSALS: Readonly<Record<BreakerRejectReason, UpstreamRefusal>> = {
  open: 'breaker-open',
  'half-open-full': 'breaker-half-open-full',
};

/** The policy objects of one upstream (any may be absent) and the random streams they are given. */
export interface GuardParts {
  readonly breaker: CircuitBreaker | null;
  readonly limits: ConcurrencyBreaker | null;
  /** Null when the driver picks no endpoint (the HTTP client without `endpoints`). */
  readonly balancer: Balancer | null;
  readonly outlier: OutlierDetector | null;
  /** p2c's draws; null for round-robin (which draws nothing). */
  readonly pickDraws: Random | null;
  /** The detector's enforcement draws (onResult and the sweep); null without a balancer. */
  readonly outlierDraws: Random | null;
  /** The adaptive throttle (absent or null: none) and its draws (required with one). */
  readonly throttle?: AdaptiveThrottle | null;
  readonly throttleDraws?: Random | null;
}

/**
 * The time, as a field of an object the driver owns and sets (the simulator's engine; a scope's slot in the HTTP
 * client): a double passed to a call that is not inlined is boxed, and the pipeline runs on every attempt. It is read
 * only where a guard needs it, so an edge with none of them reads no time at all.
 */
export interface GuardTime {
  readonly nowMs: number;
}

/**
 * What a driver can tell of its connection pool (undici's pool stats): the facts the limits' Envoy rule takes. The
 * simulator and `fetch` have no such view (null): their attempts are sent as soon as they are admitted.
 */
export interface PoolView {
  /**
   * Is a connected connection to `origin` free for a request now? `origin` is the balancer's endpoint, or null for
   * the request's own origin (no balancer). Asked only when there are limits.
   */
  connectionFree(origin: string | null): boolean;
}

/** The client takes no 'connection' permits (a driver's pool owns connections), so max-connections cannot come back. */
function overflow(reason: OverflowReason): UpstreamRefusal {
  return reason as Exclude<OverflowReason, 'max-connections'>;
}

/**
 * One upstream's guards as one sans-I/O state machine, shared by the HTTP client and the simulator.
 *
 * Admission of an attempt (admit), in this order, the first refusal ending it:
 *   0. adaptive throttle  admit     refused: throttled (counted a request; nothing else is asked)
 *   1. circuit breaker  tryAcquire     refused: breaker-open | breaker-half-open-full
 *   2. endpoint pick    Balancer.pick  refused: no-healthy-endpoint          (the breaker's permit is cancelled)
 *   3. limits           'request' slot if a connection is free, else 'pending' (Envoy: a request is pending only
 *                       while no ready connection can take it)   refused: max-pending | max-requests  (permit cancelled)
 *   4. admitted: the balancer counts the attempt in flight; attempts (and retries) are counted once sent: at once
 *      without a pool view, else when the driver reports the request on its connection (sent()).
 * An attempt the breaker refuses never asks the balancer: its cursor, counters and p2c draws do not move.
 * After an outcome (afterOutcome): the attempt's end is reported (breaker by breakerReportOf, limits' slots released,
 * balancer's in-flight count, outlier detector), then the retry policy decides, then a granted retry takes a limits'
 * 'retry' slot (max_retries) or is refused. A refused attempt holds nothing; every permit ends in one report.
 * Time: `now` is always given (GuardTime); nextWakeAt(now) says when wake(now) next has something to do (the detector's sweep,
 * the end of the breaker's break), as quinn's poll_timeout does. A driver without timers may call wake() lazily.
 */
export class GuardPipeline {
  readonly breaker: CircuitBreaker | null;
  readonly limits: ConcurrencyBreaker | null;
  readonly balancer: Balancer | null;
  readonly outlier: OutlierDetector | null;
  readonly throttle: AdaptiveThrottle | null;
  /** Attempts sent (Envoy upstream_rq_total), and of those, retries (upstream_rq_retry); refused ones never count. */
  attempts = 0;
  retries = 0;
  /** Attempts and retries refused, by reason. */
  readonly refused = zeroRefusals();
  private readonly pickDraws: Random | null;
  private readonly outlierDraws: Random | null;
  private readonly throttleDraws: Random | null;
  /**
   * The balancer has a choice to make (several endpoints, or a detector that can eject the one there is). Without
   * one the pick is always 0; the simulator's summary then has no balancer block.
   */
  readonly choice: boolean;
  /** onResult needs a draw: an enforcing percentage of a consecutive detector is strictly between 0 and 100. */
  private readonly resultDraws: boolean;
  /** Anything but the balancer to report an attempt's end to. */
  private readonly guarded: boolean;

  constructor(parts: GuardParts) {
    this.breaker = parts.breaker;
    this.limits = parts.limits;
    this.balancer = parts.balancer;
    this.outlier = parts.outlier;
    this.pickDraws = parts.pickDraws;
    this.outlierDraws = parts.outlierDraws;
    this.throttle = parts.throttle ?? null;
    this.throttleDraws = parts.throttleDraws ?? null;
    if (this.throttle !== null && this.throttleDraws === null) throw new TypeError('a throttle needs its draws');
    const balancer = parts.balancer;
    this.choice = balancer !== null && (balancer.endpoints.length > 1 || parts.outlier !== null);
    const cfg = parts.outlier?.config;
    const between = (percent: number) => percent > 0 && percent < 100;
    this.resultDraws =
      cfg !== undefined && (between(cfg.enforcingConsecutive5xx) || between(cfg.enforcingConsecutiveGatewayFailure));
    this.guarded = parts.breaker !== null || parts.limits !== null || parts.outlier !== null || this.throttle !== null;
  }

  /**
   * Admits attempt number `attempt` (RetryCall already granted it) of the call holding `hold`. `pool`: the driver's
   * view of its connections, or null when an admitted attempt is sent at once. With a view, the limits' slot is a
   * 'request' when a connection is free and 'pending' otherwise, and the attempt counts as sent only when the driver
   * reports it on its connection (sent()). True: admitted, `hold.endpoint` is its endpoint. False: refused
   * (`hold.refusal` says why); it holds nothing.
   */
  admit(hold: GuardHold, time: GuardTime, attempt: number, pool: PoolView | null): boolean {
    const throttle = this.throttle;
    // @ko throttle-asked
    if (throttle !== null && !throttle.admit(time.nowMs, this.throttleDraws as Random)) {
      return this.refuse(hold, 'throttled');
    }
    // @ko http-breaker-asked
    const breaker = this.breaker;
    if (breaker !== null) {
      // @ko sim-breaker-asked
      const verdict = breaker.tryAcquire(time.nowMs);
      if (!verdict.allowed) return this.refuse(hold, BREAKER_REFUSALS[verdict.reason]);
      hold.breakerPermit = verdict;
    }
    const balancer = this.balancer;
    let index = -1;
    if (balancer !== null) {
      // @ko http-retry-other-endpoint
      index = this.choose(balancer, hold.endpoint, time);
      if (index === NO_ENDPOINT) return this.refuseHeld(hold, 'no-healthy-endpoint');
    }
    const limits = this.limits;
    if (limits !== null) {
      const verdict = limits.tryAcquire(this.slotFor(pool, balancer, index));
      if (!verdict.allowed) return this.refuseHeld(hold, overflow(verdict.reason));
      hold.slot = verdict;
    }
    if (balancer !== null) {
      balancer.started(index);
      hold.endpoint = index;
      hold.started = true;
    }
    hold.retried = attempt > 1;
    hold.unsent = true;
    // Without a pool view, admitted is sent; with one, the driver reports it (undici: at onConnect, before the write).
    // @ko pending-counted-when-sent
    return pool === null ? this.sent(hold) : true;
  }

  /**
   * The limits' slot of an attempt (Envoy's conn pool: a stream attaches at once to a ready client; only without one is
   * it a pending request). No pool view: a request slot (the attempt is sent at once).
   */
  private slotFor(pool: PoolView | null, balancer: Balancer | null, index: number): 'pending' | 'request' {
    if (pool === null) return 'request';
    const origin = balancer === null ? null : (balancer.endpoints[index] as string);
    // @ko pending-free-connection
    return pool.connectionFree(origin) ? 'request' : 'pending';
  }

  /**
   * The balancer's pick for an attempt. `previous` is the endpoint of the call's last attempt (-1 before the first):
   * the balancer sends a retry elsewhere if it can. No choice (one endpoint nothing can eject): the pick is 0 and
   * reads no time (a boxed double per attempt). Its own method, so that admit() stays small enough to inline.
   */
  private choose(balancer: Balancer, previous: number, time: GuardTime): number {
    if (!this.choice) return balancer.pickOnly();
    const draws = this.pickDraws;
    if (draws === null) return balancer.pick(time.nowMs, previous, 0, 0);
    return balancer.pick(time.nowMs, previous, draws.next(), draws.next());
  }

  /**
   * The driver put the admitted attempt's request on a connection and writes it now (undici's onConnect): a pending
   * slot becomes a request slot (Envoy checks max_requests then), and the attempt counts as sent (upstream_rq_total).
   * False: refused at max-requests, nothing sent; the driver ends the attempt (shed-locally). Once per attempt: later
   * reports change nothing (an attempt admitted without a pool view was reported by admit() itself).
   */
  sent(hold: GuardHold): boolean {
    if (!hold.unsent) return true;
    hold.unsent = false;
    const slot = hold.slot;
    if (slot !== null && slot.resource === 'pending') {
      const verdict = (this.limits as ConcurrencyBreaker).promote(slot); // frees the pending slot either way
      if (!verdict.allowed) {
        hold.slot = null;
        return this.refuse(hold, overflow(verdict.reason));
      }
      hold.slot = verdict;
    }
    this.attempts++;
    if (hold.retried) this.retries++;
    const throttle = this.throttle;
    if (throttle !== null) {
      // @ko throttle-counts-sent
      throttle.sent();
      hold.throttleCounted = true;
    }
    return true;
  }

  /**
   * What follows the outcome of the call's attempt (or of a refused one, `shed-locally`): the attempt's end is
   * reported, `retry` decides, and a granted retry takes its max_retries slot. Returns the wait before the retry
   * (ms, >= 0), RETRY_STOPPED, or RETRY_REFUSED (the call ended as RetryCall.refuseRetry says). `retryNowMs` is the
   * retry policy's time, `time` the guards' (the HTTP client runs its guards on a monotonic clock).
   */
  afterOutcome(hold: GuardHold, retry: RetryCall, outcome: Outcome, time: GuardTime, retryNowMs: number): number {
    this.attemptEnded(hold, outcome, time);
    const waitMs = retry.onOutcomeMs(outcome, retryNowMs);
    if (waitMs < 0) return RETRY_STOPPED;
    // @ko http-retry-slot
    if (!this.takeRetry(hold)) {
      retry.refuseRetry(retryNowMs);
      return RETRY_REFUSED;
    }
    return waitMs;
  }

  /** The attempt ended with `outcome`: each guard holding a part of it hears of it once; its slots are freed. */
  attemptEnded(hold: GuardHold, outcome: Outcome, time: GuardTime): void {
    hold.unsent = false; // an attempt that ends before it was sent is not counted
    if (hold.started) {
      hold.started = false;
      (this.balancer as Balancer).ended(hold.endpoint);
      const outlier = this.outlier;
      // @ko http-outlier-reported
      if (outlier !== null) {
        const u = this.resultDraws ? (this.outlierDraws as Random).next() : undefined;
        outlier.onResult((this.balancer as Balancer).endpoints[hold.endpoint] as string, outcome, time.nowMs, u);
      }
    }
    if (!this.guarded) return;
    if (hold.throttleCounted) {
      hold.throttleCounted = false;
      // @ko throttle-hears-end
      (this.throttle as AdaptiveThrottle).ended(time.nowMs, outcome);
    }
    const permit = hold.breakerPermit;
    if (permit !== null) {
      hold.breakerPermit = null;
      const breaker = this.breaker as CircuitBreaker;
      const report = breakerReportOf(outcome);
      if (report === 'success') breaker.onSuccess(permit, time.nowMs);
      else if (report === 'failure') breaker.onFailure(permit, time.nowMs);
      else breaker.onCancel(permit);
    }
    const slot = hold.slot;
    if (slot !== null) {
      hold.slot = null;
      (this.limits as ConcurrencyBreaker).release(slot);
    }
    this.releaseRetry(hold);
  }

  /** A retry was decided: it takes a max_retries slot now, held through the backoff. False: refused (max-retries). */
  takeRetry(hold: GuardHold): boolean {
    const limits = this.limits;
    if (limits === null) return true;
    const verdict = limits.tryAcquire('retry');
    if (!verdict.allowed) return this.refuse(hold, overflow(verdict.reason));
    hold.retrySlot = verdict;
    return true;
  }

  /** The call is over: an attempt still out ends as aborted, a held retry slot is freed. Safe to call more than once. */
  callEnded(hold: GuardHold, time: GuardTime): void {
    if (hold.started || hold.breakerPermit !== null || hold.slot !== null || hold.throttleCounted) {
      this.attemptEnded(hold, ABORTED, time);
    } else this.releaseRetry(hold);
  }

  /** Runs what is due at `nowMs`: the detector's interval sweep, the breaker's open -> half-open change. */
  wake(nowMs: number): void {
    const outlier = this.outlier;
    if (outlier !== null && nowMs >= outlier.nextWakeMs()) outlier.sweep(nowMs, this.outlierDraws as Random);
    const breaker = this.breaker;
    if (breaker !== null && nowMs >= breaker.nextWakeMs()) breaker.state(nowMs);
  }

  /** When wake() next has something to do (absolute ms, > nowMs unless overdue); Infinity for never. */
  nextWakeAt(_nowMs: number): number {
    const sweepMs = this.outlier === null ? Number.POSITIVE_INFINITY : this.outlier.nextWakeMs();
    const breakMs = this.breaker === null ? Number.POSITIVE_INFINITY : this.breaker.nextWakeMs();
    return Math.min(sweepMs, breakMs);
  }

  private releaseRetry(hold: GuardHold): void {
    const slot = hold.retrySlot;
    if (slot !== null) {
      hold.retrySlot = null;
      (this.limits as ConcurrencyBreaker).release(slot);
    }
  }

  /** A refusal after the breaker granted a permit: the attempt reached no upstream, so the permit is cancelled. */
  private refuseHeld(hold: GuardHold, reason: UpstreamRefusal): false {
    const permit = hold.breakerPermit;
    if (permit !== null) {
      hold.breakerPermit = null;
      (this.breaker as CircuitBreaker).onCancel(permit);
    }
    return this.refuse(hold, reason);
  }

  private refuse(hold: GuardHold, reason: UpstreamRefusal): false {
    hold.refusal = reason;
    this.refused[reason]++;
    return false;
  }
}
