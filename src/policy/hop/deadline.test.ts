// Tests for deadline.ts: the Deadline value, the three wire codecs and readDeadline's choice among them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import {
  ABSOLUTE_DEADLINE_HEADER,
  Deadline,
  decodeAbsoluteDeadline,
  decodeEnvoyTimeoutMs,
  decodeGrpcTimeout,
  encodeAbsoluteDeadline,
  encodeEnvoyTimeoutMs,
  encodeGrpcTimeout,
  headerValue,
  MAX_ACCEPTED_DEADLINE_MS,
  readDeadline,
} from './deadline.js';

const NOW = 1_764_486_000_000;

describe('Deadline', () => {
  it('counts down to zero and expires exactly at its instant', () => {
    const d = Deadline.after(1000, 500);
    expect(d.atMs).toBe(1500);
    expect(d.remaining(1200)).toBe(300);
    expect(d.remaining(1500)).toBe(0);
    expect(d.remaining(2000)).toBe(0);
    expect(d.expired(1499)).toBe(false);
    expect(d.expired(1500)).toBe(true);
  });

  it('never expires when infinite and never reports NaN time left', () => {
    const none = new Deadline(Number.POSITIVE_INFINITY);
    expect(none.expired(1e15)).toBe(false);
    expect(none.remaining(1e15)).toBe(Number.POSITIVE_INFINITY);
    expect(new Deadline(5).remaining(Number.NaN)).toBe(0);
  });

  it('rejects a NaN instant with a ConfigError', () => {
    expect(() => new Deadline(Number.NaN)).toThrow(ConfigError);
    try {
      new Deadline(Number.NaN);
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([{ path: 'deadline', message: 'must be a number, got NaN' }]);
    }
    expect(() => Deadline.after(Number.NaN, 5)).toThrow(ConfigError);
  });
});

describe('absolute deadline header', () => {
  it('is called x-request-deadline and caps at five minutes by default', () => {
    expect(ABSOLUTE_DEADLINE_HEADER).toBe('x-request-deadline');
    expect(MAX_ACCEPTED_DEADLINE_MS).toBe(300_000);
  });

  it.each([
    [NOW + 123, '1764486000.123'],
    [1000, '1.000'],
    [5, '0.005'],
    [50, '0.050'],
    [10, '0.010'],
    [100, '0.100'],
    [1.6, '0.002'],
    [1.4, '0.001'],
    [0, '0.000'],
    [-5, '0.000'],
    [Number.NaN, '0.000'],
    [Number.POSITIVE_INFINITY, '8640000000000.000'],
  ])('encodes %d ms as %s (epoch seconds, exactly 3 decimals)', (atMs, text) => {
    expect(encodeAbsoluteDeadline(atMs)).toBe(text);
  });

  it.each([
    ['1764486000.123', NOW + 123],
    ['1764486000', NOW],
    ['1764486000.5', NOW + 500],
    ['1764486000.05', NOW + 50],
    ['1764486000.1239', NOW + 123],
    ['1764485000.000', NOW - 1_000_000],
  ])('decodes %s to %d ms (digits past the ms truncated; a past deadline is valid)', (text, atMs) => {
    expect(decodeAbsoluteDeadline(text, NOW)).toEqual({ ok: true, atMs, capped: false });
  });

  it('caps a deadline beyond now + maxMs, and not one exactly at it', () => {
    expect(decodeAbsoluteDeadline('1764486300.001', NOW)).toEqual({ ok: true, atMs: NOW + 300_000, capped: true });
    expect(decodeAbsoluteDeadline('1764486300.000', NOW)).toEqual({ ok: true, atMs: NOW + 300_000, capped: false });
    expect(decodeAbsoluteDeadline('1764486010', NOW, 5000)).toEqual({ ok: true, atMs: NOW + 5000, capped: true });
    expect(decodeAbsoluteDeadline('1764486010', NOW, 0)).toEqual({ ok: true, atMs: NOW, capped: true });
    expect(decodeAbsoluteDeadline('9999999999', NOW, Number.POSITIVE_INFINITY)).toEqual({
      ok: true,
      atMs: 9_999_999_999_000,
      capped: false,
    });
  });

  it.each([Number.NaN, -1])('uses the default cap when maxMs is %d', (maxMs) => {
    expect(decodeAbsoluteDeadline('1764487000', NOW, maxMs)).toEqual({ ok: true, atMs: NOW + 300_000, capped: true });
  });

  it.each([
    ['', 'malformed'],
    [' 1764486000', 'malformed'],
    ['1764486000 ', 'malformed'],
    ['1.', 'malformed'],
    ['.5', 'malformed'],
    ['1e9', 'malformed'],
    ['+5', 'malformed'],
    ['0x10', 'malformed'],
    ['1.2.3', 'malformed'],
    ['1.1234567890', 'malformed'],
    ['123456789012345678901', 'malformed'],
    ['NaN', 'malformed'],
    ['-1.000', 'out-of-range'],
    ['-abc', 'malformed'],
    ['8640000000000.001', 'out-of-range'],
  ])('rejects %j as %s', (text, reason) => {
    expect(decodeAbsoluteDeadline(text, NOW, Number.POSITIVE_INFINITY)).toEqual({ ok: false, reason });
  });

  it('accepts the largest Date instant', () => {
    expect(decodeAbsoluteDeadline('8640000000000', 0, Number.POSITIVE_INFINITY)).toEqual({
      ok: true,
      atMs: 8.64e15,
      capped: false,
    });
  });

  it.each([null, undefined])('reports %s as absent', (value) => {
    expect(decodeAbsoluteDeadline(value, NOW)).toEqual({ ok: false, reason: 'absent' });
  });

  it('round-trips any instant within 1 ms (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 8.64e15, noNaN: true }), (atMs) => {
        const read = decodeAbsoluteDeadline(encodeAbsoluteDeadline(atMs), 0, Number.POSITIVE_INFINITY);
        expect(read.ok).toBe(true);
        if (read.ok) expect(Math.abs(read.atMs - atMs)).toBeLessThan(1);
      }),
    );
  });
});

