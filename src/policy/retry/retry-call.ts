// RetryCall, the attempt state machine of one logical call (start -> beginAttempt -> onOutcome -> retry after d ms | stop).

import { ConfigError } from '../core/config-error.js';
import { type Decision, type Outcome, type RequestTraits, STOP_REASONS, type StopReason } from '../core/types.js';
import { attemptHeaders, deadlinePassed, type InboundHop, sentDeadlineMs } from '../hop/hop.js';
import { type Claim, ownershipDecision, type RelayedClaim } from '../hop/ownership.js';
import { parseGrpcPushback, serverWait } from '../hop/retry-after.js';
import { backoffDelay } from './backoff.js';
import type { RetryBudget } from './budget.js';
import { classifyOutcome, compileRetryConditions, isIdempotentMethod, type RetryOnSet } from './classify.js';
import type { ResolvedRetryConfig } from './retry-config.js';
import { callDeadlineMs } from './retry-facts.js';
import type { RetryCounters } from './retry-stats.js';
import { checkTraits } from './traits.js';

/** The stop decisions, shared: a decision is read, never changed, so one object per reason serves every call. */
const STOP_DECISIONS = Object.fromEntries(STOP_REASONS.map((stop) => [stop, Object.freeze({ stop })])) as Record<
  StopReason,
  { readonly stop: StopReason }
>;

/**
 * Retries at one layer: a call made inside a request that came from another Seawall hop makes one attempt, unless the
 * call opts out (`oneLayer: false`) or error ownership decides which hop retries instead. The one rule: RetryCall
 * applies it per call; the report's topology applies it to a whole edge whose every inbound call is a Seawall hop.
 */
export function retriesAtOneLayer(fromSeawallHop: boolean, oneLayer: boolean | undefined, ownership: boolean): boolean {
  // @ko retry-one-layer
  return fromSeawallHop && oneLayer !== false && !ownership;
}

/** What the driver needs to perform one attempt. */
export class AttemptPlan {
  constructor(
    /** 1-based attempt number. */
    readonly attempt: number,
    /** Time allowed for this attempt: min(perTryTimeout, time left). Infinity when neither is set. */
    readonly perTryTimeoutMs: number,
    /** Absolute deadline of the whole call (ms, same clock as `now`), or null. */
    readonly deadlineMs: number | null,
    private readonly nowMs: number,
    private readonly propagateDeadline: boolean,
  ) {}

  /** Headers to send with this attempt: the deadline in absolute and relative form, and the attempt number. */
  get headers(): Record<string, string> {
    return attemptHeaders(this.attempt, sentDeadlineMs(this.deadlineMs, this.propagateDeadline), this.nowMs);
  }
}

function isRetryOnSet(value: readonly unknown[] | RetryOnSet): value is RetryOnSet {
  return !Array.isArray(value);
}

/** What a call reads from the policy that started it (RetryPolicy is one): its config, shared counters and jitter
 * draws. An interface, so this file need not import retry.ts, which imports it. */
export interface RetryCallHost {
  readonly config: ResolvedRetryConfig;
  readonly counters: RetryCounters;
  draw(): number;
}

/** The attempt state machine of one logical call. Every call ends in exactly one StopReason. */
export class RetryCall {
  /** Absolute deadline (ms), or null when the call has none. */
  readonly deadlineMs: number | null;
  readonly startedMs: number;
  /** Attempts begun so far. */
  attempts = 0;
  /** Set once, when the call ends. */
  stopReason: StopReason | null = null;
  /** The claim read off the last attempt's outcome (`absent` for a timeout, a reset, or no claim header). */
  // @eq retry-call-lastclaim-claim-absent
  lastClaim: Claim = 'absent';
  /** Status of the last attempt's response; 0 when it had none (a timeout, a reset, no attempt yet). */
  lastStatus = 0;
  private inAttempt = false;
  private holdsRetrySlot = false;
  private previousDelayMs = 0;
  /** Retries since the backoff last restarted (a server pushback restarts it, per gRPC A6). */
  private backoffRetry = 0;
  /** Idempotent, carrying an idempotency key, or unsafe retries allowed: a replay cannot repeat a side effect. */
  readonly replaySafe: boolean;
  private readonly bodyReplayable: boolean;
  /** Per-call cap on attempts, or null for the policy's. */
  private readonly attemptsOverride: number | null;
  /** The one-layer rule, not the call's own cap, holds it to one attempt (its stop is `one-layer`). */
  private readonly oneLayerCapped: boolean;
  /** Per-call retry conditions, or null to use the policy's (read at each decision, so update() applies). */
  private readonly retryOnOverride: RetryOnSet | null;
  /** Per-call cap on the per-try timeout, or null for the policy's. */
  private readonly perTryOverrideMs: number | null;

