// Shared vocabulary of the policy core: outcomes, request traits, stop reasons and decisions.

/** A header's value as drivers see it: one line, several lines (undici, node), or absent. */
export type HeaderValue = string | readonly string[] | null | undefined;

/**
 * What a caller read off a failed attempt:
 * - `claimed`: the callee's own error (its fault, its own 503 or 504);
 * - `criteria-met`: relayed, but a hop below wanted a retry and had none configured (the at-least-once flag);
 * - `unclaimed`: relayed after the retries below were spent (or it was never retryable below): nobody above retries;
 * - `absent`: no (trusted) claim: an uncooperative callee, a dropped context, a timeout or a reset with no response.
 */
export type Claim = 'claimed' | 'criteria-met' | 'unclaimed' | 'absent';

/**
 * Retry conditions, in Envoy's vocabulary where Envoy has a name for them:
 * - `5xx`: any 5xx response, a connect failure or a reset (Envoy's `5xx` includes both);
 * - `gateway-error`: 502, 503, 504; `reset`: a reset before the response was complete (replayed only when safe: see
 *   classifyOutcome); `reset-before-request`: only a reset that provably came before the server saw the request;
 *   `connect-failure`;
 * - `retriable-4xx`: 409; `timeout`: the per-try timeout fired;
 * - `4xx`: any 4xx (Seawall's name, for modelling naive helpers that retry every error status);
 * - a number: that status code.
 */
export type RetryCondition =
  | '5xx'
  | 'gateway-error'
  | 'reset'
  | 'reset-before-request'
  | 'connect-failure'
  | 'retriable-4xx'
  | 'timeout'
  | '4xx'
  | number;

/** `retryOn` compiled for O(1) lookups. */
export interface RetryOnSet {
  readonly statuses: ReadonlySet<number>;
  readonly timeout: boolean;
  /** Every reset (safety still applies). */
  readonly reset: boolean;
  /** Resets that provably came before the request reached the server (implied by `reset`). */
  readonly resetBeforeRequest: boolean;
  readonly connectFailure: boolean;
  readonly conditions: readonly RetryCondition[];
}

/** How far an exchange had got when its connection or stream was reset (see Outcome `reset`). */
export type ResetStage = 'before-request' | 'after-request' | 'mid-response';

/** What one attempt ended with, as a driver observed it (real socket or simulated message). */
export type Outcome =
  | {
      kind: 'response';
      status: number;
      /** Raw `Retry-After` header value(s), if any (parsed by the policy, never by drivers). */
      retryAfter?: HeaderValue;
      /** Raw `retry-after-ms` header value(s): the finer companion of Retry-After that Seawall's server sends. */
      retryAfterMs?: HeaderValue;
      /** Raw `grpc-retry-pushback-ms` header value(s), if any. */
      pushbackMs?: HeaderValue;
      /** The error's claim, as hop.ts `responseOutcome` read it (ownership.ts); absent when not given. */
      claim?: Claim | undefined;
    }
  /** The connection could not be established: the server never saw the request. */
  | { kind: 'connect-failure' }
  /**
   * The connection (or HTTP/2 stream) was reset before the response was complete. `stage` says how far the exchange
   * had got, which decides whether a replay is safe:
   * - `before-request`: provably before the server saw the request (the request was never written, or an HTTP/2
   *   REFUSED_STREAM): a replay is safe for any method (Envoy's `reset-before-request`);
   * - `after-request` (the default, when the driver cannot tell): the request may have reached the server, which may
   *   have acted on it: only a replay-safe request may be retried;
   * - `mid-response`: the status and headers had arrived: as `after-request`.
   */
  | { kind: 'reset'; stage?: ResetStage | undefined }
  /**
   * The per-try timeout fired before a response arrived. With stage `before-request`, the request had not been sent
   * yet (still waiting for its connection: a hung connect or TLS handshake, or queued behind others): a replay is safe
   * for any method, and it is retried when `retryOn` has `timeout` or `connect-failure`.
   */
  | { kind: 'timeout'; stage?: 'before-request' | undefined }
  /** The caller (user code, or the user who gave up) aborted the call. */
  | { kind: 'aborted' }
  /** A local limit refused to send the attempt (e.g. a breaker or a local concurrency limit). */
  | { kind: 'shed-locally' }
  /** The attempt failed inside the caller's own process (invalid request, closed client): says nothing about the upstream. */
  | { kind: 'local-error' };

export type OutcomeKind = Outcome['kind'];

