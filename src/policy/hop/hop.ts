// What crosses a hop, decided once for every driver: what a request brings in, what an attempt and an answer send out.

import type { Outcome } from '../core/types.js';
import {
  ABSOLUTE_DEADLINE_HEADER,
  DEADLINE_SKEW_TOLERANCE_MS,
  ENVOY_EXPECTED_TIMEOUT_HEADER,
  encodeAbsoluteDeadline,
  encodeGrpcTimeout,
  GRPC_TIMEOUT_HEADER,
  type HeaderSource,
  headerValue,
  readDeadline,
} from './deadline.js';
import { CLAIM_HEADER, CRITERIA_MET_HEADER, errorClaimHeaders, type RelayedClaim, readClaim } from './ownership.js';
import { formatRetryAfter, formatRetryAfterMs, type HeaderValue, RETRY_AFTER_MS_HEADER } from './retry-after.js';

export { CLAIM_HEADER, CRITERIA_MET_HEADER };
/** Header carrying the attempt number (1, 2, ...), like Envoy's x-envoy-attempt-count. Its presence marks a Seawall hop. */
export const ATTEMPT_HEADER = 'x-seawall-attempt';
/** The request headers a Seawall hop reads (counted as untrusted when they arrive from outside the trust boundary). */
export const HOP_REQUEST_HEADERS: readonly string[] = Object.freeze([
  GRPC_TIMEOUT_HEADER,
  ENVOY_EXPECTED_TIMEOUT_HEADER,
  ABSOLUTE_DEADLINE_HEADER,
  ATTEMPT_HEADER,
]);
/** The status a hop answers with when a required call below got no answer (a timeout, its deadline) or work expired. */
export const GATEWAY_TIMEOUT = 504;
export const RETRY_AFTER_HEADER = 'retry-after';
export const PUSHBACK_HEADER = 'grpc-retry-pushback-ms';

/** A callee's own answer instead of running the work, as data: every adapter and the simulator send exactly this. */
export type Refusal =
  | {
      readonly status: 503;
      readonly reason: 'queue-full';
      /** The wait asked of the caller (ms, whole). */
      readonly retryAfterMs: number;
      /** The Retry-After value sent: RFC 9110 integer seconds, rounded up. */
      readonly retryAfter: string;
      /** Every header of the refusal (lower-case names), body-framing headers aside. */
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      readonly status: 504;
      readonly reason: 'deadline-passed';
      readonly headers: Readonly<Record<string, string>>;
    };

/**
 * The 503 for a full queue: `Retry-After` in RFC 9110's integer delay-seconds (rounded up: integer-parsing clients
 * read "0.2" as 0 and retry at once) and the exact wait in `retry-after-ms`, which Seawall's client prefers.
 */
export function queueFullRefusal(retryAfterMs: number): Extract<Refusal, { status: 503 }> {
  const wholeMs = Math.ceil(retryAfterMs);
  const retryAfter = formatRetryAfter(wholeMs);
  return Object.freeze({
    status: 503 as const,
    reason: 'queue-full' as const,
    retryAfterMs: wholeMs,
    retryAfter,
    headers: Object.freeze({
      [RETRY_AFTER_HEADER]: retryAfter,
      [RETRY_AFTER_MS_HEADER]: formatRetryAfterMs(wholeMs),
      ...errorClaimHeaders(null),
    }),
  });
}

/** The 504 for work whose deadline passed before it ran (on arrival or while it waited). */
export const DEADLINE_REFUSAL: Extract<Refusal, { status: 504 }> = Object.freeze({
  status: GATEWAY_TIMEOUT as 504,
  reason: 'deadline-passed' as const,
  headers: errorClaimHeaders(null),
});

/** True once `nowMs` reaches the deadline: the one expiry test (callee admission, queue drain, attempts, lateness). */
export function deadlinePassed(deadlineMs: number, nowMs: number): boolean {
  return nowMs >= deadlineMs;
}

// ---- what a request brings in -------------------------------------------------------------------------------

/** The facts an inbound request brings, after the trust rule and the deadline precedence. */
export interface InboundHop {
  /** Absolute deadline (ms, the reader's clock), or null when none (or none trusted) came with it. */
  readonly deadlineMs: number | null;
  /** It came from another Seawall hop (it carried the attempt marker). */
  readonly fromSeawallHop: boolean;
}

/** An inbound read with what the server counts: a malformed deadline, one capped, one skewed beyond the tolerance. */
export interface InboundRead extends InboundHop {
  /** The caller's attempt number (`x-seawall-attempt`: 1 = its first try), or null when absent or not 1–999999. */
  readonly attempt: number | null;
  readonly malformed: boolean;
  readonly capped: boolean;
  readonly skewed: boolean;
}

const PLAIN: InboundRead = Object.freeze({
  deadlineMs: null,
  fromSeawallHop: false,
  attempt: null,
  malformed: false,
  capped: false,
  skewed: false,
});

/** Shared reads of a hop without a deadline, by attempt number (index 0: a malformed number): no allocation. */
const HOP_WITHOUT_DEADLINE: readonly InboundRead[] = Array.from({ length: 9 }, (_, i) =>
  Object.freeze({ ...PLAIN, fromSeawallHop: true, attempt: i === 0 ? null : i }),
);

/** What a request from outside the trust boundary brings: nothing (its deadline and hop marker are ignored). */
export const UNTRUSTED_INBOUND: InboundHop = PLAIN;

const ATTEMPT_NUMBER = /^[1-9][0-9]{0,5}$/;

/** The attempt header's number: 1–999999 written plainly, else null (a hop marker all the same). */
export function readAttemptNumber(value: string | undefined): number | null {
  // @eq hop-value
  if (value === undefined) return null;
  const text = value.trim();
  return ATTEMPT_NUMBER.test(text) ? Number(text) : null;
}

