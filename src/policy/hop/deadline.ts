// Deadlines: the Deadline value and its wire codecs (absolute header, grpc-timeout, Envoy expected-timeout ms).

import { ConfigError } from '../core/config-error.js';

/** An absolute point in time (ms, on the same clock as the `now` passed in). Infinity means no deadline. */
export class Deadline {
  /** Throws ConfigError for NaN (a deadline nobody can compare against). */
  constructor(readonly atMs: number) {
    if (Number.isNaN(atMs)) throw new ConfigError([{ path: 'deadline', message: 'must be a number, got NaN' }]);
  }

  static after(nowMs: number, ms: number): Deadline {
    return new Deadline(nowMs + ms);
  }

  /** max(0, at − now); 0 (never NaN) for odd inputs such as a NaN now. */
  remaining(nowMs: number): number {
    return Math.max(this.atMs - nowMs, 0) || 0; // `|| 0`: NaN (∞ − ∞, a NaN now) is no time left
  }

  /** True once now reaches the deadline. */
  expired(nowMs: number): boolean {
    return nowMs >= this.atMs;
  }
}

/** Default cap on inbound deadlines (5 min): a caller cannot make us hold work longer than this. */
export const MAX_ACCEPTED_DEADLINE_MS = 300_000;
export const ABSOLUTE_DEADLINE_HEADER = 'x-request-deadline';
export const GRPC_TIMEOUT_HEADER = 'grpc-timeout';
export const ENVOY_EXPECTED_TIMEOUT_HEADER = 'x-envoy-expected-rq-timeout-ms';

export type DeadlineRead =
  | { ok: true; atMs: number; capped: boolean }
  | { ok: false; reason: 'absent' | 'malformed' | 'out-of-range' };

export type DeadlineSource = 'grpc-timeout' | 'x-request-deadline' | 'x-envoy-expected-rq-timeout-ms';

/** Largest instant a JS Date can hold (ECMA-262 §21.4.1.1): later "deadlines" are nonsense, not far futures. */
const MAX_EPOCH_MS = 8.64e15;
const ABSOLUTE_PATTERN = /^(-?)(\d{1,20})(?:\.(\d{1,9}))?$/;

function capFor(maxMs: number = MAX_ACCEPTED_DEADLINE_MS): number {
  // NaN or negative caps fall back to the default rather than poisoning the comparison.
  return maxMs >= 0 ? maxMs : MAX_ACCEPTED_DEADLINE_MS;
}

/** Epoch seconds with exactly 3 decimals ("1764486000.123"); rounded to the ms, clamped to [0, max Date]. */
export function encodeAbsoluteDeadline(atMs: number): string {
  const ms = Math.round(Math.min(Math.max(atMs, 0), MAX_EPOCH_MS)) || 0;
  const frac = ms % 1000;
  return `${(ms - frac) / 1000}.${String(frac).padStart(3, '0')}`;
}

/**
 * Reads an absolute deadline in epoch seconds (fraction optional, digits beyond ms truncated: earlier is safer).
 * A past deadline is valid (the work is already late); one beyond now + maxMs is capped to now + maxMs.
 * Signs, exponents, whitespace and junk are malformed; negative or beyond-Date values are out of range.
 */
export function decodeAbsoluteDeadline(value: string | null | undefined, nowMs: number, maxMs?: number): DeadlineRead {
  if (value === null || value === undefined) return { ok: false, reason: 'absent' };
  const m = ABSOLUTE_PATTERN.exec(value);
  if (m === null) return { ok: false, reason: 'malformed' };
  const atMs = Number(m[2]) * 1000 + Number((m[3] ?? '').slice(0, 3).padEnd(3, '0'));
  if (m[1] === '-' || atMs > MAX_EPOCH_MS) return { ok: false, reason: 'out-of-range' };
  const latest = nowMs + capFor(maxMs);
  if (atMs > latest) return { ok: true, atMs: latest, capped: true };
  return { ok: true, atMs, capped: false };
}

/** grpc-timeout units in the order grpc-js tries them. */
const GRPC_ENCODE_UNITS = [
  ['m', 1],
  ['S', 1000],
  ['M', 60_000],
  ['H', 3_600_000],
] as const;
const GRPC_MAX_AMOUNT = 99_999_999;

/**
 * grpc-timeout for `ms` (grpc-js getDeadlineTimeoutString): the first of m, S, M, H whose rounded-up amount fits
 * in 8 digits. Rounding up means the callee never sees less time than we meant. Unlike grpc-js, the fit test is on
 * the rounded amount, so 99999999.5 ms gives "100000S", not the 9-digit "100000000m". NaN/negative: "0m";
 * beyond 99999999 hours: "99999999H".
 */
export function encodeGrpcTimeout(ms: number): string {
  const timeoutMs = Math.max(ms, 0) || 0;
  for (const [unit, factor] of GRPC_ENCODE_UNITS) {
    const amount = Math.ceil(timeoutMs / factor);
    if (amount <= GRPC_MAX_AMOUNT) return `${amount}${unit}`;
  }
  return `${GRPC_MAX_AMOUNT}H`;
}

const GRPC_DECODE_PATTERN = /^(\d{1,8})([HMSmun])$/;
const GRPC_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/** Parses grpc-timeout (1–8 digits + H/M/S/m/u/n). Anchored: grpc-js's unanchored regex read 123456789S as 23456789S. */
export function decodeGrpcTimeout(
  value: string | null | undefined,
): { ok: true; ms: number } | { ok: false; reason: 'absent' | 'malformed' } {
  if (value === null || value === undefined) return { ok: false, reason: 'absent' };
  const m = GRPC_DECODE_PATTERN.exec(value);
  if (m === null) return { ok: false, reason: 'malformed' };
  return { ok: true, ms: Number(m[1]) * (GRPC_UNIT_MS[m[2] as string] as number) };
}

