// Server-requested waits, read one way everywhere: Retry-After (seconds or HTTP-date), retry-after-ms, grpc-retry-pushback-ms.

import type { HeaderValue } from '../core/types.js';

export type { HeaderValue } from '../core/types.js';

/**
 * Default of `maxRetryAfter`, THE cap on a server-requested wait (5 min, Envoy's max_interval for rate-limited
 * back-off). "Cap" means one thing in Seawall: a server asking for a longer wait than the cap is NOT retried (stop
 * reason `server-pushback`); the wait is never shortened to the cap (shortening it would retry before the server
 * said it can serve again). The policy applies it (retry-call.ts); the parsers below never do.
 */
export const DEFAULT_MAX_RETRY_AFTER_MS = 300_000;

/**
 * The longest wait a parser returns: setTimeout's limit (2^31 - 1 ms, about 24.8 days; a longer timer fires at
 * once), also the largest grpc-retry-pushback-ms (int32). A bound for overflow safety only, not a policy: any wait
 * this long is far past every sane `maxRetryAfter`, so the policy refuses it all the same.
 */
export const MAX_SERVER_WAIT_MS = 2_147_483_647;

export type RetryAfterRead =
  /** `delayMs`: the wait the server asked for; `bounded`: it asked for more than MAX_SERVER_WAIT_MS (then delayMs is that). */
  { ok: true; delayMs: number; bounded: boolean } | { ok: false; reason: 'absent' | 'malformed' | 'negative' };

export type PushbackRead =
  | { kind: 'absent' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'stop'; reason: 'negative' | 'malformed' };

const ABSENT = { ok: false, reason: 'absent' } as const;
const MALFORMED = { ok: false, reason: 'malformed' } as const;
const NEGATIVE = { ok: false, reason: 'negative' } as const;
const PUSHBACK_ABSENT: PushbackRead = { kind: 'absent' };
const STOP_MALFORMED: PushbackRead = { kind: 'stop', reason: 'malformed' };
const STOP_NEGATIVE: PushbackRead = { kind: 'stop', reason: 'negative' };

const CH_0 = 48;
const CH_9 = 57;
const CH_DOT = 46;
const CH_MINUS = 45;
const CH_SP = 32;
const CH_TAB = 9;

/**
 * Parses `delay-seconds` with the seed's lenient fraction: 1*DIGIT [ "." 1*DIGIT ], in ms rounded up to a whole ms
 * (a server's wait is a minimum). Returns -1 for anything else. Char loop: this runs on every retried response.
 */
function parseSeconds(s: string, start: number, end: number): number {
  let seconds = 0;
  let i = start;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < CH_0 || c > CH_9) break;
    seconds = seconds * 10 + (c - CH_0);
  }
  if (i === start) return -1;
  let fracMs = 0;
  let roundUp = 0;
  if (i < end) {
    if (s.charCodeAt(i) !== CH_DOT || i + 1 === end) return -1;
    let weight = 100; // ms per digit: tenths 100, hundredths 10, thousandths 1
    for (i++; i < end; i++) {
      const digit = s.charCodeAt(i) - CH_0;
      if (digit < 0 || digit > 9) return -1;
      if (weight >= 1) fracMs += digit * weight;
      else if (digit > 0) roundUp = 1; // a sub-millisecond remainder rounds the wait up by one ms
      weight /= 10;
    }
  }
  return seconds * 1000 + fracMs + roundUp;
}

// @eq retry-after-months-jan
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MON = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept. Case-sensitive.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Epoch ms of a UTC calendar time, or undefined when a field is out of range (Feb 30 does not roll into March). */
function utcMs(year: number, month: number, day: number, h: number, min: number, sec: number): number | undefined {
  // A day or hour out of range rolls the date over, which the final check catches; minutes and seconds need a check.
  if (min > 59 || sec > 60) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999. A leap second reads as :59.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(h, min, Math.min(sec, 59));
  return date.getUTCDate() === day ? date.getTime() : undefined;
}

