// Tests written for the survivors of mutation run 7 (docs/mutation.md): each pins a behaviour a mutant changed unseen.
import { describe, expect, it } from 'vitest';
import type { ConfigIssue } from './core/config-error.js';
import type { InboundHop } from './hop/hop.js';
import { validateBudgetConfig } from './retry/budget.js';
import { RetryPolicy } from './retry/retry.js';

describe('the ratio budget refuses a minRetriesPerSec that is not a number, even one that reads as a number', () => {
  it.each(['5', true, [3]])('refuses %j', (minRetriesPerSec) => {
    const found: ConfigIssue[] = [];
    validateBudgetConfig({ kind: 'ratio', minRetriesPerSec }, 'budget', found);
    expect(found).toEqual([{ path: 'budget.minRetriesPerSec', message: 'must be a number in [0, 1000000]' }]);
  });
});

describe('an inbound hop without a deadline field (a plain JavaScript object)', () => {
  it('leaves the policy its own deadline, as a null one does, instead of refusing it or making it NaN', () => {
    const policy = new RetryPolicy({ deadline: { patience: '2s' }, budget: false });
    const inbound = { fromSeawallHop: false } as unknown as InboundHop;
    expect(policy.start(1000, {}, inbound).deadlineMs).toBe(3000);
  });
});

describe('a call that never made an attempt', () => {
  it("has read no claim ('absent'), so a call stopped by its deadline relays its failure unclaimed", () => {
    const policy = new RetryPolicy({ budget: false, ownership: true, maxAttempts: 3 });
    const call = policy.start(0, { deadlineMs: 0 });
    expect(call.lastClaim).toBe('absent');
    expect(call.beginAttempt(10)).toEqual({ stop: 'deadline-exceeded' });
    expect(call.relayMark).toBe('unclaimed');
  });
});