function withoutDeadline(attempt: number | null): InboundRead {
  if (attempt === null) return HOP_WITHOUT_DEADLINE[0] as InboundRead;
  return attempt < HOP_WITHOUT_DEADLINE.length
    ? (HOP_WITHOUT_DEADLINE[attempt] as InboundRead)
    : { ...PLAIN, fromSeawallHop: true, attempt };
}

/**
 * Reads a trusted request's hop facts. Deadline precedence (deadline.ts readDeadline): a relative form decides
 * (grpc-timeout or Envoy's expected timeout, the earlier if both), the absolute header only when no relative one is
 * usable; capped at `maxDeadlineMs` from now. An absolute deadline more than DEADLINE_SKEW_TOLERANCE_MS from the
 * relative one is `skewed` (the relative one wins: immune to clock skew). The attempt header marks a Seawall hop
 * whatever its value; its number is read when well formed.
 * Never throws; a malformed deadline is no deadline.
 */
export function readInboundHop(headers: HeaderSource, nowMs: number, maxDeadlineMs: number): InboundRead {
  const marker = headerValue(headers, ATTEMPT_HEADER);
  const hop = marker !== undefined;
  const attempt = hop ? readAttemptNumber(marker) : null;
  // Most requests carry no deadline: skip the reader (and its allocations) when none of its headers is there.
  if (
    // @eq hop-headervalue-headers-grpc-timeout
    headerValue(headers, GRPC_TIMEOUT_HEADER) === undefined &&
    headerValue(headers, ENVOY_EXPECTED_TIMEOUT_HEADER) === undefined &&
    headerValue(headers, ABSOLUTE_DEADLINE_HEADER) === undefined
    // @eq hop-no-deadline-shortcut-body
  ) {
    return hop ? withoutDeadline(attempt) : PLAIN;
  }
  const read = readDeadline(headers, nowMs, maxDeadlineMs);
  if (!read.ok) {
    // @eq hop-malformed-read-reason-absent
    const malformed = read.reason !== 'absent';
    // @eq hop-malformed-hop-withoutdeadline-attempt
    if (!malformed) return hop ? withoutDeadline(attempt) : PLAIN;
    return { deadlineMs: null, fromSeawallHop: hop, attempt, malformed, capped: false, skewed: false };
  }
  const skewMs = read.skewMs;
  // @eq hop-skewed-skewms
  const skewed = skewMs !== undefined && (skewMs > DEADLINE_SKEW_TOLERANCE_MS || skewMs < -DEADLINE_SKEW_TOLERANCE_MS);
  return { deadlineMs: read.atMs, fromSeawallHop: hop, attempt, malformed: false, capped: read.capped, skewed };
}

// What a call inherits from the request it is made for is applied by RetryPolicy.start(now, traits, inbound): the
// inbound deadline bounds the call (the earliest of the call's own, the inherited and the policy's), and the hop
// marker decides the layer rule (retry.ts). Both drivers pass their InboundHop there: the HTTP client the request's
// context, the simulator the simulated request.

// ---- what an attempt sends out ------------------------------------------------------------------------------

/** The deadline an attempt carries downstream: the call's when the policy propagates it, else none. */
export function sentDeadlineMs(callDeadlineMs: number | null, propagateDeadline: boolean): number | null {
  return propagateDeadline ? callDeadlineMs : null;
}

/**
 * The headers of one attempt: the attempt number (the hop marker) and, when sent, the deadline in absolute and
 * relative form (the relative one is immune to clock skew between hosts).
 */
export function attemptHeaders(attempt: number, deadlineMs: number | null, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = { [ATTEMPT_HEADER]: String(attempt) };
  if (deadlineMs !== null) {
    headers[ABSOLUTE_DEADLINE_HEADER] = encodeAbsoluteDeadline(deadlineMs);
    // @ko deadline-propagation
    headers[GRPC_TIMEOUT_HEADER] = encodeGrpcTimeout(Math.max(0, deadlineMs - nowMs));
  }
  return headers;
}

// ---- what an answer sends out -------------------------------------------------------------------------------

/**
 * The status a hop answers with when a required downstream call failed: the error status it got, or 504 when it got
 * none (the attempt timed out, or the deadline left no time for one).
 */
export function relayedStatus(lastStatus: number): number {
  return lastStatus >= 400 ? lastStatus : GATEWAY_TIMEOUT;
}

/**
 * The claim headers of an answer, or null when it needs none (below 500). `relayed`: the failed downstream call's
 * RetryCall.passUp when the answer relays it, null when the error is the service's own (then the service claims it).
 */
export function answerClaimHeaders(
  status: number,
  relayed: RelayedClaim | null,
): Readonly<Record<string, string>> | null {
  return status >= 500 ? errorClaimHeaders(relayed) : null;
}

/**
 * How a response reads to the policy: its status and, for failures only, the raw hints (Retry-After,
 * retry-after-ms, grpc-retry-pushback-ms) and the claim (ignored with `trustClaims` false: a callee outside the trust
 * boundary). `header(name)` returns the header's value(s) by lower-case name; every
 * value is passed on raw, repeated lines included, so the policy's one parser reads them (retry-after.ts).
 */
export function responseOutcome(status: number, header: (name: string) => HeaderValue, trustClaims = true): Outcome {
  if (status < 400) return { kind: 'response', status }; // the policy reads hints only for failures
  return {
    kind: 'response',
    status,
    retryAfter: header(RETRY_AFTER_HEADER),
    retryAfterMs: header(RETRY_AFTER_MS_HEADER),
    pushbackMs: header(PUSHBACK_HEADER),
    claim: readClaim(header(CLAIM_HEADER), header(CRITERIA_MET_HEADER), trustClaims),
  };
}