/** Parses an HTTP-date into epoch ms; undefined if it is not one. `nowMs` resolves RFC 850 two-digit years. */
export function parseHttpDate(value: string, nowMs: number): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) {
    return utcMs(Number(m[3]), MONTHS.indexOf(m[2] as string), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = RFC850_DATE.exec(value);
  if (m !== null) {
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past year with those digits.
    const nowYear = Number.isFinite(nowMs) ? new Date(nowMs).getUTCFullYear() : 1970;
    let year = nowYear - (nowYear % 100) + Number(m[3]);
    if (year > nowYear + 50) year -= 100;
    return utcMs(year, MONTHS.indexOf(m[2] as string), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(value);
  if (m !== null) {
    const day = Number(m[2]); // Number(' 6') is 6
    return utcMs(Number(m[6]), MONTHS.indexOf(m[1] as string), day, Number(m[3]), Number(m[4]), Number(m[5]));
  }
  return undefined;
}

/** Day names that end with the comma inside an HTTP-date ("Sun, 06 Nov 1994 ..."): that comma separates no members. */
const DAY_NAME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;

/**
 * The members of a header that arrived more than once: separate lines, or one line joined by commas (fetch's Headers
 * join repeats with ", "). For Retry-After (`dates`), the comma after an HTTP-date's day name stays inside the date.
 */
export function headerMembers(value: HeaderValue, dates = false): string[] {
  // @eq retry-after-value-value
  if (value === null || value === undefined) return [];
  // A value of another shape (a number a hand-made Outcome put there) has no members: it reads as absent, never throws.
  // @ko retry-after-odd-shapes
  const lines: readonly string[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  const members: string[] = [];
  for (const line of lines) {
    if (typeof line !== 'string') continue;
    const pieces = line.split(',');
    for (let i = 0; i < pieces.length; i++) {
      let piece = pieces[i] as string;
      // Rejoined exactly as sent (no whitespace normalised), so a malformed date stays malformed.
      if (dates && i + 1 < pieces.length && DAY_NAME.test(piece.trim())) piece = `${piece},${pieces[++i] as string}`;
      members.push(piece.trim());
    }
  }
  return members;
}

/** One Retry-After member: the wait in ms (uncapped), or a failed read. */
function readOneRetryAfter(value: string, nowMs: number): number | 'malformed' | 'negative' {
  let start = 0;
  let end = value.length;
  // @eq retry-after-start-end
  while (start < end && (value.charCodeAt(start) === CH_SP || value.charCodeAt(start) === CH_TAB)) start++;
  // @eq retry-after-end-start
  while (end > start && (value.charCodeAt(end - 1) === CH_SP || value.charCodeAt(end - 1) === CH_TAB)) end--;
  const first = value.charCodeAt(start);
  if (first >= CH_0 && first <= CH_9) {
    const delayMs = parseSeconds(value, start, end);
    // @eq retry-after-delayms-malformed-delayms
    return delayMs < 0 ? 'malformed' : delayMs;
  }
  // @eq retry-after-parseseconds-value-start-end
  if (first === CH_MINUS) return parseSeconds(value, start + 1, end) >= 0 ? 'negative' : 'malformed';
  const atMs = parseHttpDate(value.slice(start, end), nowMs);
  // @eq retry-after-atms-malformed
  if (atMs === undefined) return 'malformed';
  return Math.max(atMs - nowMs, 0) || 0; // a date in the past (or a NaN now): retry now
}

/** The read as a parser returns it: the true wait, bounded only at MAX_SERVER_WAIT_MS (overflow safety). */
function boundRead(delayMs: number): RetryAfterRead {
  // @ko retry-after-one-cap
  if (delayMs > MAX_SERVER_WAIT_MS) return { ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: true };
  return { ok: true, delayMs, bounded: false };
}

/**
 * Parses Retry-After (RFC 9110 §10.2.3): delay-seconds (the seed's fractions such as "0.2" accepted) or an
 * HTTP-date (wait = max(0, date − now)). Surrounding spaces/tabs are ignored; signs, exponents, inner whitespace
 * and junk are malformed, except that a minus before a valid number reads as 'negative'. The wait is the server's,
 * not capped (the policy's maxRetryAfter decides whether to wait that long), bounded only at MAX_SERVER_WAIT_MS
 * (bounded: true). Never throws, never NaN, never infinite.
 *
 * A header sent more than once (several lines, or members joined by commas) is read member by member and the
 * longest valid wait wins: every server hint is a floor, so the most patient one is honoured.
 * Members that are malformed or negative are skipped; with no valid member, the first member's failure is returned.
 */
export function parseRetryAfter(value: HeaderValue, nowMs: number): RetryAfterRead {
  if (value === null || value === undefined) return ABSENT;
  // @eq retry-after-value-indexof
  if (typeof value === 'string' && value.indexOf(',') < 0) {
    const read = readOneRetryAfter(value, nowMs); // the usual case: one line, one member, nothing allocated
    return typeof read === 'number' ? boundRead(read) : read === 'negative' ? NEGATIVE : MALFORMED;
  }
  let best = -1;
  let failure: RetryAfterRead = ABSENT;
  for (const member of headerMembers(value, true)) {
    const read = readOneRetryAfter(member, nowMs);
    if (typeof read === 'number') {
      // @eq retry-after-read-best-best-read
      if (read > best) best = read;
      // @eq retry-after-failure-absent
    } else if (failure === ABSENT) {
      failure = read === 'negative' ? NEGATIVE : MALFORMED;
    }
  }
  return best >= 0 ? boundRead(best) : failure;
}

/**
 * Retry-After for a 503 Seawall sends: RFC 9110's integer delay-seconds, rounded up (200 → "1"; a server's wait is
 * a minimum, and integer-parsing clients read "0.2" as 0 or as garbage). The exact wait goes in `retry-after-ms`.
 */
export function formatRetryAfter(ms: number): string {
  return String(Math.ceil(Math.ceil(Math.min(Math.max(ms, 0), 1e15)) / 1000) || 0); // whole ms first: 1e-300 is 1 ms
}

/** The finer companion of Retry-After: whole ms (Azure's and OpenAI's clients read it too). */
export const RETRY_AFTER_MS_HEADER = 'retry-after-ms';

/** `retry-after-ms` for a wait: whole ms, rounded up. */
export function formatRetryAfterMs(ms: number): string {
  return String(Math.ceil(Math.min(Math.max(ms, 0), 1e15)) || 0);
}

/**
 * Parses `retry-after-ms`: a non-negative decimal number of ms (a fraction rounds up to a whole ms); several members
 * read like Retry-After's (the longest valid wait wins). Anything else is malformed. Bounded like parseRetryAfter.
 */
export function parseRetryAfterMs(value: HeaderValue): RetryAfterRead {
  if (value === null || value === undefined) return ABSENT;
  let best = -1;
  let failure: RetryAfterRead = ABSENT;
  // @eq retry-after-value-indexof
  const members = typeof value === 'string' && value.indexOf(',') < 0 ? [value] : headerMembers(value);
  for (const member of members) {
    const read = readOneMs(member);
    if (read >= 0) {
      // @eq retry-after-read-best-best-read
      if (read > best) best = read;
      // @eq retry-after-failure-absent
    } else if (failure === ABSENT) {
      failure = MALFORMED;
    }
  }
  return best >= 0 ? boundRead(best) : failure;
}

/** 1*DIGIT [ "." 1*DIGIT ] ms, surrounding blanks ignored, rounded up; -1 when malformed. */
function readOneMs(value: string): number {
  let start = 0;
  let end = value.length;
  // @eq retry-after-start-end
  while (start < end && (value.charCodeAt(start) === CH_SP || value.charCodeAt(start) === CH_TAB)) start++;
  // @eq retry-after-end-start
  while (end > start && (value.charCodeAt(end - 1) === CH_SP || value.charCodeAt(end - 1) === CH_TAB)) end--;
  let ms = 0;
  let i = start;
  for (; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c < CH_0 || c > CH_9) break;
    ms = ms * 10 + (c - CH_0);
  }
  if (i === start) return -1;
  if (i === end) return ms;
  if (value.charCodeAt(i) !== CH_DOT || i + 1 === end) return -1;
  let fraction = false;
  for (i++; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c < CH_0 || c > CH_9) return -1;
    if (c !== CH_0) fraction = true;
  }
  return fraction ? ms + 1 : ms;
}

/**
 * The wait a response asks for, from its Retry-After and retry-after-ms headers (one rule for every driver and the
 * simulator). retry-after-ms is the finer reading of the same hint and wins when it rounds up to Retry-After's
 * whole seconds (what a Seawall server sends: `1` and `200`); when the two disagree otherwise (a proxy rewrote
 * one), the longer wait wins. Either alone is used as it is. Not capped (RetryPolicy refuses a wait over
 * maxRetryAfter), bounded like parseRetryAfter; never NaN.
 */
export function serverWait(retryAfter: HeaderValue, retryAfterMs: HeaderValue, nowMs: number): RetryAfterRead {
  const fine = parseRetryAfterMs(retryAfterMs);
  const coarse = parseRetryAfter(retryAfter, nowMs);
  if (!fine.ok) return coarse.ok ? coarse : coarse.reason === 'absent' ? fine : coarse;
  if (!coarse.ok) return fine;
  // @eq retry-after-refines-fine-delayms-coarse
  const refines = fine.delayMs <= coarse.delayMs && fine.delayMs > coarse.delayMs - 1000;
  return refines ? fine : fine.delayMs >= coarse.delayMs ? fine : coarse;
}

const INT32_MAX = 2147483647;

/** One pushback member (gRPC A6): a signed 32-bit decimal integer, strictly (surrounding blanks aside). */
function readOnePushback(value: string): PushbackRead {
  let first = 0;
  let end = value.length;
  // @eq retry-after-first-end
  while (first < end && (value.charCodeAt(first) === CH_SP || value.charCodeAt(first) === CH_TAB)) first++;
  // @eq retry-after-end-first
  while (end > first && (value.charCodeAt(end - 1) === CH_SP || value.charCodeAt(end - 1) === CH_TAB)) end--;
  const negative = value.charCodeAt(first) === CH_MINUS;
  const start = negative ? first + 1 : first;
  if (start === end) return STOP_MALFORMED;
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c < CH_0 || c > CH_9) return STOP_MALFORMED;
    n = n * 10 + (c - CH_0);
    // int32 range is [-2^31, 2^31 - 1]; stop early so long inputs cost nothing.
    if (n > INT32_MAX + (negative ? 1 : 0)) return STOP_MALFORMED;
  }
  if (negative && n > 0) return STOP_NEGATIVE;
  return { kind: 'retry', delayMs: n };
}