const ENVOY_PATTERN = /^\d{1,15}$/;
const ENVOY_MAX_MS = 999_999_999_999_999;

/** Parses x-envoy-expected-rq-timeout-ms: a non-negative integer of ms (at most 15 digits, so exact). */
export function decodeEnvoyTimeoutMs(
  value: string | null | undefined,
): { ok: true; ms: number } | { ok: false; reason: 'absent' | 'malformed' } {
  if (value === null || value === undefined) return { ok: false, reason: 'absent' };
  if (!ENVOY_PATTERN.test(value)) return { ok: false, reason: 'malformed' };
  return { ok: true, ms: Number(value) };
}

/** Whole ms rounded up (a positive remainder never becomes "0"); NaN/negative: "0". */
export function encodeEnvoyTimeoutMs(ms: number): string {
  const whole = Math.ceil(Math.max(ms, 0) || 0);
  return String(Math.min(whole, ENVOY_MAX_MS));
}

export type HeaderSource =
  | { get(name: string): string | null | undefined }
  | Record<string, string | string[] | undefined>;

/** One header from a Fetch-style Headers object or a node-style record (lower-case keys expected, else scanned). */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null | undefined }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let v = record[name];
  if (v === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) {
        v = record[key];
        break;
      }
    }
  }
  // Repeated headers: one value is that value; several are joined and so fail to parse (conflicting deadlines).
  return Array.isArray(v) ? v.join(',') : v;
}

export type DeadlineReadWithSource = DeadlineRead & {
  source?: DeadlineSource;
  /**
   * When both a relative and an absolute deadline were valid: absolute − relative (ms). Its size is the two hosts'
   * clock skew plus the time in transit; the relative one decided.
   */
  skewMs?: number;
};

/** Relative and absolute deadlines further apart than this count as a disagreement (ServerStats.deadlineSkew). */
export const DEADLINE_SKEW_TOLERANCE_MS = 1000;

/**
 * The inbound deadline. A relative timeout (grpc-timeout, x-envoy-expected-rq-timeout-ms; the earlier if both) decides
 * whenever one is valid: it is immune to clock skew. The absolute x-request-deadline is used alone only when no
 * relative one is usable; when both are there, their difference is reported as `skewMs`. Deadlines beyond now + maxMs
 * are capped. With no valid header, the first failure (relative forms first) is returned, or 'absent'.
 */
export function readDeadline(headers: HeaderSource, nowMs: number, maxMs?: number): DeadlineReadWithSource {
  const cap = capFor(maxMs);
  let failure: DeadlineReadWithSource | undefined;
  let relativeAtMs = Number.POSITIVE_INFINITY;
  // @eq deadline-relativecapped
  let relativeCapped = false;
  let relativeSource: DeadlineSource = GRPC_TIMEOUT_HEADER;
  // Explicit literals, not `{ ...read, source }`: V8's spread-plus-property costs ~1 µs, on every inbound request.
  const relative = (read: ReturnType<typeof decodeGrpcTimeout>, source: DeadlineSource): void => {
    if (!read.ok) {
      if (read.reason !== 'absent' && failure === undefined) failure = { ok: false, reason: read.reason, source };
      return;
    }
    const atMs = nowMs + Math.min(read.ms, cap);
    // A non-finite now would make every relative deadline meaningless.
    if (!Number.isFinite(atMs)) {
      if (failure === undefined) failure = { ok: false, reason: 'out-of-range', source };
      return;
    }
    if (atMs < relativeAtMs) {
      relativeAtMs = atMs;
      relativeCapped = read.ms > cap;
      relativeSource = source;
    }
  };
  relative(decodeGrpcTimeout(headerValue(headers, GRPC_TIMEOUT_HEADER)), GRPC_TIMEOUT_HEADER);
  relative(decodeEnvoyTimeoutMs(headerValue(headers, ENVOY_EXPECTED_TIMEOUT_HEADER)), ENVOY_EXPECTED_TIMEOUT_HEADER);
  // Read uncapped first: the skew is measured on what the caller sent, the cap applies to what is used.
  const absolute = decodeAbsoluteDeadline(headerValue(headers, ABSOLUTE_DEADLINE_HEADER), nowMs, Infinity);
  if (relativeAtMs !== Number.POSITIVE_INFINITY) {
    if (absolute.ok) {
      return {
        ok: true,
        atMs: relativeAtMs,
        capped: relativeCapped,
        source: relativeSource,
        skewMs: absolute.atMs - relativeAtMs,
      };
    }
    return { ok: true, atMs: relativeAtMs, capped: relativeCapped, source: relativeSource };
  }
  if (absolute.ok) {
    const latest = nowMs + cap;
    if (absolute.atMs > latest) return { ok: true, atMs: latest, capped: true, source: ABSOLUTE_DEADLINE_HEADER };
    return { ok: true, atMs: absolute.atMs, capped: false, source: ABSOLUTE_DEADLINE_HEADER };
  }
  if (failure !== undefined) return failure;
  if (absolute.reason !== 'absent') return { ok: false, reason: absolute.reason, source: ABSOLUTE_DEADLINE_HEADER };
  return { ok: false, reason: 'absent' };
}
