// Tests written for the survivors of mutation run 6 (docs/mutation.md): each pins a behaviour a mutant changed unseen.
import { describe, expect, it } from 'vitest';
import type { ConfigIssue } from './core/config-error.js';
import type { Duration } from './core/duration.js';
import { readAttemptNumber } from './hop/hop.js';
import { parseHttpDate } from './hop/retry-after.js';
import { validateBudgetConfig } from './retry/budget.js';
import { RatioBudget } from './retry/ratio-budget.js';
import { RetryPolicy } from './retry/retry.js';

const issues = (input: unknown): ConfigIssue[] => {
  const found: ConfigIssue[] = [];
  validateBudgetConfig(input, 'budget', found);
  return found;
};

describe('the ratio budget validates its keys at their exact bounds, with messages naming the range', () => {
  it('ratio: 0 and 1000 are accepted, just outside is refused', () => {
    expect(issues({ kind: 'ratio', ratio: 0 })).toEqual([]);
    expect(issues({ kind: 'ratio', ratio: 1000 })).toEqual([]);
    for (const ratio of [-0.001, 1000.001, '0.1']) {
      expect(issues({ kind: 'ratio', ratio })).toEqual([
        { path: 'budget.ratio', message: 'must be a number in [0, 1000]' },
      ]);
    }
  });

  it('minRetriesPerSec: 0 and 1,000,000 are accepted, just outside is refused', () => {
    expect(issues({ kind: 'ratio', minRetriesPerSec: 0 })).toEqual([]);
    expect(issues({ kind: 'ratio', minRetriesPerSec: 1e6 })).toEqual([]);
    for (const minRetriesPerSec of [-1, 1e6 + 1, 'ten']) {
      expect(issues({ kind: 'ratio', minRetriesPerSec })).toEqual([
        { path: 'budget.minRetriesPerSec', message: 'must be a number in [0, 1000000]' },
      ]);
    }
  });

  it('ttl: whole seconds from 1 s to 60 s, with the message saying so', () => {
    expect(issues({ kind: 'ratio', ttl: '61s' })).toEqual([
      { path: 'budget.ttl', message: 'must be whole seconds from 1s to 60s' },
    ]);
    expect(() => new RatioBudget({ ttl: '1500ms' })).toThrow(/whole seconds from 1s to 60s/);
    expect(() => new RatioBudget({ ttl: 'soon' as Duration })).toThrow(/budget\.ttl/);
  });
});

describe('hop facts, edge cases', () => {
  it('readAttemptNumber reads no number from an absent header', () => {
    expect(readAttemptNumber(undefined)).toBeNull();
    expect(readAttemptNumber('7')).toBe(7);
  });

  it('a null inbound deadline leaves the policy its own deadline', () => {
    const policy = new RetryPolicy({ deadline: { patience: '2s' }, budget: false });
    expect(policy.start(1000, {}, { deadlineMs: null, fromSeawallHop: false }).deadlineMs).toBe(3000);
  });

  it('a non-finite inbound deadline is refused with a message saying what is wanted', () => {
    const policy = new RetryPolicy({ budget: false });
    expect(() => policy.start(0, {}, { deadlineMs: Number.NaN, fromSeawallHop: false })).toThrow(
      'inbound.deadlineMs: must be a finite number of epoch ms (or null), got NaN',
    );
  });

  it('a call made after a timeout records no status; a 500 it relays is marked', () => {
    const policy = new RetryPolicy({ maxAttempts: 1, budget: false, retryOn: ['5xx', 'timeout'], ownership: true });
    const timedOut = policy.start(0);
    timedOut.beginAttempt(0);
    timedOut.onOutcome({ kind: 'timeout' }, 1);
    expect([timedOut.lastStatus, timedOut.relayMark]).toEqual([0, 'unclaimed']);
    const failed = policy.start(0);
    failed.beginAttempt(0);
    failed.onOutcome({ kind: 'response', status: 500, claim: 'claimed' }, 1);
    expect([failed.lastStatus, failed.relayMark]).toEqual([500, 'criteria-met']);
  });

  it('a null method from JavaScript is no method (GET), not a ConfigError', () => {
    const policy = new RetryPolicy({ budget: false });
    expect(policy.start(0, { method: null as unknown as string }).replaySafe).toBe(true);
  });
});

describe('HTTP-dates in every month', () => {
  it('reads the month names of RFC 9110 (each one, not only November)', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    months.forEach((month, i) => {
      const at = Date.UTC(2026, i, 10, 8, 49, 37);
      const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(at).getUTCDay()];
      expect(parseHttpDate(`${day}, 10 ${month} 2026 08:49:37 GMT`, at - 5000), month).toBe(at);
    });
  });
});
