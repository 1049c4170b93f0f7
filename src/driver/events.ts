// Seawall's events on node:diagnostics_channel (retries, give-ups, budget refusals, sheds, drops, cancels) and the hooks.

import diagnostics from 'node:diagnostics_channel';
import type { OutcomeKind, StopReason } from '../policy/core/types.js';
import type { BreakerChangeCause, BreakerState } from '../policy/upstream/breaker.js';
import type { UpstreamRefusal } from '../policy/upstream/hold.js';
import type { EjectionReason } from '../policy/upstream/outlier-types.js';

/** The channel names, one per mechanism (`diagnostics_channel.subscribe(SEAWALL_CHANNELS.retry, fn)`). */
export const SEAWALL_CHANNELS = Object.freeze({
  /** A client (createFetch, retryInterceptor, execute) is about to retry: the attempt failed, the policy granted a retry. */
  retry: 'seawall:retry',
  /** A client gave up on a failure it wanted to retry (attempts, budget or deadline spent, pushback, unsafe replay). */
  giveUp: 'seawall:give-up',
  /** A client's retry was refused by the retry budget (or by the local limit maxRetries). */
  budgetRefused: 'seawall:budget-refused',
  /** The server middleware answered 503: its queue was full (load shedding). */
  shed: 'seawall:shed',
  /** The server middleware answered 504 without running the handler: the request's deadline had passed. */
  drop: 'seawall:drop',
  /** The client of an admitted (running or queued) request went away: its signal fired. */
  cancel: 'seawall:cancel',
  /** A client's circuit breaker changed state: open, half-open, closed. */
  breaker: 'seawall:breaker',
  /** A client's outlier detection ejected an endpoint, or let it back. */
  ejection: 'seawall:ejection',
  /** A local guard of a client (breaker, limits, no healthy endpoint) refused an attempt before sending it. */
  refused: 'seawall:refused',
});

/** Which client driver published a client event. */
export type ClientKind = 'fetch' | 'undici' | 'execute';

/** Facts shared by the client events. Plain data: nothing in it reaches the policy. */
interface ClientEventBase {
  /** The driver that made the call. */
  readonly client: ClientKind;
  /** The budget key of the call (the `upstream` option, else the request's origin). */
  readonly upstream: string;
  /** HTTP method, or `execute` for execute(). */
  readonly method: string;
  /** The URL (HTTP), or the upstream name (execute). */
  readonly url: string;
  /** Time since the call started (ms). */
  readonly elapsedMs: number;
}

/** `seawall:retry` and onRetry: attempt `attempt` failed and attempt `attempt + 1` starts in `delayMs`. */
export interface RetryEvent extends ClientEventBase {
  /** The attempt that failed (1 = the first try). */
  readonly attempt: number;
  /** The wait before the next attempt (ms): backoff, or the server's Retry-After when longer. */
  readonly delayMs: number;
  /** How the failed attempt ended, in the policy's vocabulary (response, timeout, reset, connect-failure...). */
  readonly outcome: OutcomeKind;
  /** Its status (HTTP responses), else null. */
  readonly status: number | null;
  /** What it threw (a transport error, the per-try timeout's AttemptTimeoutError, fn's error), else undefined. */
  readonly error: unknown;
}

/** `seawall:give-up` and onGiveUp: the call ended on a failure Seawall wanted to retry, and did not. */
export interface GiveUpEvent extends ClientEventBase {
  /** Why: attempts-exhausted, budget-exhausted, deadline-would-pass, deadline-exceeded, server-pushback, ... */
  readonly reason: StopReason;
  /** Attempts sent, the first included. */
  readonly attempts: number;
  /** Status of the last response (HTTP), else null. */
  readonly status: number | null;
  /** The last error, else undefined. */
  readonly error: unknown;
  /** A local limit that refused the call without sending (breaker, limits), else null. */
  readonly refusal: UpstreamRefusal | null;
}

/** `seawall:budget-refused`: the policy granted everything but the budget (or a local maxRetries limit) for a retry. */
export interface BudgetRefusedEvent extends ClientEventBase {
  /** The attempt whose retry was refused. */
  readonly attempt: number;
  /** null: the policy's retry budget; 'max-retries': the client's limits.maxRetries (Envoy's retry overflow). */
  readonly refusal: UpstreamRefusal | null;
  readonly status: number | null;
  readonly error: unknown;
}

/** `seawall:refused` and onRefused: a local guard refused attempt `attempt` of a call; nothing was sent. */
export interface RefusedEvent extends ClientEventBase {
  /** The attempt refused (1 = the first try: the call then ends `refused` without sending anything). */
  readonly attempt: number;
  /** Which guard: breaker-open, breaker-half-open-full, max-pending, max-requests, max-retries, no-healthy-endpoint, throttled. */
  readonly refusal: UpstreamRefusal;
}

/** `seawall:breaker` and onBreak / onHalfOpen / onReset: a circuit breaker changed state. */
export interface BreakerEvent {
  /** The upstream scope whose breaker it is (the client's `upstream`, or the budget key). */
  readonly upstream: string;
  /** The new state, and the one it left. */
  readonly state: BreakerState;
  readonly previous: BreakerState;
  /** failures, probe-failed, probe-expired (to open); break-over (to half-open); probes-succeeded (to closed). */
  readonly cause: BreakerChangeCause;
  /** The break this open period lasts (ms) when `state` is open, else 0. */
  readonly breakDurationMs: number;
}

