// Maps what a real HTTP attempt ended with (an error or a response) to the policy's Outcome vocabulary.

import type { Outcome } from '../policy/core/types.js';

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
  'SEAWALL_CONNECT_ABANDONED', // a connection closed by Seawall while still connecting (connector.ts)
]);

/** Certificate verification failures (OpenSSL's X509_V_ERR_* as node names them): they happen only in a handshake. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'EPROTO', // "write EPROTO ... SSL routines": an OpenSSL error on the handshake's write (older nodes)
]);

/** Node's ECONNRESET when the peer closed the socket during the handshake (_tls_wrap.js onConnectEnd). */
const CLOSED_IN_HANDSHAKE = 'before secure TLS connection was established';

/**
 * Did the TLS handshake fail (the connection never became usable, so the server never saw a request)? Node's TLS and
 * OpenSSL errors (`ERR_SSL_*`, `ERR_TLS_*`, `ERR_TLS_CERT_ALTNAME_INVALID`), certificate verification (`CERT_*`,
 * `DEPTH_ZERO_SELF_SIGNED_CERT`, ...), EPROTO, and the peer closing the socket mid-handshake. Envoy counts a failed
 * handshake as a connect failure (`upstream_cx_connect_fail`, a local-origin failure for outlier detection): so does
 * every Seawall driver, through this one rule.
 */
export function isHandshakeFailure(code: string, message: string): boolean {
  return (
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('CERT_') ||
    CERTIFICATE_CODES.has(code) ||
    (code === 'ECONNRESET' && message.includes(CLOSED_IN_HANDSHAKE))
  );
}

/**
 * The connection (or HTTP/2 stream) broke while the request was in flight: socket errors, undici's "informational"
 * transport errors (HTTP/2 stream closed early, GOAWAY, a socket reset for reuse), node's HTTP/2 stream errors.
 */
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'ECONNABORTED',
  'UND_ERR_INFO',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
]);

/**
 * HTTP/2 REFUSED_STREAM: the server guarantees it did not process the stream (RFC 9113 §8.7), so even a POST may be
 * sent again. undici and node report it only in the message of an ERR_HTTP2_STREAM_ERROR.
 */
const REFUSED_STREAM = 'NGHTTP2_REFUSED_STREAM';

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
  return codedError(error)?.code;
}

/** The first error along the cause chain (or an AggregateError's members) that carries a string code. */
function codedError(error: unknown): { code: string; message: string; syscall: unknown } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const message = (current as { message?: unknown }).message;
      return {
        code,
        message: typeof message === 'string' ? message : '',
        syscall: (current as { syscall?: unknown }).syscall,
      };
    }
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = codedError(errors[0]);
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
 * server may have acted on it (semantics.md §7). `onConnection`: the driver knows the attempt got an established
 * connection (past any TLS handshake); drivers that cannot tell (fetch) leave it false.
 */
export function outcomeOfError(error: unknown, progress: AttemptProgress, onConnection = false): Outcome {
  const coded = codedError(error);
  if (coded !== undefined) {
    const code = coded.code;
    // A failed TLS handshake is a failed connect: never sent, safe to send again elsewhere. `onConnection`: the driver
    // saw the request put on an established connection (undici's onConnect), so a TLS error came after the handshake.
    // @ko tls-handshake-connect-failure
    if (isHandshakeFailure(code, coded.message)) {
      if (onConnection) return resetAt(progress === UNSENT ? SENT : progress);
      return progress === RESPONDING ? RESET_MID_RESPONSE : CONNECT_FAILURE;
    }
    if (RESET_CODES.has(code)) {
      // A refused stream was never processed, whatever the driver could see of the request's bytes.
      if (progress !== RESPONDING && coded.message.includes(REFUSED_STREAM)) return RESET_BEFORE_REQUEST;
      // A reset of the connect itself (syscall 'connect') came before any request byte, whatever the driver saw.
      // "Not yet on a connection" alone proves nothing (a dispatcher below might not report it): such a reset may
      // have followed the request's bytes.
      if (progress !== RESPONDING && coded.syscall === 'connect') return RESET_BEFORE_REQUEST;
      return resetAt(progress === UNSENT ? SENT : progress);
    }
    if (CONNECT_FAILURE_CODES.has(code)) return progress === RESPONDING ? RESET_MID_RESPONSE : CONNECT_FAILURE;
    if (TIMEOUT_CODES.has(code)) return TIMEOUT;
  }
  // A body cut short without a socket error code (e.g. fetch's "terminated") is still a reset once the response began.
  if (progress === RESPONDING && !(error instanceof Error && error.name === 'AbortError')) return RESET_MID_RESPONSE;
  return LOCAL_ERROR;
}

function resetAt(progress: AttemptProgress): Outcome {
  return progress === SENT ? RESET_AFTER_REQUEST : RESET_MID_RESPONSE;
}

/** A short label for telemetry's error.type: the error code, or the error's name. */
export function errorType(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.name : '_OTHER');
}
