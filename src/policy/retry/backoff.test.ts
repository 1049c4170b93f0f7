// Tests for backoff.ts: each kind's exact values and bounds, Envoy's coded vector, and config validation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import {
  type BackoffConfig,
  backoffBoundMs,
  backoffDelay,
  envoyBackoffDelay,
  type ResolvedBackoff,
  resolveBackoff,
  validateBackoffConfig,
} from './backoff.js';

const TWO_POW_32 = 4294967296;
const rb = (kind: ResolvedBackoff['kind'], baseMs: number, capMs: number, multiplier = 2): ResolvedBackoff => ({
  kind,
  baseMs,
  capMs,
  multiplier,
});

describe('envoyBackoffDelay', () => {
  // envoyproxy/envoy test/common/common/backoff_strategy_test.cc (JitteredExponentialBackOffStrategy with a mock
  // random returning 9999, base 5, max 100); rule from source/common/common/backoff_strategy.cc.
  it.each([
    [1, 4],
    [2, 9],
    [3, 19],
    [4, 39],
    [5, 79],
    [6, 99],
    [7, 99],
  ])('reproduces the Envoy vector: retry %d waits %d ms', (retry, wait) => {
    expect(envoyBackoffDelay(5, 100, retry, 9999)).toBe(wait);
  });

  it('doubles while below half of max, then jumps straight to max', () => {
    // next: 30, 60 (30 < 50), 100 (60 >= 50 → max), 100
    expect([1, 2, 3, 4].map((n) => envoyBackoffDelay(30, 100, n, 1_000_000 - 1))).toEqual([9, 39, 99, 99]);
  });

  it('follows the coded rule even when base exceeds max: the second interval is max', () => {
    expect(envoyBackoffDelay(100, 50, 1, 99)).toBe(99);
    expect(envoyBackoffDelay(100, 50, 2, 99)).toBe(49);
  });

  it('returns 0 instead of NaN for a zero, negative or NaN base or max, and for odd draws', () => {
    expect(envoyBackoffDelay(0, 100, 3, 9999)).toBe(0);
    expect(envoyBackoffDelay(-5, 100, 3, 9999)).toBe(0);
    expect(envoyBackoffDelay(Number.NaN, 100, 3, 9999)).toBe(0);
    expect(envoyBackoffDelay(5, Number.NaN, 3, 9999)).toBe(0);
    expect(envoyBackoffDelay(5, -1, 3, 9999)).toBe(0);
    expect(envoyBackoffDelay(5, 0, 2, 9999)).toBe(0);
    expect(envoyBackoffDelay(5, 0, 1, 9999)).toBe(4); // as coded: the first wait draws from base even when max is 0
    expect(envoyBackoffDelay(5, Number.NaN, 1, 9999)).toBe(0);
    expect(envoyBackoffDelay(5, 100, 3, -9999)).toBe(0);
    expect(envoyBackoffDelay(5, 100, 3, Number.NaN)).toBe(0);
  });

  it('terminates quickly for a huge retry number and an unbounded max', () => {
    expect(envoyBackoffDelay(1, Number.POSITIVE_INFINITY, 1e9, 12345)).toBe(12345);
    expect(envoyBackoffDelay(25, 250, 1e9, 9999)).toBe(9999 % 250);
  });
});

