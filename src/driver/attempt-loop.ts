// The attempt loop both HTTP drivers share: policy.start -> beginAttempt -> send under a timer -> onOutcome -> sleep | finish.

import type { Outcome, StopReason } from '../policy/core/types.js';
import type { RetryCall } from '../policy/retry/retry.js';
import { RETRY_REFUSED } from '../policy/upstream/pipeline.js';
import { type AbortWaiter, stopWaiting, waitForAbort } from './abort-fanout.js';
import { type CallEventBase, giveUpObserved, publishGiveUp, publishRetry, retryObserved } from './attempt-events.js';
import { type AttemptTransport, NO_HEADERS } from './attempt-transport.js';
import { monotonicNowMs } from './clock.js';
import type { SeawallContext } from './context.js';
import { AttemptTimeoutError, isTimeoutReason, SeawallError } from './errors.js';
import { describeThrown, isGiveUp } from './events.js';
import type { CallRequest } from './options.js';
import { ABORTED } from './outcome.js';
import type { SeawallClient } from './seawall-client.js';
import type { AttemptTrace, ClientTelemetry } from './telemetry.js';
import { routedUrl } from './traits.js';
import type { CallAdmission, UpstreamRefusal } from './upstream/scopes.js';

export { type AttemptTransport, NO_HEADERS } from './attempt-transport.js';
export { SeawallClient } from './seawall-client.js';

const TIMEOUT: Outcome = { kind: 'timeout' };
/** A per-try timeout that fired before the request was sent (the policy decides what that means: classify.ts). */
const TIMEOUT_BEFORE_REQUEST: Outcome = { kind: 'timeout', stage: 'before-request' };
const LOCAL_ERROR: Outcome = { kind: 'local-error' };
/** A local limit refused the attempt before any I/O (upstream.ts). */
const SHED_LOCALLY: Outcome = { kind: 'shed-locally' };

/** setTimeout's longest delay (24.8 days): past it Node fires after 1 ms (a deadline 40 days out timed out at once). */
const MAX_TIMER_MS = 2_147_483_647;

function fireTimer(runner: CallRunner<unknown>): void {
  runner.onTimer();
}

const IDLE = 0;
const ATTEMPT = 1;
const SLEEPING = 2;
const ENDED = 3;

/** One logical call: drives a RetryCall through real time. Every decision is the policy's; this only keeps time. */
export class CallRunner<P> implements AbortWaiter {
  private state = IDLE;
  private call: RetryCall | undefined;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private trace: AttemptTrace | undefined;
  /** The telemetry the current attempt was started with (so its end goes to the same place). */
  private telemetry: ClientTelemetry | undefined;
  private startedMs = 0;
  private attemptStartedMs = 0;
  private lastStatus: number | null = null;
  private lastError: unknown;
  private extraHeaders: Record<string, string> | undefined;
  private propagate = true;
  /** The inbound request this call is made for: told how to mark the error it relays when this call fails. */
  private context: SeawallContext | undefined;
  /** The inbound request's signal (AsyncLocalStorage context): when it fires, this call is pointless. */
  contextSignal: AbortSignal | undefined;
  /** Believe the upstream's error claims (the client's `trustClaims`, else `propagate`): drivers read responses with it. */
  trustClaims = true;
  /** The permits of this call when the client has upstream policies (endpoints, breakers, limits). */
  private admission: CallAdmission | undefined;
  /** The last response was handed over (or rejected) because a local limit refused its retry. */
  private retryRefused = false;
  /** The call's budget key (events). */
  private upstream = '';

  constructor(
    private readonly client: SeawallClient,
    private readonly request: CallRequest,
    private readonly transport: AttemptTransport<P>,
  ) {}

