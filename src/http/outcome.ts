// Maps what a real HTTP attempt ended with (an error or a response) to the policy's Outcome vocabulary.

import type { Outcome } from '../policy/types.js';

/** The server never saw the request: the connection could not be made. */
const CONNECT_FAILURE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The connection broke while the request was in flight. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);

/** Timeouts of the transport itself (undici's headersTimeout / bodyTimeout, a kernel-level timeout). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

const RESET_BEFORE_REQUEST: Outcome = { kind: 'reset', stage: 'before-request' };
const RESET_AFTER_REQUEST: Outcome = { kind: 'reset', stage: 'after-request' };
const RESET_MID_RESPONSE: Outcome = { kind: 'reset', stage: 'mid-response' };
const CONNECT_FAILURE: Outcome = { kind: 'connect-failure' };
const TIMEOUT: Outcome = { kind: 'timeout' };
const LOCAL_ERROR: Outcome = { kind: 'local-error' };
export const ABORTED: Outcome = { kind: 'aborted' };

/**
 * The error code carried by an error or by its causes: fetch wraps undici's error in `TypeError('fetch failed',
 * { cause })`, and a failed happy-eyeballs connect is an AggregateError whose members carry the code.
 */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = errorCode(errors[0]);
      if (inner !== undefined) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * How far an attempt had got when it failed, as far as the driver can tell:
 * - UNSENT: the request was provably not written (the driver saw no byte go: undici never started it on a connection);
 * - SENT: it may have been written, and no response had begun (the driver cannot tell more: fetch);
 * - RESPONDING: the status and headers had arrived.
 */
export const UNSENT = 0;
export const SENT = 1;
export const RESPONDING = 2;
export type AttemptProgress = typeof UNSENT | typeof SENT | typeof RESPONDING;

/**
 * The outcome of an attempt that failed with `error`. A connect error after the response began cannot be one; a
 * reset is `before-request` only when the request provably was not written (replaying a POST is safe then), else the
 * server may have acted on it (semantics.md §7).
 */
export function outcomeOfError(error: unknown, progress: AttemptProgress): Outcome {
  const code = errorCode(error);
  if (code !== undefined) {
    if (RESET_CODES.has(code)) return resetAt(progress);
    if (CONNECT_FAILURE_CODES.has(code)) return progress === RESPONDING ? RESET_MID_RESPONSE : CONNECT_FAILURE;
    if (TIMEOUT_CODES.has(code)) return TIMEOUT;
  }
  // A body cut short without a socket error code (e.g. fetch's "terminated") is still a reset once the response began.
  if (progress === RESPONDING && !(error instanceof Error && error.name === 'AbortError')) return RESET_MID_RESPONSE;
  return LOCAL_ERROR;
}

function resetAt(progress: AttemptProgress): Outcome {
  return progress === UNSENT ? RESET_BEFORE_REQUEST : progress === SENT ? RESET_AFTER_REQUEST : RESET_MID_RESPONSE;
}

/** A short label for telemetry's error.type: the error code, or the error's name. */
export function errorType(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.name : '_OTHER');
}