describe('backoffDelay', () => {
  // Built here rather than via resolveBackoff at collection time, which Stryker would count as static coverage.
  const fullJitter = rb('full-jitter', 50, 500);

  it.each([
    [1, 0.5, 50],
    [2, 0.5, 100],
    [3, 0.25, 100],
    [4, 0.5, 250],
    [1, 0, 0],
  ])('full jitter (50 ms, 500 ms): retry %d with u=%d waits %d ms, i.e. U(0, min(cap, base·2^retry))', (n, u, ms) => {
    expect(backoffDelay(fullJitter, n, 0, u)).toBe(ms);
  });

  it.each([
    [1, 0, 50],
    [1, 0.5, 75],
    [2, 0.5, 150],
    [10, 0.5, 375],
  ])('equal jitter (50 ms, 500 ms): retry %d with u=%d waits %d ms (c/2 + u·c/2)', (n, u, ms) => {
    expect(backoffDelay(rb('equal-jitter', 50, 500), n, 0, u)).toBe(ms);
  });

  it('exponential waits min(cap, base·multiplier^retry) whatever u is', () => {
    const b = rb('exponential', 10, 1000, 3);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(b, n, 0, 0.9))).toEqual([30, 90, 270, 810, 1000]);
    expect(backoffDelay(rb('exponential', 10, 1000), 2, 0, 0.1)).toBe(40);
  });

  it('constant waits the delay and none waits nothing, for any retry and draw', () => {
    expect(backoffDelay(rb('constant', 250, 250, 1), 7, 99, 0.3)).toBe(250);
    expect(backoffDelay(rb('constant', 250, 1000, 2), 7, 99, 0.3)).toBe(250);
    expect(backoffDelay(rb('none', 0, 0, 1), 7, 99, 0.3)).toBe(0);
    expect(backoffDelay({ kind: 'bogus' } as unknown as ResolvedBackoff, 1, 0, 0.5)).toBe(0);
  });

  it.each([
    [0, 0.7, 10],
    [2, 0.9, 10],
    [100, 0.5, 155],
    [100, 0, 10],
    [1000, 0.99, 1000],
    [Number.NaN, 0.5, 10],
    [-50, 0.5, 10],
    [Number.POSITIVE_INFINITY, 0, 10],
    [Number.POSITIVE_INFINITY, 0.5, 1000],
    [Number.NEGATIVE_INFINITY, 0.5, 10],
  ])('decorrelated jitter (10 ms, 1 s) after a %d ms wait with u=%d waits %d ms', (prev, u, ms) => {
    expect(backoffDelay(rb('decorrelated-jitter', 10, 1000), 3, prev, u)).toBe(ms);
  });

  it('envoy draws randomInt = floor(u·2^32) and reproduces the Envoy vector', () => {
    const b = resolveBackoff({ kind: 'envoy', base: 5, max: 100 });
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(b, n, 0, 9999.5 / TWO_POW_32))).toEqual([
      4, 9, 19, 39, 79, 99, 99,
    ]);
  });

  it.each([
    [1, 0.5, 1000],
    [1, 0, 800],
    [2, 0.5, 1600],
    [3, 0.5, 2560],
    [3, 1, 3072],
    [30, 0.5, 120_000],
    [30, 1, 144_000],
  ])(
    'gRPC (1 s, 120 s, ×1.6): retry %d with u=%d waits %d ms, i.e. min(initial·1.6^(n−1), max)·U(0.8, 1.2)',
    (n, u, ms) => {
      expect(backoffDelay(resolveBackoff({ kind: 'grpc' }), n, 0, u)).toBeCloseTo(ms, 6);
    },
  );

  it('clamps u into [0, 1] and reads NaN as 0', () => {
    expect(backoffDelay(fullJitter, 1, 0, -1)).toBe(0);
    expect(backoffDelay(fullJitter, 1, 0, Number.NaN)).toBe(0);
    expect(backoffDelay(fullJitter, 1, 0, 2)).toBe(100);
    expect(backoffDelay(fullJitter, 1, 0, Number.POSITIVE_INFINITY)).toBe(100);
  });

  it('reads a retry number below 1 or NaN as the first retry', () => {
    for (const n of [0, -3, Number.NaN, 0.5]) expect(backoffDelay(fullJitter, n, 0, 0.5)).toBe(50);
    expect(backoffDelay(rb('grpc', 1000, 120_000, 1.6), 0, 0, 0.5)).toBe(1000);
  });

  it('stays at the cap when multiplier^retry overflows, and at 0 for a zero base', () => {
    expect(backoffDelay(rb('exponential', 50, 500), 5000, 0, 0)).toBe(500);
    expect(backoffDelay(rb('exponential', 0, 500), 5000, 0, 0)).toBe(0);
    expect(backoffDelay(rb('full-jitter', 0, 500), 5000, 0, 0.5)).toBe(0);
  });

  it('stays at the cap when base already exceeds it', () => {
    expect(backoffDelay(rb('exponential', 800, 500), 1, 0, 0)).toBe(500);
  });

  it('returns base exactly when base equals the cap', () => {
    expect(backoffDelay(rb('grpc', 1000, 1000, 1.6), 1, 0, 0.5)).toBe(1000);
  });
});

