// Server-requested waits: Retry-After (seconds or HTTP-date) and gRPC's grpc-retry-pushback-ms.

/** Default cap on a server-requested wait (5 min, Envoy's max_interval for rate-limited back-off). */
export const DEFAULT_MAX_RETRY_AFTER_MS = 300_000;

export type RetryAfterRead =
  | { ok: true; delayMs: number; capped: boolean }
  | { ok: false; reason: 'absent' | 'malformed' | 'negative' };

export type PushbackRead =
  | { kind: 'absent' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'stop'; reason: 'negative' | 'malformed' };

const ABSENT = { ok: false, reason: 'absent' } as const;
const MALFORMED = { ok: false, reason: 'malformed' } as const;
const NEGATIVE = { ok: false, reason: 'negative' } as const;

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

/**
 * Parses Retry-After (RFC 9110 §10.2.3): delay-seconds (the seed's fractions such as "0.2" accepted) or an
 * HTTP-date (wait = max(0, date − now)). Surrounding spaces/tabs are ignored; signs, exponents, inner whitespace
 * and junk are malformed, except that a minus before a valid number reads as 'negative'. Waits above capMs are
 * capped (capped: true). Never throws, never NaN.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
  capMs: number = DEFAULT_MAX_RETRY_AFTER_MS,
): RetryAfterRead {
  if (value === null || value === undefined) return ABSENT;
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === CH_SP || value.charCodeAt(start) === CH_TAB)) start++;
  while (end > start && (value.charCodeAt(end - 1) === CH_SP || value.charCodeAt(end - 1) === CH_TAB)) end--;
  const cap = capMs >= 0 ? capMs : DEFAULT_MAX_RETRY_AFTER_MS;
  let delayMs: number;
  const first = value.charCodeAt(start);
  if (first >= CH_0 && first <= CH_9) {
    delayMs = parseSeconds(value, start, end);
    if (delayMs < 0) return MALFORMED;
  } else if (first === CH_MINUS) {
    return parseSeconds(value, start + 1, end) >= 0 ? NEGATIVE : MALFORMED;
  } else {
    const atMs = parseHttpDate(value.slice(start, end), nowMs);
    if (atMs === undefined) return MALFORMED;
    delayMs = Math.max(atMs - nowMs, 0) || 0; // a date in the past (or a NaN now): retry now
  }
  if (delayMs > cap) return { ok: true, delayMs: cap, capped: true };
  return { ok: true, delayMs, capped: false };
}

/** Seconds for a Retry-After header, ms rounded up, fraction without trailing zeros: 200 → "0.2", 1500 → "1.5". */
export function formatRetryAfter(ms: number): string {
  const whole = Math.ceil(Math.min(Math.max(ms, 0), 1e15)) || 0;
  const frac = whole % 1000;
  const seconds = (whole - frac) / 1000;
  if (frac === 0) return String(seconds);
  let digits = String(1000 + frac).slice(1);
  while (digits.endsWith('0')) digits = digits.slice(0, -1);
  return `${seconds}.${digits}`;
}

const INT32_MAX = 2147483647;

/**
 * grpc-retry-pushback-ms (gRPC A6): a signed 32-bit decimal integer. A non-negative value means retry after exactly
 * that many ms; a negative one means do not retry; anything else (junk, out of int32 range) is malformed, which also
 * means do not retry — grpc-js once turned junk into NaN and retried at once.
 */
export function parseGrpcPushback(value: string | null | undefined): PushbackRead {
  if (value === null || value === undefined) return { kind: 'absent' };
  const negative = value.charCodeAt(0) === CH_MINUS;
  const start = negative ? 1 : 0;
  if (start === value.length) return { kind: 'stop', reason: 'malformed' };
  let n = 0;
  for (let i = start; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < CH_0 || c > CH_9) return { kind: 'stop', reason: 'malformed' };
    n = n * 10 + (c - CH_0);
    // int32 range is [-2^31, 2^31 - 1]; stop early so long inputs cost nothing.
    if (n > INT32_MAX + (negative ? 1 : 0)) return { kind: 'stop', reason: 'malformed' };
  }
  if (negative && n > 0) return { kind: 'stop', reason: 'negative' };
  return { kind: 'retry', delayMs: n };
}