/** What the policy needs to know about one logical call. */
export interface RequestTraits {
  /** HTTP method; GET/HEAD/OPTIONS/TRACE/PUT/DELETE are idempotent by RFC 9110. Default 'GET'. */
  method?: string | undefined;
  /** Overrides the method's idempotency. */
  idempotent?: boolean | undefined;
  /** The request carries an idempotency key, so the server can deduplicate a replay. */
  hasIdempotencyKey?: boolean | undefined;
  /** False for a body that can be read only once (a stream): such a call is sent once. Default true. */
  bodyReplayable?: boolean | undefined;
  /**
   * The call's own absolute deadline (ms on the same clock as `now`). It can shorten the inherited deadline and the
   * policy's own, never extend them: the call's deadline is the earliest of the three.
   */
  deadlineMs?: number | null | undefined;
  /** The deadline inherited from the inbound request being handled (a hop's deadline), if any. */
  inheritedDeadlineMs?: number | null | undefined;
  /** Per-call cap on the per-try timeout (ms > 0): can only shorten the policy's. */
  perTryTimeoutMs?: number | undefined;
  /** Key of the upstream (origin); each key gets its own budget. Default ''. */
  upstream?: string | undefined;
  /** Per-call override: at most this many attempts (can only lower the policy's value). */
  maxAttempts?: number | undefined;
  /**
   * The call is made while handling a request that came from another Seawall hop (it carried the attempt header).
   * With the default layer choice (the outermost Seawall hop retries) such a call makes a single attempt and passes the
   * deadline on, whatever `maxAttempts` says, unless `oneLayer` is false or the policy uses `ownership`.
   */
  fromSeawallHop?: boolean | undefined;
  /** Applies the one-layer rule to this call (default true); false lets a call inside a Seawall hop retry. */
  oneLayer?: boolean | undefined;
  /**
   * Per-call override of the policy's `retryOn` (the caller's own code, never incoming headers). A list is compiled at
   * `start` and throws ConfigError when invalid; pass a set from `compileRetryConditions` to compile it once.
   */
  retryOn?: readonly RetryCondition[] | RetryOnSet | undefined;
}

/**
 * Why a call ended. Every started call ends in exactly one of these.
 * - succeeded: a successful (status < 400) response.
 * - not-retryable: the outcome does not match `retryOn` (e.g. 404), or the policy never retries it.
 * - unsafe-to-retry: the outcome matches `retryOn` but retrying could repeat a side effect
 *   (non-idempotent request without an idempotency key on 500/timeout).
 * - body-not-replayable: retryable, but the request body cannot be sent twice.
 * - attempts-exhausted: `maxAttempts` attempts were made.
 * - budget-exhausted: the retry budget denied the retry.
 * - server-pushback: the server said not to retry (negative or malformed grpc-retry-pushback-ms).
 * - deadline-would-pass: waiting for the next attempt would reach the deadline.
 * - deadline-exceeded: no time was left to start an attempt.
 * - aborted: the caller aborted.
 * - unclaimed-error: with `ownership`, the error was relayed unclaimed: a hop below already spent its retries on it.
 * - one-layer: retryable, but the call runs inside a request from another Seawall hop, so it makes one attempt and the
 *   outermost hop retries (retriesAtOneLayer); `maxAttempts` was not spent.
 * - refused: a local guard (circuit breaker, limits, no healthy endpoint) refused the attempt before any I/O; the
 *   driver's `refusal` says which. A refused first attempt ends here too: nothing was sent.
 */
export const STOP_REASONS = [
  'succeeded',
  'not-retryable',
  'unsafe-to-retry',
  'body-not-replayable',
  'attempts-exhausted',
  'budget-exhausted',
  'server-pushback',
  'deadline-would-pass',
  'deadline-exceeded',
  'aborted',
  'unclaimed-error',
  'one-layer',
  'refused',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The stop reasons that are a GIVE-UP: the policy stopped retrying a failure it would have retried, because
 * something ran out or forbade the next attempt (attempts, budget, time, the server's pushback, a body that cannot be
 * sent twice, the one-layer rule, a local guard refusing the attempt: the first one too). Every driver publishes `seawall:give-up` / onGiveUp for exactly these, and `rejectOnGiveUp` rejects
 * exactly these. NOT give-ups: `succeeded`; `aborted` (the caller stopped); and the failures this call never retries
 * whatever it has left, whose response is the caller's answer: `not-retryable` (the outcome does not match
 * `retryOn`), `unsafe-to-retry` (the request's own traits forbid a replay: non-idempotent, no key; known before the
 * first attempt) and `unclaimed-error` (with ownership, a hop below already retried it and published its own
 * give-up; counting it again at every hop above would turn one failure into one give-up per layer).
 */
export const GIVE_UP_REASONS: ReadonlySet<StopReason> = new Set<StopReason>([
  'body-not-replayable',
  'attempts-exhausted',
  'budget-exhausted',
  'server-pushback',
  'deadline-would-pass',
  'deadline-exceeded',
  'one-layer',
  'refused',
]);

/** Is a call that stopped for `reason` a give-up (GIVE_UP_REASONS)? */
export function isGiveUp(reason: StopReason): boolean {
  // @ko give-up-set
  return GIVE_UP_REASONS.has(reason);
}

/** The policy's answer after an attempt: wait and try again, or stop. */
export type Decision = { retryAfterMs: number } | { stop: StopReason };