describe('backoffBoundMs', () => {
  it.each<[ResolvedBackoff, number]>([
    [rb('none', 0, 0, 1), 0],
    [rb('constant', 250, 250, 1), 250],
    [rb('full-jitter', 50, 500), 500],
    [rb('envoy', 25, 250), 250],
    [rb('grpc', 1000, 120_000, 1.6), 144_000],
  ])('bounds %j by %d ms', (b, bound) => {
    expect(backoffBoundMs(b)).toBe(bound);
  });
});

const validConfig: fc.Arbitrary<BackoffConfig> = (() => {
  const ms = fc.integer({ min: 0, max: 60_000 });
  const positive = fc.integer({ min: 1, max: 60_000 });
  const pair = fc.tuple(ms, ms).map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));
  return fc.oneof(
    fc.constantFrom<BackoffConfig>('none', 'full-jitter', { kind: 'none' }),
    ms.map((delay): BackoffConfig => ({ kind: 'constant', delay })),
    fc
      .tuple(pair, fc.double({ min: 0.01, max: 10, noNaN: true }))
      .map(([[base, cap], multiplier]): BackoffConfig => ({ kind: 'exponential', base, cap, multiplier })),
    fc
      .tuple(fc.constantFrom('full-jitter' as const, 'equal-jitter' as const, 'decorrelated-jitter' as const), pair)
      .map(([kind, [base, cap]]) => ({ kind, base, cap }) as BackoffConfig),
    fc.tuple(positive, fc.integer({ min: 1, max: 100 })).map(
      ([base, k]): BackoffConfig => ({
        kind: 'envoy',
        base,
        max: base * k,
      }),
    ),
    fc
      .tuple(pair, fc.double({ min: 0.1, max: 10, noNaN: true }))
      .map(([[initial, max], multiplier]): BackoffConfig => ({ kind: 'grpc', initial, max, multiplier })),
  );
})();

describe('backoff properties', () => {
  it('keeps every delay finite and within [0, bound] for any retry 1..1000, u in [0, 1) and previous wait', () => {
    fc.assert(
      fc.property(
        validConfig,
        fc.integer({ min: 1, max: 1000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.oneof(fc.double({ noNaN: false }), fc.double({ min: 0, max: 1e7, noNaN: true })),
        (config, retry, u, previous) => {
          const b = resolveBackoff(config);
          const d = backoffDelay(b, retry, previous, u);
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(backoffBoundMs(b));
        },
      ),
    );
  });

  it('draws Envoy waits from [0, base·2^(n−1)) while that stays below max', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.nat({ max: TWO_POW_32 - 1 }),
        (base, n, r) => {
          const next = base * 2 ** (n - 1);
          const wait = envoyBackoffDelay(base, next * 4, n, r);
          expect(wait).toBe(r % next);
        },
      ),
    );
  });
});