  constructor(
    private readonly policy: RetryCallHost,
    private readonly budget: RetryBudget,
    nowMs: number,
    traits: RequestTraits,
    inbound: InboundHop | null = null,
  ) {
    checkTraits(traits);
    const config = policy.config;
    this.startedMs = nowMs;
    // A deadline only ever shrinks down a chain: the earliest of the call's own, the inherited one and the policy's.
    let deadlineMs = callDeadlineMs(config, nowMs);
    const own = traits.deadlineMs;
    const inherited = traits.inheritedDeadlineMs;
    if (own !== undefined && own !== null) deadlineMs = deadlineMs === null ? own : Math.min(deadlineMs, own);
    if (inherited !== undefined && inherited !== null) {
      deadlineMs = deadlineMs === null ? inherited : Math.min(deadlineMs, inherited);
    }
    // The hop rule: what the inbound request brought (its deadline; whether a Seawall hop sent it).
    const hopDeadline = inbound === null ? null : inbound.deadlineMs;
    // @eq retry-call-hopdeadline-hopdeadline-number-isfin
    if (hopDeadline !== null && hopDeadline !== undefined && !Number.isFinite(hopDeadline)) {
      throw new ConfigError([
        // @eq retry-call-path-inbound-deadlinems-message
        { path: 'inbound.deadlineMs', message: `must be a finite number of epoch ms (or null), got ${hopDeadline}` },
      ]);
    }
    // @eq retry-call-hopdeadline-hopdeadline
    if (hopDeadline !== null && hopDeadline !== undefined)
      // @ko hop-inbound-deadline
      deadlineMs = deadlineMs === null ? hopDeadline : Math.min(deadlineMs, hopDeadline);
    // @ko hop-inbound-marker
    const fromSeawallHop = traits.fromSeawallHop === true || inbound?.fromSeawallHop === true;
    this.deadlineMs = deadlineMs;
    const idempotent = traits.idempotent ?? isIdempotentMethod(traits.method ?? 'GET');
    this.replaySafe = idempotent || traits.hasIdempotencyKey === true || config.retryNonIdempotent;
    this.bodyReplayable = traits.bodyReplayable !== false;
    const oneLayer = retriesAtOneLayer(fromSeawallHop, traits.oneLayer, config.ownership);
    this.attemptsOverride = oneLayer ? 1 : (traits.maxAttempts ?? null);
    this.oneLayerCapped = oneLayer && (traits.maxAttempts ?? 2) > 1;
    this.perTryOverrideMs = traits.perTryTimeoutMs ?? null;
    const retryOn = traits.retryOn;
    this.retryOnOverride =
      // @eq retry-call-isretryonset-retryon-retryon-compileretryconditions
      retryOn === undefined ? null : isRetryOnSet(retryOn) ? retryOn : compileRetryConditions(retryOn);
    budget.callStarted(nowMs);
    policy.counters.callStarted();
  }

  /** Attempts this call may make: the policy's value, lowered by a per-call override. */
  get maxAttempts(): number {
    const cap = this.policy.config.maxAttempts;
    return Math.max(1, this.attemptsOverride === null ? cap : Math.min(cap, this.attemptsOverride));
  }

  /**
   * How to mark the error this call relays upstream if it failed (the ownership table, ownership.ts): `unclaimed`
   * when this call could retry it (its retries, or its budget or deadline, were spent here), `criteria-met` when the
   * callee claimed it and this call could not retry it: no retries configured, or a reason of this hop's own (the
   * error is not in its retryOn, a replay is unsafe here, the body is a stream). That is the at-least-once flag: a
   * hop above may be able to retry what this one could not. A relaying hop never claims.
   */
  get passUp(): RelayedClaim {
    const reason = this.stopReason;
    // A replay here could repeat a side effect: no hop above may cause one by retrying the whole path.
    if (reason === 'unsafe-to-retry') return 'unclaimed';
    const couldRetry = this.maxAttempts > 1 && reason !== 'not-retryable' && reason !== 'body-not-replayable';
    return ownershipDecision(this.lastClaim, couldRetry).passUp;
  }

  /**
   * The mark an answer relaying this call's failure carries (passUp), or null when the call leaves nothing to relay:
   * it succeeded, is still running, was aborted by its caller, or ended on an answer below 500 (a 404 is the
   * caller's business, not an error to retry above).
   */
  get relayMark(): RelayedClaim | null {
    const reason = this.stopReason;
    // @eq retry-call-reason-reason-succeeded-reason
    if (reason === null || reason === 'succeeded' || reason === 'aborted') return null;
    // @eq retry-call-laststatus-laststatus-500
    if (this.lastStatus !== 0 && this.lastStatus < 500) return null;
    return this.passUp;
  }

