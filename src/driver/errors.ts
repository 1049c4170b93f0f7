// SeawallError: why an outbound call failed, with the facts an operator needs (stop reason, attempts, last result, time).

import type { StopReason } from '../policy/core/types.js';
import { errorCode } from './outcome.js';
import type { UpstreamRefusal } from './upstream/scopes.js';

/** What a SeawallError knows about the call that failed. */
export interface SeawallErrorDetails {
  /** Why the call stopped (the policy's stop reason). */
  reason: StopReason;
  /** Attempts made, the first included. */
  attempts: number;
  /** Status of the last attempt that got a response, or null if none did. */
  lastStatus: number | null;
  /** The last transport error (connection refused, reset, timeout...), or undefined. */
  lastError?: unknown;
  /** Time from the start of the call to its end. */
  elapsedMs: number;
  /** Method and URL of the call, for the message. */
  method?: string;
  url?: string;
  /** The attempt (or retry) refused before any network I/O, and why (circuit breaker, limits, no endpoint). */
  refusal?: UpstreamRefusal | null;
}

const REASON_TEXT: Record<StopReason, string> = {
  succeeded: 'succeeded',
  'not-retryable': 'the failure is not retryable',
  'unsafe-to-retry': 'retrying could repeat a side effect (non-idempotent request without an idempotency key)',
  'body-not-replayable': 'the request body is a stream and cannot be sent twice',
  'attempts-exhausted': 'every attempt failed',
  'budget-exhausted': 'the retry budget is spent (the upstream is failing for many calls)',
  'server-pushback': 'the server asked not to retry',
  'deadline-would-pass': 'the next attempt could not finish before the deadline',
  'deadline-exceeded': 'the deadline passed',
  aborted: 'the call was aborted',
  'unclaimed-error': 'the error was relayed unclaimed: a hop below already spent its retries on it',
  'one-layer': 'inside a request from another Seawall hop this call makes one attempt: the outermost hop retries',
  refused: 'a local guard refused the attempt',
};

const REFUSAL_TEXT: Record<UpstreamRefusal, string> = {
  'breaker-open': 'the circuit breaker is open',
  'breaker-half-open-full': 'the circuit breaker is half-open and its probes are all out',
  'max-pending': 'limits.maxPendingRequests is reached (Envoy upstream_rq_pending_overflow)',
  'max-requests': 'limits.maxRequests is reached (Envoy upstream_rq_pending_overflow)',
  'max-retries': 'limits.maxRetries (or its retry budget) is reached (Envoy upstream_rq_retry_overflow)',
  'no-healthy-endpoint': 'every endpoint is ejected and the panic threshold is 0 (no healthy upstream)',
  throttled: "the adaptive throttle refused it: the upstream has been answering 'too much' (429, 503, pushback)",
};

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:80": an error's message and its causes'. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    messages.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(': ');
}

function describeLast(lastStatus: number | null, lastError: unknown): string {
  const parts: string[] = [];
  if (lastStatus !== null) parts.push(`last status ${lastStatus}`);
  if (lastError !== undefined) {
    const code = errorCode(lastError);
    parts.push(`last error ${code === undefined ? '' : `${code}: `}${causeMessages(lastError)}`);
  }
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

/** A call through createFetch or retryInterceptor that ended without a usable response. */
export class SeawallError extends Error {
  /** Stable across versions: match on `code`, branch on `reason`. */
  readonly code = 'SEAWALL_CALL_FAILED';
  readonly reason: StopReason;
  readonly attempts: number;
  readonly lastStatus: number | null;
  readonly lastError: unknown;
  readonly elapsedMs: number;
  /**
   * Set when Seawall refused an attempt or a retry itself, without network I/O (the policy's `shed-locally` outcome;
   * `reason` is then `refused`, or `budget-exhausted` for limits.maxRetries): which local limit refused it.
   */
  readonly refusal: UpstreamRefusal | null;

  constructor(details: SeawallErrorDetails) {
    const target =
      details.method !== undefined && details.url !== undefined ? `${details.method} ${details.url}: ` : '';
    const attempts = `${details.attempts} attempt${details.attempts === 1 ? '' : 's'}`;
    const refusal = details.refusal ?? null;
    const why =
      refusal === null
        ? `${REASON_TEXT[details.reason]} (${details.reason})`
        : `refused without sending: ${REFUSAL_TEXT[refusal]} (${refusal})`;
    super(
      `${target}${why} after ${attempts} in ${Math.round(details.elapsedMs)} ms${describeLast(details.lastStatus, details.lastError)}`,
      details.lastError === undefined ? undefined : { cause: details.lastError },
    );
    this.name = 'SeawallError';
    this.reason = details.reason;
    this.attempts = details.attempts;
    this.lastStatus = details.lastStatus;
    this.lastError = details.lastError;
    this.elapsedMs = details.elapsedMs;
    this.refusal = refusal;
  }
}

/** Why an attempt was cut short by its per-try timeout (or by the deadline): the abort reason and the call's lastError. */
export class AttemptTimeoutError extends Error {
  readonly code = 'SEAWALL_ATTEMPT_TIMEOUT';

  constructor(
    readonly attempt: number,
    readonly timeoutMs: number,
    /** The request had not been sent yet (its connection was still being set up, or it was queued for one). */
    readonly beforeRequest = false,
  ) {
    super(
      `attempt ${attempt} timed out after ${Math.round(timeoutMs)} ms${beforeRequest ? ' before its request was sent (no connection yet, or queued for one)' : ''}`,
    );
    this.name = 'TimeoutError';
  }
}

/** A signal's reason saying time ran out (the platform's TimeoutError: AbortSignal.timeout, the server's deadline). */
export function isTimeoutReason(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}