  /** Starts the call; the first attempt is sent synchronously. */
  start(): void {
    if (this.state !== IDLE) return; // aborted before it started
    const settings = this.client.settings;
    const now = Date.now();
    this.startedMs = now;
    let call: RetryCall;
    try {
      const prepared = settings.prepare(this.request, now);
      this.extraHeaders = prepared.extraHeaders;
      this.propagate = prepared.propagate;
      this.trustClaims = prepared.trustClaims;
      this.context = prepared.context;
      this.contextSignal = prepared.contextSignal;
      call = settings.policy.start(now, prepared.traits, prepared.context ?? null);
      this.upstream = prepared.traits.upstream ?? '';
      this.admission = settings.upstreams?.admission(prepared.traits.upstream ?? '', this);
    } catch (error) {
      this.state = ENDED;
      this.transport.fail(error); // invalid per-call options (ConfigError)
      return;
    }
    this.call = call;
    const signal = this.request.signal;
    if (signal?.aborted) {
      this.abort(signal.reason, true);
      return;
    }
    if (this.contextSignal?.aborted) {
      this.abort(this.contextSignal.reason, false);
      return;
    }
    if (signal !== undefined) waitForAbort(signal, this);
    if (this.contextSignal !== undefined) waitForAbort(this.contextSignal, this);
    this.next();
  }

  /** The caller's or the inbound request's signal aborted (abort-fanout.ts). */
  onAbort(signal: AbortSignal): void {
    this.abort(signal.reason, signal === this.request.signal);
  }

  /** Is `attempt` the attempt in progress? */
  isCurrent(attempt: number): boolean {
    return this.state === ATTEMPT && attempt === this.attempt;
  }

  /** The one timer fired: the per-try timeout during an attempt, the end of the backoff sleep otherwise. */
  onTimer(): void {
    this.timer = undefined;
    if (this.state === SLEEPING) {
      this.next();
    } else if (this.state === ATTEMPT) {
      const attempt = this.attempt;
      const unsent = this.transport.unsent?.(attempt) === true;
      const reason = new AttemptTimeoutError(attempt, Date.now() - this.attemptStartedMs, unsent);
      this.settle(attempt, unsent ? TIMEOUT_BEFORE_REQUEST : TIMEOUT, undefined, reason);
      this.transport.cancel(attempt, reason);
    }
  }