describe('grpc-timeout', () => {
  // grpc/grpc-node packages/grpc-js/src/deadline.ts getDeadlineTimeoutString; vectors from docs/semantics.md §2.
  it.each([
    [0, '0m'],
    [1500, '1500m'],
    [1e8, '100000S'],
    [1.2, '2m'],
  ])('encodes %d ms as %s, like grpc-js', (ms, text) => {
    expect(encodeGrpcTimeout(ms)).toBe(text);
  });

  it.each([
    [99_999_999, '99999999m'],
    [99_999_999.5, '100000S'],
    [100_000_000.5, '100001S'],
    [99_999_999_000, '99999999S'],
    [99_999_999_001, '1666667M'],
    [5_999_999_940_000, '99999999M'],
    [5_999_999_940_001, '1666667H'],
    [359_999_996_400_000, '99999999H'],
    [1e20, '99999999H'],
    [Number.POSITIVE_INFINITY, '99999999H'],
    [-5, '0m'],
    [Number.NaN, '0m'],
  ])('encodes %d ms as %s: each unit used up to 8 digits, rounding up', (ms, text) => {
    expect(encodeGrpcTimeout(ms)).toBe(text);
  });

  it.each([
    ['1H', 3_600_000],
    ['2M', 120_000],
    ['3S', 3000],
    ['4m', 4],
    ['5u', 0.005],
    ['6n', 0.000006],
    ['99999999S', 99_999_999_000],
    ['00000001m', 1],
    ['0m', 0],
  ])('decodes %s as %d ms', (text, ms) => {
    expect(decodeGrpcTimeout(text)).toEqual({ ok: true, ms });
  });

  it.each(['123456789S', '', 'S', '1', '1x', '1s', ' 1S', '1S ', '-1S', '1.5S', '1SS', '1S\n'])(
    'rejects %j as malformed (anchored: grpc-js read 123456789S as 23456789S)',
    (text) => {
      expect(decodeGrpcTimeout(text)).toEqual({ ok: false, reason: 'malformed' });
    },
  );

  it.each([null, undefined])('reports %s as absent', (value) => {
    expect(decodeGrpcTimeout(value)).toEqual({ ok: false, reason: 'absent' });
  });

  it('round-trips any timeout to at least the original and less than one unit more (property)', () => {
    const unitMs: Record<string, number> = { m: 1, S: 1000, M: 60_000, H: 3_600_000 };
    fc.assert(
      fc.property(fc.oneof(fc.double({ min: 0, max: 3.5e14, noNaN: true }), fc.nat()), (ms) => {
        const text = encodeGrpcTimeout(ms);
        const read = decodeGrpcTimeout(text);
        expect(read.ok).toBe(true);
        if (!read.ok) return;
        expect(read.ms).toBeGreaterThanOrEqual(ms);
        expect(read.ms - ms).toBeLessThanOrEqual(unitMs[text.slice(-1)] as number);
      }),
    );
  });
});