  /** Begins the next attempt, or stops the call when no time is left for one. */
  beginAttempt(nowMs: number): AttemptPlan | { stop: StopReason } {
    const perTryTimeoutMs = this.beginAttemptMs(nowMs);
    // @eq retry-call-pertrytimeoutms-stop-decisions
    if (perTryTimeoutMs < 0) return STOP_DECISIONS[this.stopReason as StopReason];
    return new AttemptPlan(
      this.attempts,
      perTryTimeoutMs,
      this.deadlineMs,
      nowMs,
      this.policy.config.propagateDeadline,
    );
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * beginAttempt() without the plan object, for hot loops (the simulator): the attempt's time allowance
   * (AttemptPlan.perTryTimeoutMs; Infinity = none), or -1 when the call stopped instead (`stopReason` says why).
   */
  beginAttemptMs(nowMs: number): number {
    if (this.stopReason !== null)
      throw new Error(`RetryCall.beginAttempt: the call already ended (${this.stopReason})`);
    if (this.inAttempt) throw new Error('RetryCall.beginAttempt: the previous attempt has no outcome yet');
    const deadlineMs = this.deadlineMs;
    if (deadlineMs !== null && deadlinePassed(deadlineMs, nowMs)) {
      this.end('deadline-exceeded');
      return -1;
    }
    this.attempts++;
    this.inAttempt = true;
    this.policy.counters.attempts++;
    const override = this.perTryOverrideMs;
    const perTryMs =
      override === null ? this.policy.config.perTryTimeoutMs : Math.min(this.policy.config.perTryTimeoutMs, override);
    // @ko retry-per-try-cap
    return deadlineMs === null ? perTryMs : Math.min(perTryMs, deadlineMs - nowMs);
  }

  /**
   * Reports how the current attempt ended; returns the wait before the next attempt, or why the call stops.
   * An outcome that arrives after the call ended (a response racing an abort) changes nothing and returns that end.
   */
  onOutcome(outcome: Outcome, nowMs: number): Decision {
    const waitMs = this.onOutcomeMs(outcome, nowMs);
    return waitMs < 0 ? STOP_DECISIONS[this.stopReason as StopReason] : { retryAfterMs: waitMs };
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * onOutcome() without the decision object, for hot loops (the simulator): the wait before the next attempt (ms),
   * or -1 when the call stops (`stopReason` says why; also for an outcome that arrives after the call ended).
   */
  onOutcomeMs(outcome: Outcome, nowMs: number): number {
    if (this.stopReason !== null) return -1;
    if (!this.inAttempt) throw new Error('RetryCall.onOutcome: no attempt in progress');
    this.inAttempt = false;
    this.releaseRetrySlot();
    const counters = this.policy.counters;
    const config = this.policy.config;
    if (outcome.kind === 'timeout') counters.perTryTimeouts++;
    // @eq retry-call-outcome-kind-response-2
    if (outcome.kind === 'response') {
      this.lastStatus = outcome.status;
      this.lastClaim = outcome.claim ?? 'absent';
    } else {
      this.lastStatus = 0;
      this.lastClaim = 'absent';
    }
    const verdict = classifyOutcome(outcome, this.retryOnOverride ?? config.retryOn, this);
    if (verdict.budget === 'success') this.budget.recordSuccess(nowMs);
    else if (verdict.budget === 'failure') this.budget.recordFailure(nowMs);
    if (verdict.reason === 'success') return this.stop('succeeded');
    if (verdict.reason === 'aborted') return this.stop('aborted');

    let pushbackMs = -1;
    // @eq retry-call-outcome-kind-response-outcome
    if (outcome.kind === 'response' && outcome.pushbackMs != null) {
      const pushback = parseGrpcPushback(outcome.pushbackMs);
      if (pushback.kind === 'stop') {
        // gRPC A6: a "do not retry" pushback counts as a failure for throttling.
        if (verdict.budget !== 'failure') this.budget.recordFailure(nowMs);
        return this.stop('server-pushback');
      }
      // @eq retry-call-pushback-kind-retry-pushbackms
      if (pushback.kind === 'retry') pushbackMs = pushback.delayMs;
    }
    // A guard refused the attempt before any I/O (the first one too): the call ends `refused`, a give-up.
    // @ko retry-refused-stop
    if (verdict.reason === 'shed-locally') return this.stop('refused');
    if (!verdict.retryable) return this.stop(verdict.reason === 'unsafe' ? 'unsafe-to-retry' : 'not-retryable');
    if (!this.bodyReplayable) return this.stop('body-not-replayable');
    // Error ownership: an error relayed unclaimed was already retried below (or must not be): nobody above retries it.
    // @ko ownership-unclaimed-stop
    if (config.ownership && !ownershipDecision(this.lastClaim, true).retry) return this.stop('unclaimed-error');
    // @ko retry-max-attempts
    if (this.attempts >= this.maxAttempts) {
      // Held to one attempt by the one-layer rule while the policy allows more: the stop names the rule.
      // @ko retry-one-layer-stop
      if (this.oneLayerCapped && config.maxAttempts > 1) return this.stop('one-layer');
      counters.retryLimitExceeded++;
      return this.stop('attempts-exhausted');
    }
    if (!this.budget.acquireRetry(nowMs)) {
      counters.retryOverflow++;
      return this.stop('budget-exhausted');
    }
    this.holdsRetrySlot = true;

    let waitMs: number;
    const u = this.policy.draw();
    if (pushbackMs >= 0 && config.honorRetryAfter) {
      // Every server-given wait obeys maxRetryAfter: a server asking for longer is not retried.
      if (pushbackMs > config.maxRetryAfterMs) return this.stop('server-pushback');
      // gRPC A6: retry after exactly the pushback, and the backoff starts over.
      // @ko retry-pushback-exact
      waitMs = pushbackMs;
      this.backoffRetry = 0;
    } else {
      this.backoffRetry++;
      waitMs = backoffDelay(config.backoff, this.backoffRetry, this.previousDelayMs, u);
      if (
        config.honorRetryAfter &&
        // @eq retry-call-outcome-kind-response
        outcome.kind === 'response' &&
        // @eq retry-call-outcome-retryafter-outcome-retryafterms
        (outcome.retryAfter != null || outcome.retryAfterMs != null)
      ) {
        const hint = serverWait(outcome.retryAfter, outcome.retryAfterMs, nowMs);
        // @eq retry-call-hint-ok
        if (hint.ok) {
          // @ko retry-max-retry-after
          if (hint.delayMs > config.maxRetryAfterMs) return this.stop('server-pushback');
          // @ko retry-after-floor
          // @eq retry-call-hint-delayms-waitms-waitms
          if (hint.delayMs > waitMs) waitMs = hint.delayMs; // the server's hint is a floor on the wait
        }
      }
    }
    // @ko retry-deadline-would-pass
    if (this.deadlineMs !== null && deadlinePassed(this.deadlineMs, nowMs + waitMs))
      return this.stop('deadline-would-pass');
    this.previousDelayMs = waitMs;
    counters.retries++;
    return waitMs;
  }

  /**
   * The retry onOutcome() just granted was refused by a limit the driver holds (Envoy's circuit_breakers
   * `max_retries`, or its `retry_budget` on the concurrency breaker): the retry is not made, so it is not counted as
   * one, and the call ends as `budget-exhausted` on the answer its last attempt gave (what Envoy passes on). The claim
   * and status of that answer decide the relay mark, as for any budget refusal. Returns the stop reason; a call that
   * already ended keeps its own. Throws when no retry is pending (a driver bug).
   */
  refuseRetry(_nowMs: number): StopReason {
    if (this.stopReason !== null) return this.stopReason;
    if (this.inAttempt || !this.holdsRetrySlot) {
      throw new Error('RetryCall.refuseRetry: no retry is pending (call it right after onOutcome() granted one)');
    }
    // @ko retry-refused-uncounted
    this.policy.counters.retries--;
    this.end('budget-exhausted');
    return 'budget-exhausted';
  }

  /** Ends the call as aborted (the caller gave up) unless it already ended. Safe to call more than once. */
  abort(_nowMs: number): void {
    if (this.stopReason === null) this.end('aborted');
  }

  /**
   * Ends the call as deadline-exceeded unless it already ended: the deadline it inherited passed, and the driver heard
   * it from the inbound request (its signal) before its own timer. Not `aborted`: nobody gave up, time ran out.
   */
  expire(_nowMs: number): void {
    // @ko retry-inbound-deadline-expired
    if (this.stopReason === null) this.end('deadline-exceeded');
  }

  private releaseRetrySlot(): void {
    if (this.holdsRetrySlot) {
      this.holdsRetrySlot = false;
      this.budget.retryEnded();
    }
  }

  private end(reason: StopReason): void {
    this.releaseRetrySlot();
    this.stopReason = reason;
    this.budget.callEnded();
    this.policy.counters.callEnded(reason, this.attempts);
  }

  /** Ends the call; -1 is onOutcomeMs()'s "stop". */
  private stop(reason: StopReason): -1 {
    this.end(reason);
    return -1;
  }
}
