// What crosses a hop, decided once for every driver: a callee's refusals as data, and the hints read off a response.

import { formatRetryAfter, formatRetryAfterMs, type HeaderValue, RETRY_AFTER_MS_HEADER } from './retry-after.js';
import type { Outcome } from './types.js';

/** Response header marking an error the service produced itself (value "1"): its own 503/504, a handler's 5xx. */
export const CLAIM_HEADER = 'x-seawall-claimed';
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
      [CLAIM_HEADER]: '1',
    }),
  });
}

/** The 504 for work whose deadline passed before it ran (on arrival or while it waited). */
export const DEADLINE_REFUSAL: Extract<Refusal, { status: 504 }> = Object.freeze({
  status: 504 as const,
  reason: 'deadline-passed' as const,
  headers: Object.freeze({ [CLAIM_HEADER]: '1' }),
});

/**
 * How a response reads to the policy: its status and, for failures only, the raw hints (Retry-After,
 * retry-after-ms, grpc-retry-pushback-ms). `header(name)` returns the header's value(s) by lower-case name; every
 * value is passed on raw, repeated lines included, so the policy's one parser reads them (retry-after.ts).
 */
export function responseOutcome(status: number, header: (name: string) => HeaderValue): Outcome {
  if (status < 400) return { kind: 'response', status }; // the policy reads hints only for failures
  return {
    kind: 'response',
    status,
    retryAfter: header(RETRY_AFTER_HEADER),
    retryAfterMs: header(RETRY_AFTER_MS_HEADER),
    pushbackMs: header(PUSHBACK_HEADER),
  };
}
