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

const RESET: Outcome = { kind: 'reset' };
const RESET_MID_RESPONSE: Outcome = { kind: 'reset', midResponse: true };
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
 * The outcome of an attempt that failed with `error`. `responseStarted`: the status and headers had arrived, so a reset
 * is mid-response (the server saw the request) and a connect error cannot be one.
 */
export function outcomeOfError(error: unknown, responseStarted: boolean): Outcome {
  const code = errorCode(error);
  if (code !== undefined) {
    if (RESET_CODES.has(code)) return responseStarted ? RESET_MID_RESPONSE : RESET;
    if (CONNECT_FAILURE_CODES.has(code)) return responseStarted ? RESET_MID_RESPONSE : CONNECT_FAILURE;
    if (TIMEOUT_CODES.has(code)) return TIMEOUT;
  }
  // A body cut short without a socket error code (e.g. fetch's "terminated") is still a reset once the response began.
  if (responseStarted && !(error instanceof Error && error.name === 'AbortError')) return RESET_MID_RESPONSE;
  return LOCAL_ERROR;
}

/** A short label for telemetry's error.type: the error code, or the error's name. */
export function errorType(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.name : '_OTHER');
}

/** One response header value (undici gives arrays for repeated headers; the first one counts). */
export function firstHeader(value: string | string[] | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : value[0];
}
