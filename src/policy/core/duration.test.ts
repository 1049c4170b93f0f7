// Tests for duration parsing: units, numbers of milliseconds, and clear errors naming the key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, joinPath } from './config-error.js';
import { collectDuration, type Duration, MAX_DURATION_MS, parseDuration, tryParseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    [800, 800],
    [0, 0],
    ['800ms', 800],
    ['2s', 2000],
    ['1.5s', 1500],
    ['.5s', 500],
    ['1.25s', 1250],
    ['.25s', 250],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['250us', 0.25],
    [' 2s ', 2000],
    ['2 s', 2000],
    ['24h', MAX_DURATION_MS],
  ])('reads %j as %d ms', (input, ms) => {
    expect(parseDuration(input as Duration)).toBe(ms); // ' 2s ' is read though the type leaves it out
  });

  it.each([['2'], ['2sec'], ['-1s'], ['1e3ms'], [''], ['s'], ['1.s'], ['NaNs']])('rejects %j', (input) => {
    expect(() => parseDuration(input as Duration, 'perTryTimeout')).toThrow(
      /^perTryTimeout: must be a duration like 800ms or 2s/,
    );
  });

  it('rejects negative, non-finite and over-long values', () => {
    expect(() => parseDuration(-1, 'x')).toThrow('x: must be a finite, non-negative duration');
    expect(() => parseDuration(Number.NaN, 'x')).toThrow(ConfigError);
    expect(() => parseDuration(Number.POSITIVE_INFINITY, 'x')).toThrow(ConfigError);
    expect(() => parseDuration('25h', 'x')).toThrow('x: must be at most 24h');
    expect(() => parseDuration(MAX_DURATION_MS + 1, 'x')).toThrow('x: must be at most 24h');
  });

  it('names the default key when none is given, and rejects non-string non-numbers', () => {
    expect(() => parseDuration(true as unknown as number)).toThrow(
      'duration: must be a duration (milliseconds or a string like "2s"), got boolean',
    );
  });

  it('collects problems instead of throwing', () => {
    const issues: { path: string; message: string }[] = [];
    expect(collectDuration('3s', 'a', issues)).toBe(3000);
    expect(collectDuration('x', 'b', issues)).toBeUndefined();
    expect(issues.map((i) => i.path)).toEqual(['b']);
  });

  it('never throws from tryParseDuration and never returns NaN', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.anything()), (value) => {
        const result = tryParseDuration(value);
        if (result.ok) expect(Number.isFinite(result.ms) && result.ms >= 0).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('ConfigError', () => {
  it('prints one line per issue and marks the root path', () => {
    const error = new ConfigError([
      { path: '', message: 'must be an object' },
      { path: 'a.b', message: 'unknown key' },
    ]);
    expect(error.message).toBe('(root): must be an object\na.b: unknown key');
    expect(error.name).toBe('ConfigError');
  });

  it('joins paths', () => {
    expect(joinPath('', 'a')).toBe('a');
    expect(joinPath('a', 0)).toBe('a.0');
  });
});
