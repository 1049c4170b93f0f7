// Tests for retry-after.ts: Retry-After seconds and HTTP-dates, formatting, and grpc-retry-pushback-ms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import {
  DEFAULT_MAX_RETRY_AFTER_MS,
  formatRetryAfter,
  formatRetryAfterMs,
  MAX_SERVER_WAIT_MS,
  parseGrpcPushback,
  parseHttpDate,
  parseRetryAfter,
  parseRetryAfterMs,
} from './retry-after.js';

// RFC 9110 §5.6.7 example instant: Sun, 06 Nov 1994 08:49:37 GMT; "now" is 7 s before it.
const DATE_MS = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = DATE_MS - 7000;

describe('parseRetryAfter: delay-seconds', () => {
  it.each([
    ['1', 1000],
    ['0', 0],
    ['120', 120_000],
    ['0.2', 200],
    ['9.999', 9999],
    ['1.5', 1500],
    ['0.25', 250],
    ['0.125', 125],
    ['1.0010', 1001],
    ['0.0000', 0],
    ['0.0001', 1],
    ['0.1234', 124],
    ['007', 7000],
    [' 1 ', 1000],
    ['\t2\t', 2000],
  ])('reads %j as %d ms (fractions rounded up to a whole ms)', (text, ms) => {
    expect(parseRetryAfter(text, NOW)).toEqual({ ok: true, delayMs: ms, bounded: false });
  });

  it('returns the true wait, not capped at maxRetryAfter (the policy refuses a longer one), bounded for overflow only', () => {
    expect(DEFAULT_MAX_RETRY_AFTER_MS).toBe(300_000);
    expect(parseRetryAfter('300', NOW)).toEqual({ ok: true, delayMs: 300_000, bounded: false });
    expect(parseRetryAfter('300.001', NOW)).toEqual({ ok: true, delayMs: 300_001, bounded: false });
    expect(parseRetryAfter('3600', NOW)).toEqual({ ok: true, delayMs: 3_600_000, bounded: false });
    // setTimeout's limit (a longer timer fires at once), and the largest grpc-retry-pushback-ms
    expect(MAX_SERVER_WAIT_MS).toBe(2 ** 31 - 1);
    expect(parseRetryAfter('2147483.647', NOW)).toEqual({ ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: false });
    expect(parseRetryAfter('2147483.648', NOW)).toEqual({ ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: true });
    expect(parseRetryAfter('9'.repeat(400), NOW)).toEqual({ ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: true });
    expect(parseRetryAfterMs('9'.repeat(400))).toEqual({
      ok: true,
      delayMs: MAX_SERVER_WAIT_MS,
      bounded: true,
    });
  });

  it.each(['-1', '-0.5', '-0'])('reads %j as negative', (text) => {
    expect(parseRetryAfter(text, NOW)).toEqual({ ok: false, reason: 'negative' });
  });

  it.each([
    '',
    '   ',
    '-',
    '-abc',
    '--1',
    '+1',
    '1e3',
    '1.',
    '.5',
    '1..5',
    '1.5.',
    '0x10',
    '1 0',
    '1 .5',
    '1. 5',
    '1.5s',
    'soon',
    '\u0661',
    '1\u00a0',
    'Infinity',
    'NaN',
  ])('rejects %j as malformed', (text) => {
    expect(parseRetryAfter(text, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it.each([null, undefined])('reports %s as absent', (value) => {
    expect(parseRetryAfter(value, NOW)).toEqual({ ok: false, reason: 'absent' });
  });
});

describe('parseRetryAfter: HTTP-date', () => {
  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', 'IMF-fixdate'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', 'RFC 850'],
    ['Sun Nov  6 08:49:37 1994', 'asctime'],
    [' Sun, 06 Nov 1994 08:49:37 GMT ', 'IMF-fixdate with surrounding spaces'],
  ])('waits until %j (%s)', (text) => {
    expect(parseRetryAfter(text, NOW)).toEqual({ ok: true, delayMs: 7000, bounded: false });
  });

  it('reads a two-digit asctime day', () => {
    expect(parseHttpDate('Wed Nov 16 08:49:37 1994', NOW)).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('retries at once for a date in the past, and never returns NaN for a NaN now', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:30 GMT', DATE_MS)).toEqual({ ok: true, delayMs: 0, bounded: false });
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', DATE_MS)).toEqual({ ok: true, delayMs: 0, bounded: false });
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', Number.NaN)).toEqual({
      ok: true,
      delayMs: 0,
      bounded: false,
    });
  });

  it('returns a far-future date as the true wait, bounded only at the timer limit', () => {
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', NOW)).toEqual({
      ok: true,
      delayMs: MAX_SERVER_WAIT_MS,
      bounded: true,
    });
  });

  it('reads four-digit years below 100 literally, not as 19xx', () => {
    const ms = parseHttpDate('Mon, 01 Jan 0050 00:00:00 GMT', NOW) as number;
    expect(new Date(ms).getUTCFullYear()).toBe(50);
  });

  it('reads a leap second as :59', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:60 GMT', NOW)).toBe(Date.UTC(1994, 10, 6, 8, 49, 59));
  });

  it('maps RFC 850 two-digit years to within 50 years ahead of now, else the previous century (RFC 9110)', () => {
    const now = Date.UTC(2025, 5, 1);
    expect(parseHttpDate('Monday, 01-Jan-24 00:00:00 GMT', now)).toBe(Date.UTC(2024, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-75 00:00:00 GMT', now)).toBe(Date.UTC(2075, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(1976, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-99 00:00:00 GMT', now)).toBe(Date.UTC(1999, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-00 00:00:00 GMT', now)).toBe(Date.UTC(2000, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-70 00:00:00 GMT', Number.NaN)).toBe(Date.UTC(1970, 0, 1));
  });

  it.each([
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 30 Feb 1994 08:49:37 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'sun, 06 nov 1994 08:49:37 gmt',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 GMT+1',
    'Sux, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Noc 1994 08:49:37 GMT',
    'Sun,  06 Nov 1994 08:49:37 GMT',
    'Sun 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun, 06-Nov-94 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sunday Nov  6 08:49:37 1994',
    'Sun Nov  6 08:49:37 94',
    'x Sun, 06 Nov 1994 08:49:37 GMT',
  ])('rejects %j', (text) => {
    expect(parseRetryAfter(text, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(parseHttpDate(text, NOW)).toBeUndefined();
  });

  it('accepts the last day of each month and Feb 29 only in a leap year', () => {
    expect(parseHttpDate('Thu, 29 Feb 1996 00:00:00 GMT', NOW)).toBe(Date.UTC(1996, 1, 29));
    expect(parseHttpDate('Wed, 29 Feb 1995 00:00:00 GMT', NOW)).toBeUndefined();
    expect(parseHttpDate('Sat, 31 Dec 1994 23:59:59 GMT', NOW)).toBe(Date.UTC(1994, 11, 31, 23, 59, 59));
    expect(parseHttpDate('Mon, 31 Jan 1994 00:00:00 GMT', NOW)).toBe(Date.UTC(1994, 0, 31));
  });
});

