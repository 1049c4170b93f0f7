// AdaptiveThrottle: the SRE book's formula, gRPC's reference vectors, the volume gate, what counts as a rejection, config errors.

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import type { Random } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import {
  AdaptiveThrottle,
  isOverloadAnswer,
  rejectProbability,
  resolveThrottleConfig,
  type ThrottleConfig,
} from './throttle.js';

/** Draws `u` every time, and counts the draws taken. */
function fixed(u: number): Random & { taken: number } {
  const r = {
    taken: 0,
    next: () => {
      r.taken++;
      return u;
    },
    nextUint32: () => Math.floor(u * 2 ** 32),
    fork: () => r,
  };
  return r;
}

const OK: Outcome = { kind: 'response', status: 200 };
const OWN_503: Outcome = { kind: 'response', status: 503 };
const adaptive = (more: Partial<ThrottleConfig> = {}): ThrottleConfig => ({ kind: 'adaptive', ...more });

describe('the SRE book formula', () => {
  it('is max(0, (requests − k·accepts) / (requests + 1))', () => {
    expect(rejectProbability(0, 0, 2)).toBe(0);
    expect(rejectProbability(10, 10, 2)).toBe(0); // all accepted: never below 0
    expect(rejectProbability(100, 0, 2)).toBeCloseTo(100 / 101, 12);
    expect(rejectProbability(100, 20, 2)).toBeCloseTo(60 / 101, 12);
    expect(rejectProbability(100, 50, 2)).toBe(0); // requests = k·accepts: the edge of throttling
  });

  // grpc/grpc-go balancer/rls/internal/adaptive/adaptive_test.go, TestShouldThrottleOptions: the same sequence of
  // backend answers (T throttled, A accepted) with the draw fixed at 0.5; gRPC pads with `requestsPadding` where the
  // book has 1, and counts a local refusal as a throttled request, as Seawall does.
  const T = false;
  const A = true;
  const answers = [T, T, T, T, T, T, T, T, T, A, A, A, A, A, A, T, T, T, T];
  const n = false;
  const y = true;
  it.each([
    ['Baseline', 1.1, 8, [n, n, n, n, n, n, n, n, y, y, y, y, y, n, n, n, y, y, y]],
    ['ChangePadding', 1.1, 7, [n, n, n, n, n, n, n, y, y, y, y, y, y, y, y, y, y, y, y]],
    ['ChangeRatioForAccepts', 1.4, 8, [n, n, n, n, n, n, n, n, y, y, n, n, n, n, n, n, n, n, n]],
  ])('gRPC vector %s (k %d, padding %d)', (_name, k, padding, want) => {
    let requests = 0;
    let accepts = 0;
    const got = answers.map((accepted) => {
      requests++;
      if (accepted) accepts++;
      const refused = 0.5 < rejectProbability(requests, accepts, k, padding);
      if (refused) requests++;
      return refused;
    });
    expect(got).toEqual(want);
  });

  it('the throttle draws its refusals with that probability (the draw below p refuses)', () => {
    const t = new AdaptiveThrottle(adaptive({ minRequests: 0 }));
    for (let i = 0; i < 99; i++) t.sent();
    for (let i = 0; i < 99; i++) t.ended(0, OWN_503);
    t.sent();
    t.ended(0, OK); // 100 requests, 1 accept: p = 98/101
    const p = 98 / 101;
    expect(t.probability(0)).toBeCloseTo(p, 12);
    expect(t.admit(0, fixed(p - 1e-9))).toBe(false);
    // The refusal is a request too (101 now, p = 99/102): a draw just above the new p is let through.
    expect(t.admit(0, fixed(99 / 102 + 1e-9))).toBe(true);
    expect(t.stats(0)).toMatchObject({ requests: 101, accepts: 1, throttled: 1, sent: 100, rejected: 99 });
  });
});