  private startTimer(ms: number): void {
    // A shared callback with the runner as argument: no closure per timer.
    // @ko client-timer-cap
    const timer = setTimeout(fireTimer, Math.min(ms, MAX_TIMER_MS), this);
    // Per-try: the attempt's socket keeps the process alive meanwhile. Backoff: ref'd unless unrefBackoff (see options).
    if (this.state === ATTEMPT || this.client.settings.unrefBackoff) timer.unref();
    this.timer = timer;
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private next(): void {
    const call = this.call as RetryCall;
    const now = Date.now();
    const plan = call.beginAttempt(now);
    if ('stop' in plan) {
      this.finish(plan.stop, undefined);
      return;
    }
    this.state = ATTEMPT;
    const attempt = plan.attempt;
    this.attempt = attempt;
    this.attemptStartedMs = now;
    // Between the loop and the wire: the endpoint, the circuit breaker and the limits (a refusal sends nothing).
    const admission = this.admission;
    let target: string | undefined;
    if (admission !== undefined) {
      if (!admission.admit(monotonicNowMs(), attempt, this.transport.pool ?? null)) {
        this.settle(attempt, SHED_LOCALLY);
        return;
      }
      target = admission.target;
    }
    const extra = this.extraHeaders;
    let headers: Record<string, string>;
    if (this.propagate) {
      headers = plan.headers;
      if (extra !== undefined) Object.assign(headers, extra);
    } else {
      headers = extra === undefined ? NO_HEADERS : { ...extra };
    }
    // Inside the try: a user's tracer or propagator that throws ends the attempt as a local error, so the permits
    // taken above are released (and a retry's throw, from a timer callback, is not left uncaught).
    try {
      const telemetry = this.client.telemetry.at(now);
      if (telemetry !== undefined) {
        if (headers === NO_HEADERS) headers = {}; // room for the trace context
        this.telemetry = telemetry;
        const { method, origin, url } = this.request;
        this.trace =
          target === undefined
            ? telemetry.attemptStarted(method, origin, url, attempt, headers)
            : telemetry.attemptStarted(method, target, routedUrl(target, url), attempt, headers);
      }
      const timeoutMs = plan.perTryTimeoutMs;
      if (timeoutMs !== Number.POSITIVE_INFINITY) this.startTimer(Math.max(1, Math.ceil(timeoutMs)));
      this.transport.send(attempt, plan, headers, target);
    } catch (error) {
      this.settle(attempt, LOCAL_ERROR, undefined, error);
    }
  }

  /**
   * Reports how attempt `attempt` ended. Reports of an attempt that is no longer current (timed out, aborted) are
   * ignored. Returns true when `payload` was delivered to the caller.
   */
  settle(attempt: number, outcome: Outcome, payload?: P, error?: unknown): boolean {
    if (this.state !== ATTEMPT || attempt !== this.attempt) return false;
    this.clearTimer();
    const status = outcome.kind === 'response' && this.transport.statusless !== true ? outcome.status : null;
    if (status !== null) this.lastStatus = status;
    if (error !== undefined) this.lastError = error;
    this.endTrace(outcome, status, error);
    const now = Date.now();
    const call = this.call as RetryCall;
    // What follows an outcome is the guard pipeline's one step (policy/upstream/pipeline.ts); without guards, the policy's.
    let waitMs: number;
    try {
      waitMs = this.admission?.afterOutcome(call, outcome, monotonicNowMs(), now) ?? call.onOutcomeMs(outcome, now);
    } catch (fault) {
      // @ko client-decision-fault-contained
      return this.fault(attempt, outcome, payload, fault);
    }
    if (waitMs === RETRY_REFUSED) return this.refuseRetry(payload);
    if (waitMs < 0) return this.finish(call.stopReason as StopReason, payload);
    if (payload !== undefined) this.transport.discard(payload);
    this.state = SLEEPING;
    // Events cost nothing unless someone listens (a subscriber, or the onRetry hook).
    if (retryObserved(this.client))
      publishRetry(this.client, this.eventBase(now), attempt, waitMs, outcome, status, error);
    // A hook or a subscriber may have aborted the call meanwhile (the caller's signal): then no sleep follows.
    // @ko client-no-backoff-after-reentrant-abort
    if (this.state !== SLEEPING) return false;
    if (waitMs <= 0) queueMicrotask(() => this.onTimer());
    else this.startTimer(Math.ceil(waitMs));
    return false;
  }

  /**
   * undici put attempt `attempt` on a connection to write it: it counts as sent, a pending slot becomes a request slot.
   * False when max-requests refused it: the attempt has ended (shed-locally); the driver aborts it, nothing written.
   */
  connected(attempt: number): boolean {
    const admission = this.admission;
    // @ko pending-sent-at-connect
    if (admission === undefined || !this.isCurrent(attempt) || admission.sent()) return true;
    this.settle(attempt, SHED_LOCALLY);
    return false;
  }

  /**
   * The policy granted a retry that a local limit refused (Envoy's max_retries): the pipeline ended the call
   * (`RetryCall.refuseRetry`: budget-exhausted, the retry not counted), and the last response, if any, goes to the
   * caller as Envoy passes the upstream's answer on (rejected instead with rejectOnGiveUp).
   */
  private refuseRetry(payload: P | undefined): boolean {
    this.retryRefused = true;
    return this.finish((this.call as RetryCall).stopReason as StopReason, payload);
  }

  /**
   * Deciding on an outcome threw (one the policy could not read; drivers check theirs, this is the last line): the call
   * still ends once, in the policy (aborted: `active` returns to 0) and for the caller, with a TypeError saying so.
   */
  private fault(attempt: number, outcome: Outcome, payload: P | undefined, fault: unknown): boolean {
    this.lastError = fault;
    (this.call as RetryCall).abort(Date.now());
    this.end();
    if (payload !== undefined) this.transport.discard(payload);
    const why = describeThrown(fault);
    const message = `seawall: the outcome of attempt ${attempt} (${outcome.kind}) could not be read: ${why}`;
    this.transport.fail(new TypeError(message, { cause: fault }));
    return false;
  }

  private endTrace(outcome: Outcome, status: number | null, error: unknown): void {
    const trace = this.trace;
    if (trace === undefined) return;
    this.trace = undefined;
    this.telemetry?.attemptEnded(trace, outcome, status, error);
  }

  /**
   * Ends the call because the caller (`fromCaller`) or the inbound request gave up. A caller's abort rejects with the
   * caller's own reason, as fetch does; an inbound abort rejects with a SeawallError (reason 'aborted').
   */
  abort(reason: unknown, fromCaller: boolean): void {
    if (this.state === ENDED) return;
    if (!fromCaller) this.lastError = reason;
    // The inbound request's deadline passed (its signal's reason is a TimeoutError): deadline-exceeded, not aborted.
    const expired = !fromCaller && isTimeoutReason(reason);
    const inAttempt = this.state === ATTEMPT;
    const attempt = this.attempt;
    if (inAttempt) this.endTrace(ABORTED, null, reason);
    // Before the first attempt too, it ends in the policy (`active` returns to 0; a percent budget forgets it).
    if (expired) this.call?.expire(Date.now());
    else this.call?.abort(Date.now());
    this.end();
    if (inAttempt) this.transport.cancel(attempt, reason);
    const stop = this.call?.stopReason ?? 'aborted';
    this.published(stop);
    this.transport.fail(fromCaller ? reason : this.error(stop));
  }

  private end(): void {
    this.state = ENDED;
    this.clearTimer();
    this.admission?.callEnded(monotonicNowMs()); // an attempt in flight ends as aborted; a held retry slot is freed
    if (this.request.signal !== undefined) stopWaiting(this.request.signal, this);
    if (this.contextSignal !== undefined) stopWaiting(this.contextSignal, this);
    this.relay();
    this.transport.callEnded();
  }

  /**
   * The call has ended: if it was made inside an inbound request, note in the request's relay sink how an answer
   * relaying its failure is marked (RetryCall.relayMark: null, nothing to note, after a success, an abort or an answer
   * below 500; a relaying hop never claims; the middleware writes it on the handler's 5xx). Before the caller gets the
   * error or the final failed response, so the handler's answer always sees it.
   */
  private relay(): void {
    const context = this.context;
    const call = this.call;
    if (context === undefined || call === undefined) return;
    try {
      // @ko http-relayed-marking
      context.relay?.note(call.relayMark);
    } catch {
      // a hand-made context (frozen, or with something else than a RelaySink): nothing to mark
    }
  }

  /** The facts every event of this call carries (a refusal's too: CallAdmission). */ eventBase(
    now: number,
  ): CallEventBase {
    const request = this.request;
    return {
      client: this.client.kind,
      upstream: this.upstream,
      method: request.method,
      url: request.url,
      elapsedMs: now - this.startedMs,
    };
  }

  /** Tells `seawall:give-up` and onGiveUp, when the call ended on a give-up and someone listens. */
  private published(reason: StopReason): void {
    if (!isGiveUp(reason) || !giveUpObserved(this.client, reason)) return;
    const refusal = this.refusalFor(reason);
    const attempt = this.call?.attempts ?? 0;
    const { lastStatus: status, lastError: error } = this;
    const facts = { reason, attempt, attempts: this.attemptsSent(refusal), refusal, status, error };
    publishGiveUp(this.client, this.eventBase(Date.now()), facts);
  }

  private finish(reason: StopReason, payload: P | undefined): boolean {
    this.end();
    this.published(reason);
    if (payload !== undefined) {
      const rejectOnGiveUp = this.client.settings.rejectOnGiveUp;
      // With rejectOnGiveUp the last response goes to the caller only when Seawall did not give up on it.
      if (!rejectOnGiveUp || (reason !== 'aborted' && !isGiveUp(reason) && !this.retryRefused)) {
        this.transport.deliver(payload);
        return true;
      }
      this.transport.discard(payload);
    }
    this.transport.fail(this.error(reason));
    return false;
  }

  /** The local limit behind this stop, if any: a refused attempt ends `refused`, a refused retry budget-exhausted. */
  private refusalFor(reason: StopReason): UpstreamRefusal | null {
    const limit = this.admission?.refusal ?? null;
    return this.retryRefused || reason === 'refused' ? limit : null;
  }

  /** The policy counts a refused attempt as begun; errors and events count the attempts that were sent. */
  private attemptsSent(refusal: UpstreamRefusal | null): number {
    const attempts = this.call?.attempts ?? 0;
    return refusal !== null && !this.retryRefused ? attempts - 1 : attempts;
  }

  private error(reason: StopReason): SeawallError {
    const refusal = this.refusalFor(reason);
    return new SeawallError({
      reason,
      refusal,
      attempts: this.attemptsSent(refusal),
      lastStatus: this.lastStatus,
      lastError: this.lastError,
      elapsedMs: Date.now() - this.startedMs,
      method: this.request.method,
      url: this.request.url,
    });
  }
}