/** `seawall:ejection` and onEject / onUneject: outlier detection ejected an endpoint, or let it back. */
export interface EjectionEvent {
  readonly upstream: string;
  /** The endpoint's origin. */
  readonly endpoint: string;
  /** true: ejected now; false: back in the pool. */
  readonly ejected: boolean;
  /** Why it was ejected: consecutive-5xx, consecutive-gateway-failure, success-rate, failure-percentage. */
  readonly reason: EjectionReason;
  /** How long it stays out (ejected), or how long it was out (back), in ms. */
  readonly ejectionTimeMs: number;
  /** Endpoints out of the pool after this change. */
  readonly ejectionsActive: number;
}

/** Facts shared by the server events. */
interface ServerEventBase {
  /** The middleware's `name` option (default 'default'). */
  readonly service: string;
  /** The request's deadline (epoch ms), or null when it has none. */
  readonly deadlineMs: number | null;
}

/** `seawall:shed`: a request refused with 503 because the queue was full. */
export interface ShedEvent extends ServerEventBase {
  readonly status: 503;
  readonly reason: 'queue-full';
  /** The Retry-After asked of the caller (ms). */
  readonly retryAfterMs: number;
  /** Requests running and queued when it was refused. */
  readonly inFlight: number;
  readonly queued: number;
}

/** `seawall:drop`: a request answered 504 without running, its deadline passed (on arrival, or while queued). */
export interface DropEvent extends ServerEventBase {
  readonly status: 504;
  readonly reason: 'deadline-passed';
  /** `arrival`: expired when it came; `queue`: expired while waiting for a worker. */
  readonly stage: 'arrival' | 'queue';
  /** Time it waited in the queue (ms; 0 on arrival). */
  readonly waitedMs: number;
}

/** `seawall:cancel`: the client of an admitted request went away before the response finished. */
export interface CancelEvent extends ServerEventBase {
  /** `running`: the handler was running (its signal fired); `queued`: it was waiting for a worker (its place freed). */
  readonly stage: 'running' | 'queued';
}

/** The callbacks a client takes besides the channels (createFetch, retryInterceptor, createExecutor). */
export interface ClientHooks {
  /**
   * Called before each retry's wait starts. A hook that throws does not change the call: the error is reported once
   * per client as a process warning (code SEAWALL_HOOK_FAILED) and later throws are ignored.
   */
  onRetry?: (event: RetryEvent) => void;
  /** Called when the call ends on a failure Seawall wanted to retry (a give-up). Throws are handled as onRetry's. */
  onGiveUp?: (event: GiveUpEvent) => void;
  /** A local guard refused an attempt (seawall:refused). */
  onRefused?: (event: RefusedEvent) => void;
  /** The circuit breaker opened (cockatiel's onBreak, opossum's 'open'). */
  onBreak?: (event: BreakerEvent) => void;
  /** The circuit breaker half-opened: the next attempts are probes (opossum's 'halfOpen'). */
  onHalfOpen?: (event: BreakerEvent) => void;
  /** The circuit breaker closed again (cockatiel's onReset, opossum's 'close'). */
  onReset?: (event: BreakerEvent) => void;
  /** Outlier detection ejected an endpoint. */
  onEject?: (event: EjectionEvent) => void;
  /** An ejected endpoint is back in the pool. */
  onUneject?: (event: EjectionEvent) => void;
}

/** The hook names of ClientHooks (options are checked against them). */
export const HOOK_NAMES = [
  'onRetry',
  'onGiveUp',
  'onRefused',
  'onBreak',
  'onHalfOpen',
  'onReset',
  'onEject',
  'onUneject',
] as const;

export const retryChannel = diagnostics.channel(SEAWALL_CHANNELS.retry);
export const giveUpChannel = diagnostics.channel(SEAWALL_CHANNELS.giveUp);
export const budgetRefusedChannel = diagnostics.channel(SEAWALL_CHANNELS.budgetRefused);
export const shedChannel = diagnostics.channel(SEAWALL_CHANNELS.shed);
export const dropChannel = diagnostics.channel(SEAWALL_CHANNELS.drop);
export const cancelChannel = diagnostics.channel(SEAWALL_CHANNELS.cancel);
export const breakerChannel = diagnostics.channel(SEAWALL_CHANNELS.breaker);
export const ejectionChannel = diagnostics.channel(SEAWALL_CHANNELS.ejection);
export const refusedChannel = diagnostics.channel(SEAWALL_CHANNELS.refused);

/** Stop reasons that are a give-up: the policy's one set, beside StopReason (policy/types.ts GIVE_UP_REASONS). */
export { isGiveUp } from '../policy/core/types.js';

/** What a hook threw, as text, whatever it threw (an object String() cannot convert must not escape the catch). */
export function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return `a value that cannot be shown (${typeof error})`;
  }
}

/** Runs a user's hook; a throw is reported once per client (`warned`) as a warning and never reaches the call. */
export function callHook<E>(hook: (event: E) => void, event: E, name: string, warned: Set<string>): void {
  try {
    hook(event);
  } catch (error) {
    if (warned.has(name)) return;
    warned.add(name);
    const message = describeThrown(error);
    process.emitWarning(`seawall: the ${name} hook threw (ignored; later throws are not reported): ${message}`, {
      code: 'SEAWALL_HOOK_FAILED',
    });
  }
}