describe('x-envoy-expected-rq-timeout-ms', () => {
  it.each([
    ['0', 0],
    ['1500', 1500],
    ['999999999999999', 999_999_999_999_999],
  ])('decodes %s as %d ms', (text, ms) => {
    expect(decodeEnvoyTimeoutMs(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '-1', '1.5', ' 5', '5 ', '+5', '1e3', '1000000000000000', 'abc'])('rejects %j as malformed', (text) => {
    expect(decodeEnvoyTimeoutMs(text)).toEqual({ ok: false, reason: 'malformed' });
  });

  it.each([null, undefined])('reports %s as absent', (value) => {
    expect(decodeEnvoyTimeoutMs(value)).toEqual({ ok: false, reason: 'absent' });
  });

  it.each([
    [1500, '1500'],
    [0.2, '1'],
    [1500.01, '1501'],
    [0, '0'],
    [-5, '0'],
    [Number.NaN, '0'],
    [Number.POSITIVE_INFINITY, '999999999999999'],
  ])('encodes %d ms as %s (whole ms, rounded up)', (ms, text) => {
    expect(encodeEnvoyTimeoutMs(ms)).toBe(text);
  });
});

describe('headerValue', () => {
  it('reads Fetch Headers, node-style records, mixed-case records and repeated headers', () => {
    expect(headerValue(new Headers({ 'Grpc-Timeout': '1S' }), 'grpc-timeout')).toBe('1S');
    expect(headerValue(new Headers(), 'grpc-timeout')).toBeUndefined();
    expect(headerValue({ 'grpc-timeout': '2S' }, 'grpc-timeout')).toBe('2S');
    expect(headerValue({ 'Grpc-Timeout': '3S', Other: 'x' }, 'grpc-timeout')).toBe('3S');
    expect(headerValue({ Other: 'x' }, 'grpc-timeout')).toBeUndefined();
    expect(headerValue({ 'grpc-timeout': ['4S'] }, 'grpc-timeout')).toBe('4S');
    expect(headerValue({ 'grpc-timeout': ['4S', '5S'] }, 'grpc-timeout')).toBe('4S,5S');
    expect(headerValue({ get: 'not a function', 'grpc-timeout': '6S' }, 'grpc-timeout')).toBe('6S');
  });
});

describe('readDeadline', () => {
  // Issue #9 item 6: a caller whose clock is 2.5 s behind must not get every call answered 504.
  it('lets a relative deadline decide when the absolute one is there too, and reports their difference', () => {
    const headers = { 'grpc-timeout': '2S', 'x-request-deadline': '1764485999.5' }; // the caller's clock is 2.5 s behind
    expect(readDeadline(headers, NOW)).toEqual({
      ok: true,
      atMs: NOW + 2000,
      capped: false,
      source: 'grpc-timeout',
      skewMs: -2500,
    });
    // ...and the other way round: a caller ahead of us cannot extend its deadline through the absolute header.
    expect(readDeadline({ 'grpc-timeout': '2S', 'x-request-deadline': '1764486060' }, NOW)).toMatchObject({
      atMs: NOW + 2000,
      skewMs: 58_000,
    });
  });

  it('takes the earlier of the two relative forms, grpc-timeout on a tie', () => {
    const headers = { 'grpc-timeout': '5S', 'x-envoy-expected-rq-timeout-ms': '3000' };
    expect(readDeadline(headers, NOW)).toEqual({
      ok: true,
      atMs: NOW + 3000,
      capped: false,
      source: 'x-envoy-expected-rq-timeout-ms',
    });
    expect(readDeadline({ ...headers, 'grpc-timeout': '2S' }, NOW)).toMatchObject({
      atMs: NOW + 2000,
      source: 'grpc-timeout',
    });
    expect(readDeadline({ ...headers, 'grpc-timeout': '3S' }, NOW).source).toBe('grpc-timeout');
  });

  it('uses the absolute deadline alone only when no relative one is usable', () => {
    expect(readDeadline({ 'x-request-deadline': '1764486002.5' }, NOW)).toEqual({
      ok: true,
      atMs: NOW + 2500,
      capped: false,
      source: 'x-request-deadline',
    });
    expect(readDeadline({ 'grpc-timeout': 'junk', 'x-request-deadline': '1764486002.5' }, NOW)).toMatchObject({
      atMs: NOW + 2500,
      source: 'x-request-deadline',
    });
  });

  it('measures the skew on the absolute deadline as sent, even one far beyond the cap', () => {
    const read = readDeadline({ 'grpc-timeout': '1S', 'x-request-deadline': '1764496000' }, NOW);
    expect(read).toEqual({ ok: true, atMs: NOW + 1000, capped: false, source: 'grpc-timeout', skewMs: 9_999_000 });
  });

  it('caps relative timeouts at maxMs, and not one exactly at it', () => {
    expect(readDeadline({ 'grpc-timeout': '10M' }, NOW)).toEqual({
      ok: true,
      atMs: NOW + 300_000,
      capped: true,
      source: 'grpc-timeout',
    });
    expect(readDeadline({ 'grpc-timeout': '5M' }, NOW)).toMatchObject({ atMs: NOW + 300_000, capped: false });
    expect(readDeadline({ 'x-envoy-expected-rq-timeout-ms': '2000' }, NOW, 1000)).toMatchObject({
      atMs: NOW + 1000,
      capped: true,
    });
    expect(readDeadline({ 'x-request-deadline': '1764486002' }, NOW, 1000)).toMatchObject({
      atMs: NOW + 1000,
      capped: true,
    });
    expect(readDeadline({ 'grpc-timeout': '10M' }, NOW, Number.NaN)).toMatchObject({ atMs: NOW + 300_000 });
  });

  it('uses a valid header when another is malformed', () => {
    expect(readDeadline({ 'grpc-timeout': '123456789S', 'x-request-deadline': '1764486001' }, NOW)).toEqual({
      ok: true,
      atMs: NOW + 1000,
      capped: false,
      source: 'x-request-deadline',
    });
  });

  it('reports the first failure in preference order when no header is valid, else absent', () => {
    expect(readDeadline({}, NOW)).toEqual({ ok: false, reason: 'absent' });
    expect(readDeadline(new Headers(), NOW)).toEqual({ ok: false, reason: 'absent' });
    expect(readDeadline({ 'x-request-deadline': '-5' }, NOW)).toEqual({
      ok: false,
      reason: 'out-of-range',
      source: 'x-request-deadline',
    });
    expect(readDeadline({ 'x-envoy-expected-rq-timeout-ms': 'x', 'x-request-deadline': '-5' }, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
      source: 'x-envoy-expected-rq-timeout-ms',
    });
    expect(readDeadline({ 'grpc-timeout': 'x', 'x-envoy-expected-rq-timeout-ms': 'y' }, NOW)).toMatchObject({
      source: 'grpc-timeout',
    });
  });

  it('reads Fetch Headers', () => {
    const headers = new Headers({ 'grpc-timeout': '250m' });
    expect(readDeadline(headers, NOW)).toEqual({ ok: true, atMs: NOW + 250, capped: false, source: 'grpc-timeout' });
  });

  it('never reports a NaN deadline for a NaN now', () => {
    expect(readDeadline({ 'grpc-timeout': '1S' }, Number.NaN)).toEqual({
      ok: false,
      reason: 'out-of-range',
      source: 'grpc-timeout',
    });
  });
});

describe('deadline parsers on arbitrary input', () => {
  const crafted = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string(),
    fc.stringMatching(/^-?\d{0,22}(\.\d{0,12})?[HMSmun]?$/),
    fc.stringMatching(/^[\d.eE+\- ]{0,20}$/),
  );

  it('never throw and never return NaN (property)', () => {
    fc.assert(
      fc.property(crafted, crafted, crafted, fc.integer({ min: -1e15, max: 1e15 }), (a, b, c, now) => {
        const reads = [
          decodeAbsoluteDeadline(a, now),
          decodeGrpcTimeout(a),
          decodeEnvoyTimeoutMs(a),
          readDeadline({ 'grpc-timeout': a, 'x-envoy-expected-rq-timeout-ms': b, 'x-request-deadline': c }, now),
        ];
        for (const read of reads) {
          if ('atMs' in read) expect(Number.isNaN(read.atMs)).toBe(false);
          if ('ms' in read) expect(Number.isNaN(read.ms)).toBe(false);
        }
      }),
    );
  });
});

describe('headerValue lookup order', () => {
  it('prefers the exact lower-case key over a differently cased duplicate', () => {
    expect(headerValue({ 'X-Request-Deadline': 'upper', 'x-request-deadline': 'lower' }, 'x-request-deadline')).toBe(
      'lower',
    );
  });
});