describe('formatRetryAfter', () => {
  // RFC 9110 §10.2.3: delay-seconds is 1*DIGIT; integer-parsing clients read "0.2" as 0 (retry at once) or as junk.
  it.each([
    [200, '1'],
    [1000, '1'],
    [1001, '2'],
    [1500, '2'],
    [10, '1'],
    [0, '0'],
    [0.2, '1'],
    [1999.5, '2'],
    [-5, '0'],
    [Number.NaN, '0'],
    [1e20, '1000000000000'],
  ])('writes %d ms as %s whole seconds, rounded up', (ms, text) => {
    expect(formatRetryAfter(ms)).toBe(text);
  });

  it('always writes RFC 9110 delay-seconds that read back as at least the wait, and less than a second more (property)', () => {
    fc.assert(
      // up to the parsers' bound (MAX_SERVER_WAIT_MS) less the second rounding adds
      fc.property(fc.double({ min: 0, max: MAX_SERVER_WAIT_MS - 1000, noNaN: true }), (ms) => {
        const text = formatRetryAfter(ms);
        expect(text).toMatch(/^\d+$/);
        const read = parseRetryAfter(text, 0);
        expect(read.ok).toBe(true);
        const delayMs = (read as { delayMs: number }).delayMs;
        expect(delayMs).toBeGreaterThanOrEqual(ms);
        expect(delayMs - Math.ceil(ms)).toBeLessThan(1000); // the wait in whole ms, then whole seconds
      }),
      propertyRuns(),
    );
  });
});

