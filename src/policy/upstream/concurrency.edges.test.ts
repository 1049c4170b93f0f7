// Tests written for the survivors of the concurrency breaker's mutation run (reports/mutation-12): each pins a
// behaviour a mutant changed unseen.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { ConcurrencyBreaker, type ConcurrencyPermit, validateConcurrencyBreakerConfig } from './concurrency.js';

const DEFAULTS = {
  maxConnections: 1024,
  maxPendingRequests: 1024,
  maxRequests: 1024,
  maxRetries: 3,
  retryBudget: null,
};

function validate(input: unknown): { resolved: unknown; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const resolved = validateConcurrencyBreakerConfig(input, 'limits', issues);
  return { resolved, issues };
}

describe('the concurrency-breaker config', () => {
  it('reads an absent config as Envoy’s defaults', () => {
    expect(validate(undefined)).toEqual({ resolved: DEFAULTS, issues: [] });
  });

  it('refuses null and other non-objects with one issue that shows the expected shape', () => {
    for (const input of [null, [], 100, 'max']) {
      expect(validate(input)).toEqual({
        resolved: undefined,
        issues: [{ path: 'limits', message: 'must be an object such as { maxRequests: 100, maxPendingRequests: 20 }' }],
      });
    }
  });

  it('refuses a null retry budget (only an object or false turns it on or off)', () => {
    expect(validate({ retryBudget: null })).toEqual({
      resolved: undefined,
      issues: [
        {
          path: 'limits.retryBudget',
          message: 'must be an object such as { percent: 20, minConcurrency: 3 }, or false',
        },
      ],
    });
  });

  it('ignores an unknown key whose value is undefined, like an absent key', () => {
    expect(validate({ maxRequest: undefined, maxRequests: 5 })).toEqual({
      resolved: { ...DEFAULTS, maxRequests: 5 },
      issues: [],
    });
  });

  it('takes a budget percent from 0 to 100 inclusive, and refuses a number outside it or a non-number', () => {
    for (const percent of [0, 100]) {
      expect(validate({ retryBudget: { percent } })).toEqual({
        resolved: { ...DEFAULTS, retryBudget: { percent, minConcurrency: 3 } },
        issues: [],
      });
    }
    for (const percent of [-1, -0.001, 100.5, '20', true, Number.NaN]) {
      expect(validate({ retryBudget: { percent } }).issues).toEqual([
        { path: 'limits.retryBudget.percent', message: 'must be a number in [0, 100]' },
      ]);
    }
  });

  it('the constructor throws a ConfigError holding exactly the config’s issues, at root paths', () => {
    let error: unknown;
    try {
      new ConcurrencyBreaker({ maxRequests: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: 'maxRequests', message: 'must be an integer from 0 to 4294967295' },
    ]);
    expect((error as ConfigError).message).toBe('maxRequests: must be an integer from 0 to 4294967295');
  });
});

describe('upstream_rq_cancelled', () => {
  it('counts only pending requests released without a connection, not released connections, requests or retries', () => {
    const b = new ConcurrencyBreaker();
    for (const resource of ['connection', 'request', 'retry'] as const) {
      expect(b.release(b.tryAcquire(resource) as ConcurrencyPermit)).toBe(true);
    }
    expect(b.stats().pendingCancelled).toBe(0);
    b.release(b.tryAcquire('pending') as ConcurrencyPermit);
    expect(b.stats().pendingCancelled).toBe(1);
  });
});
