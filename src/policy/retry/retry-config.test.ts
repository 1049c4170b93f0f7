// Tests for RetryPolicy config validation: defaults, errors that name the key, and warnings for risky settings.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import type { Duration } from '../core/duration.js';
import { RetryPolicy } from './retry.js';
import { resolveRetryConfig, validateRetryConfig } from './retry-config.js';

function paths(input: unknown, prefix = ''): string[] {
  return validateRetryConfig(input, prefix).issues.map((i) => `${i.path}: ${i.message}`);
}

describe('validateRetryConfig', () => {
  it('fills the documented defaults', () => {
    const { config, issues, warnings } = validateRetryConfig({});
    expect(issues).toEqual([]);
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      maxAttempts: 3,
      perTryTimeoutMs: Number.POSITIVE_INFINITY,
      budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },
      honorRetryAfter: true,
      maxRetryAfterMs: 300_000,
      patienceMs: 15_000, // Envoy's default route timeout: no call waits forever unless asked to
      marginMs: 0,
      propagateDeadline: true,
      retryNonIdempotent: false,
    });
    expect(config?.backoff).toMatchObject({ kind: 'full-jitter', baseMs: 50, capMs: 500 });
    expect(config?.retryOn.conditions).toEqual(['connect-failure', 'reset', 'timeout', 429, 502, 503, 504]);
  });

  it('accepts null and undefined as "all defaults"', () => {
    expect(validateRetryConfig(undefined).config?.maxAttempts).toBe(3);
    expect(validateRetryConfig(null).config?.maxAttempts).toBe(3);
  });

  it('parses duration strings and numbers of milliseconds', () => {
    const { config } = validateRetryConfig({
      perTryTimeout: '800ms',
      deadline: { patience: '2s', margin: 100 },
      maxRetryAfter: '1m',
    });
    expect(config).toMatchObject({ perTryTimeoutMs: 800, patienceMs: 2000, marginMs: 100, maxRetryAfterMs: 60_000 });
  });

  it('turns the budget off with false or null', () => {
    expect(validateRetryConfig({ budget: false }).config?.budget).toBeNull();
    expect(validateRetryConfig({ budget: null }).config?.budget).toBeNull();
  });

  it('names the key of every impossible setting, under the given prefix', () => {
    expect(
      paths(
        {
          maxAttempts: 0,
          perTryTimeout: 'soon',
          retryOn: ['sometimes'],
          honorRetryAfter: 'yes',
          propagateDeadline: 1,
          retryNonIdempotent: 'no',
          attempts: 3,
        },
        'calls.bff->coupon',
      ),
    ).toEqual([
      'calls.bff->coupon.attempts: unknown key',
      'calls.bff->coupon.maxAttempts: must be an integer ≥ 1',
      'calls.bff->coupon.perTryTimeout: must be a duration like 800ms or 2s, got "soon"',
      expect.stringContaining('calls.bff->coupon.retryOn.0: unknown retry condition'),
      'calls.bff->coupon.honorRetryAfter: must be true or false',
      'calls.bff->coupon.propagateDeadline: must be true or false',
      'calls.bff->coupon.retryNonIdempotent: must be true or false',
    ]);
  });

  it('rejects fractional, too large and zero settings', () => {
    expect(paths({ maxAttempts: 2.5 })).toEqual(['maxAttempts: must be an integer ≥ 1']);
    expect(paths({ maxAttempts: 101 })).toEqual(['maxAttempts: must be at most 100']);
    expect(paths({ maxAttempts: 100 })).toEqual([]);
    expect(paths({ perTryTimeout: 0 })).toEqual(['perTryTimeout: must be greater than 0']);
  });

  it('checks the deadline block', () => {
    expect(paths({ deadline: '2s' })).toEqual([
      'deadline: must be an object with patience and margin, or false (no deadline)',
    ]);
    expect(paths({ deadline: { patience: '1s', margin: '1s' } })).toEqual([
      'deadline.margin: must be shorter than patience',
    ]);
    expect(paths({ deadline: { patience: '1s', margin: '999ms' } })).toEqual([]);
    expect(paths({ deadline: { patience: '1s', slack: 1 } })).toEqual(['deadline.slack: unknown key']);
    expect(paths({ deadline: { patience: '1s', margn: 1 } })).toEqual([
      'deadline.margn: unknown key; did you mean margin?',
    ]);
    expect(paths({ deadline: { patience: -1 } })).toEqual([
      'deadline.patience: must be a finite, non-negative duration',
    ]);
  });

  it('rejects a config that is not an object', () => {
    expect(paths([1, 2], 'x')).toEqual(['x: must be an object']);
    expect(paths('fast')).toEqual([': must be an object']);
  });

  it('passes nested budget and backoff problems through with their paths', () => {
    expect(paths({ budget: { kind: 'token-bucket', maxTokens: 0, tokenRatio: 0.1 } })[0]).toMatch(
      /^budget\.maxTokens: /,
    );
    expect(paths({ backoff: { kind: 'bouncy' } })[0]).toMatch(/^backoff/);
  });
});