describe('validateBackoffConfig', () => {
  const valid = (input: unknown): ResolvedBackoff | undefined => {
    const issues: ConfigIssue[] = [];
    const out = validateBackoffConfig(input, 'backoff', issues);
    expect(issues).toEqual([]);
    return out;
  };

  it.each<[unknown, ResolvedBackoff]>([
    ['none', rb('none', 0, 0, 1)],
    [{ kind: 'none' }, rb('none', 0, 0, 1)],
    ['full-jitter', rb('full-jitter', 50, 500)],
    [{ kind: 'full-jitter' }, rb('full-jitter', 50, 500)],
    [{ kind: 'equal-jitter', base: '10ms' }, rb('equal-jitter', 10, 500)],
    [{ kind: 'full-jitter', base: 0 }, rb('full-jitter', 0, 500)],
    [{ kind: 'decorrelated-jitter', cap: '2s' }, rb('decorrelated-jitter', 50, 2000)],
    [{ kind: 'constant', delay: '1.5s' }, rb('constant', 1500, 1500, 1)],
    [{ kind: 'exponential', base: 10, cap: 100 }, rb('exponential', 10, 100, 2)],
    [{ kind: 'exponential', base: 10, cap: 10, multiplier: 1.5 }, rb('exponential', 10, 10, 1.5)],
    [{ kind: 'envoy' }, rb('envoy', 25, 250)],
    [{ kind: 'envoy', base: 40 }, rb('envoy', 40, 400)],
    [{ kind: 'envoy', base: 40, max: '1s' }, rb('envoy', 40, 1000)],
    [{ kind: 'grpc' }, rb('grpc', 1000, 120_000, 1.6)],
    [{ kind: 'grpc', initial: '100ms', max: '1s', multiplier: 2 }, rb('grpc', 100, 1000, 2)],
  ])('resolves %j', (input, expected) => {
    expect(valid(input)).toEqual(expected);
  });

  it.each<[unknown, string[]]>([
    ['exponential', ['b']],
    [null, ['b']],
    [5, ['b']],
    [[], ['b']],
    [{}, ['b.kind']],
    [{ kind: 'linear' }, ['b.kind']],
    [{ kind: 'constructor' }, ['b.kind']],
    [{ kind: ['none'] }, ['b.kind']],
    [{ kind: 'none', base: 5 }, ['b.base']],
    [{ kind: 'constant' }, ['b.delay']],
    [{ kind: 'constant', delay: 'soon' }, ['b.delay']],
    [{ kind: 'constant', delay: 5, cap: 9 }, ['b.cap']],
    [{ kind: 'exponential' }, ['b.base', 'b.cap']],
    [{ kind: 'exponential', base: 100, cap: 50 }, ['b.cap']],
    [{ kind: 'exponential', base: 1, cap: 5, multiplier: 0 }, ['b.multiplier']],
    [{ kind: 'exponential', base: 1, cap: 5, multiplier: -2 }, ['b.multiplier']],
    [{ kind: 'grpc', multiplier: Number.POSITIVE_INFINITY }, ['b.multiplier']],
    [{ kind: 'grpc', multiplier: Number.NaN }, ['b.multiplier']],
    [{ kind: 'grpc', multiplier: '2' }, ['b.multiplier']],
    [{ kind: 'grpc', initial: '2m', max: '1m' }, ['b.max']],
    [{ kind: 'full-jitter', base: -1 }, ['b.base']],
    [{ kind: 'full-jitter', base: '1s', cap: '100ms' }, ['b.cap']],
    [{ kind: 'full-jitter', max: 5 }, ['b.max']],
    [{ kind: 'envoy', base: 0 }, ['b.base']],
    [{ kind: 'envoy', base: 'x' }, ['b.base']],
  ])('rejects %j with issues at %j', (input, paths) => {
    const issues: ConfigIssue[] = [];
    expect(validateBackoffConfig(input, 'b', issues)).toBeUndefined();
    expect(issues.map((i) => i.path)).toEqual(paths);
  });

  it('says what is wrong in each message', () => {
    const issues: ConfigIssue[] = [];
    validateBackoffConfig({ kind: 'exponential', base: 100, cap: 50 }, 'b', issues);
    validateBackoffConfig({ kind: 'exponential', cap: 50 }, 'b', issues);
    validateBackoffConfig({ kind: 'lin' }, 'b', issues);
    validateBackoffConfig({ kind: 'envoy', base: 0 }, 'b', issues);
    validateBackoffConfig({ kind: 'none', x: 1 }, 'b', issues);
    validateBackoffConfig(7, 'b', issues);
    validateBackoffConfig({ kind: 'grpc', multiplier: 0 }, 'b', issues);
    expect(issues.map((i) => i.message)).toEqual([
      'must be >= base',
      'is required',
      'must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, envoy, grpc',
      'must be greater than 0',
      'is not a none backoff option',
      'must be "none", "full-jitter" or an object with a kind',
      'must be a finite number > 0',
    ]);
  });

  it('judges only its own issues, not ones already collected by the caller', () => {
    const issues: ConfigIssue[] = [{ path: 'x', message: 'earlier' }];
    expect(validateBackoffConfig({ kind: 'full-jitter' }, 'b', issues)).toEqual(rb('full-jitter', 50, 500));
    expect(validateBackoffConfig({ kind: 'constant', delay: 5 }, 'b', issues)).toEqual(rb('constant', 5, 5, 1));
    expect(validateBackoffConfig({ kind: 'none' }, 'b', issues)).toEqual(rb('none', 0, 0, 1));
    expect(issues).toHaveLength(1);
  });
});

describe('resolveBackoff', () => {
  it('throws a ConfigError listing every problem under backoff', () => {
    try {
      resolveBackoff({ kind: 'exponential' } as unknown as BackoffConfig);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['backoff.base', 'backoff.cap']);
    }
  });
});