describe('retry-after-ms', () => {
  it.each([
    ['200', 200],
    ['0', 0],
    [' 1500 ', 1500],
    ['0.5', 1],
    ['12.000', 12],
    ['12.001', 13],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseRetryAfterMs(text)).toEqual({ ok: true, delayMs: ms, bounded: false });
  });

  it.each(['', '-1', '1e3', '.5', '5.', 'abc', '0x10', '1 2', 'NaN'])('rejects %j as malformed', (text) => {
    expect(parseRetryAfterMs(text)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('writes whole ms rounded up', () => {
    expect(formatRetryAfterMs(200)).toBe('200');
    expect(formatRetryAfterMs(200.1)).toBe('201');
    expect(formatRetryAfterMs(-1)).toBe('0');
    expect(formatRetryAfterMs(Number.NaN)).toBe('0');
  });
});

describe('parseGrpcPushback', () => {
  it.each([
    ['0', 0],
    ['100', 100],
    ['00012', 12],
    ['2147483647', 2_147_483_647],
    // Surrounding blanks are the field's optional whitespace (RFC 9110 §5.6.3): the same whether one member or a list.
    [' 5', 5],
    ['5\t', 5],
  ])('retries after exactly %j ms', (text, ms) => {
    expect(parseGrpcPushback(text)).toEqual({ kind: 'retry', delayMs: ms });
  });

  it('reads -0 as a zero (not negative) delay', () => {
    const read = parseGrpcPushback('-0');
    expect(read).toEqual({ kind: 'retry', delayMs: 0 });
    expect(Object.is((read as { delayMs: number }).delayMs, 0)).toBe(true);
  });

  it.each(['-1', '-2147483648', '-00005'])('stops on the negative value %s', (text) => {
    expect(parseGrpcPushback(text)).toEqual({ kind: 'stop', reason: 'negative' });
  });

  it.each([
    '',
    '-',
    '+5',
    ' ',
    '5 5',
    '- 5',
    '1.5',
    'abc',
    '1e3',
    '5ms',
    '2147483648',
    '-2147483649',
    '99999999999',
    '9'.repeat(100),
    '--5',
  ])('stops on the malformed value %j (grpc-js once retried at once on junk)', (text) => {
    expect(parseGrpcPushback(text)).toEqual({ kind: 'stop', reason: 'malformed' });
  });

  it.each([null, undefined])('reports %s as absent', (value) => {
    expect(parseGrpcPushback(value)).toEqual({ kind: 'absent' });
  });

  it('reads every int32 exactly and rejects every integer beyond it (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        expect(parseGrpcPushback(String(n))).toEqual(
          n < 0 ? { kind: 'stop', reason: 'negative' } : { kind: 'retry', delayMs: n },
        );
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 2 ** 31, max: 2 ** 52 }), fc.integer({ min: -(2 ** 52), max: -(2 ** 31) - 1 })),
        (n) => {
          expect(parseGrpcPushback(String(n))).toEqual({ kind: 'stop', reason: 'malformed' });
        },
      ),
    );
  });
});

describe('retry-after parsers on arbitrary input', () => {
  const crafted = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string(),
    fc.stringMatching(/^[ \t]?-?\d{0,400}(\.\d{0,10})?[ \t]?$/),
    fc.stringMatching(/^[\d.eE+\- ]{0,24}$/),
    fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toUTCString()),
  );

  it('never throw and never return NaN (property)', () => {
    fc.assert(
      fc.property(crafted, fc.double(), (text, now) => {
        const read = parseRetryAfter(text, now);
        if (read.ok) {
          expect(Number.isNaN(read.delayMs)).toBe(false);
          expect(read.delayMs).toBeGreaterThanOrEqual(0);
        }
        const pushback = parseGrpcPushback(text);
        if (pushback.kind === 'retry') expect(Number.isInteger(pushback.delayMs)).toBe(true);
        const date = parseHttpDate(text, now);
        if (date !== undefined) expect(Number.isNaN(date)).toBe(false);
      }),
    );
  });

  it('reads every IMF-fixdate produced by Date#toUTCString back to the same second (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => {
        const ms = seconds * 1000;
        expect(parseHttpDate(new Date(ms).toUTCString(), 0)).toBe(ms);
      }),
    );
  });
});