describe('warnings for dangerous settings', () => {
  it('warns when a timed-out first attempt leaves less than one perTryTimeout for the retry', () => {
    // 2 × 1000 ms > 2000 − 100 ms: the retry after a timeout would get 900 ms.
    const { warnings } = validateRetryConfig({
      maxAttempts: 2,
      perTryTimeout: '1s',
      deadline: { patience: '2s', margin: '100ms' },
    });
    expect(warnings.map((w) => w.path)).toEqual(['perTryTimeout']);
    expect(warnings[0]?.message).toContain('leaves 900 ms of the 1900 ms deadline');
    expect(warnings[0]?.message).toContain('at most 950 ms');
    // The margin counts: without it the same 2 × 1 s fit 2 s exactly.
    expect(validateRetryConfig({ maxAttempts: 2, perTryTimeout: '1s', deadline: { patience: '2s' } }).warnings).toEqual(
      [],
    );
    // Exactly two per-try timeouts in the deadline: no warning (the boundary).
    const boundary = { maxAttempts: 3, perTryTimeout: '950ms', deadline: { patience: '2s', margin: '100ms' } };
    expect(validateRetryConfig(boundary).warnings).toEqual([]);
    expect(validateRetryConfig({ ...boundary, perTryTimeout: '951ms' }).warnings.map((w) => w.path)).toEqual([
      'perTryTimeout',
    ]);
    // One attempt: nothing to retry, nothing to warn about; no deadline: nothing to exceed.
    expect(validateRetryConfig({ maxAttempts: 1, perTryTimeout: '5s', deadline: { patience: '2s' } }).warnings).toEqual(
      [],
    );
    expect(validateRetryConfig({ maxAttempts: 3, perTryTimeout: '5s', deadline: false }).warnings).toEqual([]);
  });

  it("does not warn about the incident's fix: 3 attempts of at most 800 ms in 2 s − 100 ms (later ones get what is left)", () => {
    const good = { maxAttempts: 3, perTryTimeout: '800ms', deadline: { patience: '2s', margin: '100ms' } };
    expect(validateRetryConfig(good).warnings).toEqual([]);
  });

  it('warns above five attempts, as gRPC caps there', () => {
    expect(validateRetryConfig({ maxAttempts: 6 }).warnings.map((w) => w.path)).toEqual(['maxAttempts']);
    expect(validateRetryConfig({ maxAttempts: 5 }).warnings).toEqual([]);
  });

  it('warns when non-idempotent requests would be retried on timeout, not otherwise', () => {
    expect(validateRetryConfig({ retryNonIdempotent: true }).warnings.map((w) => w.path)).toEqual([
      'retryNonIdempotent',
    ]);
    expect(validateRetryConfig({ retryNonIdempotent: true, retryOn: [503] }).warnings).toEqual([]);
  });
});

describe('resolveRetryConfig and the RetryPolicy constructor', () => {
  it('throw a ConfigError listing every issue', () => {
    expect(() => resolveRetryConfig({ maxAttempts: 0, perTryTimeout: 'x' })).toThrow(ConfigError);
    try {
      new RetryPolicy({ maxAttempts: 0, perTryTimeout: 'x' as Duration });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).issues).toHaveLength(2);
      expect((error as ConfigError).code).toBe('SEAWALL_CONFIG');
      expect((error as Error).message).toBe(
        'maxAttempts: must be an integer ≥ 1\nperTryTimeout: must be a duration like 800ms or 2s, got "x"',
      );
    }
  });
});

describe('validateRetryConfig edges', () => {
  it('returns no config when there is any issue', () => {
    expect(validateRetryConfig({ maxAttempts: 0 }).config).toBeUndefined();
    expect(validateRetryConfig({ bogus: 1 }).config).toBeUndefined();
  });

  it('rejects a maxAttempts that is not a number', () => {
    expect(paths({ maxAttempts: '3' })).toEqual(['maxAttempts: must be an integer ≥ 1']);
  });

  it('gives a margin without a patience the default patience; false means no deadline; null is an error', () => {
    const { config, issues } = validateRetryConfig({ deadline: { margin: '100ms' } });
    expect(issues).toEqual([]);
    expect(config).toMatchObject({ patienceMs: 15_000, marginMs: 100 });
    expect(validateRetryConfig({ deadline: false }).config).toMatchObject({ patienceMs: null, marginMs: 0 });
    expect(paths({ deadline: null })).toEqual([
      'deadline: must be an object with patience and margin, or false (no deadline)',
    ]);
  });

  it('names the path of a bad margin and a bad maxRetryAfter', () => {
    expect(paths({ deadline: { patience: '2s', margin: 'x' } })).toEqual([
      'deadline.margin: must be a duration like 800ms or 2s, got "x"',
    ]);
    expect(paths({ maxRetryAfter: 'x' })).toEqual(['maxRetryAfter: must be a duration like 800ms or 2s, got "x"']);
  });

  it('does not warn about perTryTimeout without a deadline, and warns against the default one', () => {
    expect(validateRetryConfig({ perTryTimeout: '10s', maxAttempts: 5, deadline: false }).warnings).toEqual([]);
    expect(validateRetryConfig({ perTryTimeout: '10s', maxAttempts: 2 }).warnings.map((w) => w.path)).toEqual([
      'perTryTimeout',
    ]);
  });

  it('suggests the key a typo meant', () => {
    expect(paths({ maxAttempt: 3 })).toEqual(['maxAttempt: unknown key; did you mean maxAttempts?']);
    expect(paths({ MAXATTEMPTS: 3 })).toEqual(['MAXATTEMPTS: unknown key; did you mean maxAttempts?']);
    expect(paths({ retryon: [503] })).toEqual(['retryon: unknown key; did you mean retryOn?']);
    expect(paths({ zzz: 1 })).toEqual(['zzz: unknown key']);
  });

  it('explains each warning', () => {
    expect(validateRetryConfig({ maxAttempts: 6 }).warnings[0]?.message).toBe(
      '6 attempts per call; gRPC caps this at 5 — every layer that retries multiplies load',
    );
    expect(validateRetryConfig({ retryNonIdempotent: true }).warnings[0]?.message).toBe(
      'retries non-idempotent requests on timeout without an idempotency key: the server may have done the work (double payment)',
    );
  });
});