/**
 * grpc-retry-pushback-ms (gRPC A6): a signed 32-bit decimal integer. A non-negative value means retry after exactly
 * that many ms; a negative one means do not retry; anything else (junk, out of int32 range) is malformed, which also
 * means do not retry — grpc-js once turned junk into NaN and retried at once. Sent more than once (several lines, or
 * members joined by commas): any member saying "do not retry" wins, else the longest wait. The policy applies the
 * cap (RetryPolicy stops a call whose server asks for more than maxRetryAfter).
 */
export function parseGrpcPushback(value: HeaderValue): PushbackRead {
  // @eq retry-after-value-value
  if (value === null || value === undefined) return PUSHBACK_ABSENT;
  // @eq retry-after-value-indexof
  if (typeof value === 'string' && value.indexOf(',') < 0) return readOnePushback(value);
  const members = headerMembers(value);
  // @eq retry-after-members-length-pushback-absent
  if (members.length === 0) return PUSHBACK_ABSENT;
  let best: PushbackRead = PUSHBACK_ABSENT;
  for (const member of members) {
    const read = readOnePushback(member);
    if (read.kind === 'stop') return read;
    // @eq retry-after-best-kind-retry-read
    if (best.kind !== 'retry' || (read.kind === 'retry' && read.delayMs > best.delayMs)) best = read;
  }
  return best;
}