describe('gates', () => {
  it('refuses nothing, and draws nothing, below minRequests in the window', () => {
    const t = new AdaptiveThrottle(adaptive({ minRequests: 20 }));
    const draws = fixed(0);
    for (let i = 0; i < 19; i++) {
      expect(t.admit(i, draws)).toBe(true);
      t.sent();
      t.ended(i, OWN_503);
    }
    expect(draws.taken).toBe(0);
    t.sent();
    t.ended(19, OWN_503);
    expect(t.admit(20, draws)).toBe(false); // 20 requests, none accepted
  });

  it('forgets within one window: a rejection older than the window counts no more', () => {
    const t = new AdaptiveThrottle(adaptive({ window: '10s', minRequests: 1 }));
    for (let i = 0; i < 50; i++) {
      t.sent();
      t.ended(0, OWN_503);
    }
    expect(t.probability(9_000)).toBeGreaterThan(0.9);
    expect(t.probability(10_000)).toBe(0); // the window's 20 buckets of 500 ms have all moved past 0
    expect(t.stats(10_000)).toMatchObject({ requests: 0, accepts: 0 });
  });
});

describe('a NaN or infinite now (a broken clock in a driver)', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'with %d: the counts stay numbers and the window moves on afterwards',
    (bad) => {
      const t = new AdaptiveThrottle(adaptive({ window: '10s', minRequests: 1 }));
      for (let i = 0; i < 10; i++) {
        t.sent();
        t.ended(i === 0 ? bad : 0, OWN_503);
      }
      expect(t.probability(bad)).toBeCloseTo(10 / 11, 10);
      expect(t.stats(1_000)).toMatchObject({ requests: 10, accepts: 0 });
      expect(t.probability(10_000)).toBe(0); // forgotten one window later, as with a sound clock
      t.sent();
      t.ended(10_500, OK);
      expect(t.stats(10_500)).toMatchObject({ requests: 1, accepts: 1 });
    },
  );
});

describe('what counts as a rejection: the callee itself saying "too much"', () => {
  it.each<[string, Outcome, boolean]>([
    ['its own 503', OWN_503, true],
    ['its own 429', { kind: 'response', status: 429, claim: 'claimed' }, true],
    ['a 503 from a callee without Seawall (no claim)', { kind: 'response', status: 503, claim: 'absent' }, true],
    ['a 503 relayed from further down', { kind: 'response', status: 503, claim: 'unclaimed' }, false],
    ['a 503 relayed with criteria met', { kind: 'response', status: 503, claim: 'criteria-met' }, false],
    ['a 500 with grpc pushback', { kind: 'response', status: 500, pushbackMs: '100' }, true],
    ['a 500 with Retry-After', { kind: 'response', status: 500, retryAfter: '1' }, true],
    ['a plain 500', { kind: 'response', status: 500 }, false],
    ['a 200', OK, false],
    ['a 200 with Retry-After', { kind: 'response', status: 200, retryAfter: '1' }, false],
    ['a timeout', { kind: 'timeout' }, false],
    ['a reset', { kind: 'reset' }, false],
  ])('%s: %s', (_name, outcome, rejection) => {
    expect(isOverloadAnswer(outcome)).toBe(rejection);
  });
});

describe('config', () => {
  it('defaults: k 2, window 2m, minRequests 20', () => {
    expect(resolveThrottleConfig({ kind: 'adaptive' })).toEqual({ k: 2, windowMs: 120_000, minRequests: 20 });
  });

  it('names every bad key by its path', () => {
    const bad = { kind: 'adaptiv', k: 0.5, window: '500ms', minRequests: -1, K: 2 };
    let error: unknown;
    try {
      resolveThrottleConfig(bad, 'calls.api -> db.throttle');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((i) => i.path).sort();
    expect(paths).toEqual(
      ['kind', 'k', 'window', 'minRequests', 'K'].map((k) => `calls.api -> db.throttle.${k}`).sort(),
    );
    expect(String(error)).toMatch(/k: must be a number from 1 to 100/);
    expect(() => resolveThrottleConfig({ kind: 'adaptive', window: '2h' })).toThrow(/window: must be from 1s to 1h/);
    expect(() => resolveThrottleConfig({ kind: 'adaptive', k: 101 })).toThrow(/throttle\.k/);
    expect(() => resolveThrottleConfig({ kind: 'adaptive', k: Number.NaN })).toThrow(/throttle\.k/);
    expect(() => resolveThrottleConfig({ kind: 'adaptive', minRequests: 1.5 })).toThrow(/throttle\.minRequests/);
    expect(() => resolveThrottleConfig('adaptive')).toThrow(/throttle: must be an object/);
  });
});
