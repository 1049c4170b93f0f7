// Tests for the mesh duration spellings: Envoy's proto3 JSON and Istio's Go-style, both ways, with property checks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readGoDuration, readProtoDuration, writeGoDuration, writeProtoDuration } from './durations.js';

describe('Envoy durations (proto3 JSON)', () => {
  it.each([
    ['0.25s', 250],
    ['1s', 1000],
    ['0s', 0],
    ['0.000001s', 0.001],
    ['300s', 300_000],
    ['1.900000000s', 1900],
  ])('reads %j as %d ms', (text, ms) => {
    expect(readProtoDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([[1], ['1'], ['250ms'], ['-1s'], ['1.0000000001s'], [Number.NaN], [null], ['1e3s'], [' 1s']])(
    'refuses %j',
    (value) => {
      const read = readProtoDuration(value);
      expect(read.ok).toBe(false);
    },
  );

  it('refuses more than a day, as Seawall bounds every duration', () => {
    expect(readProtoDuration('86401s')).toMatchObject({ ok: false, message: expect.stringContaining('24h') });
  });

  it.each([
    [250, '0.25s'],
    [1000, '1s'],
    [1900, '1.9s'],
    [0.5, '0.0005s'],
  ])('writes %d ms as %j', (ms, text) => {
    expect(writeProtoDuration(ms)).toBe(text);
  });

  it('reads back exactly what it writes (every nanosecond count up to a day)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400_000_000_000 }), (ns) => {
        const ms = ns / 1e6;
        const read = readProtoDuration(writeProtoDuration(ms));
        return read.ok && Math.round(read.ms * 1e6) === ns;
      }),
      { numRuns: 500 },
    );
  });
});

describe('Istio durations (Go style)', () => {
  it.each([
    ['1s', 1000],
    ['250ms', 250],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['1h', 3_600_000],
    ['500us', 0.5],
  ])('reads %j as %d ms', (text, ms) => {
    expect(readGoDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([[1000], [''], ['1'], ['1 s'], ['1sec'], ['-1s'], [{}]])('refuses %j', (value) => {
    expect(readGoDuration(value).ok).toBe(false);
  });

  it('reads back exactly what it writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400_000_000 }), (us) => {
        const ms = us / 1000;
        const read = readGoDuration(writeGoDuration(ms));
        return read.ok && Math.round(read.ms * 1000) === us;
      }),
      { numRuns: 500 },
    );
  });
});
