// The rate budget (Bronson et al., HotOS '21: retries held under a rate): validation, the cap over any span, refill by time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import type { ConfigIssue } from '../core/config-error.js';
import { createBudget, RateBudget, validateBudgetConfig } from './budget.js';

function issues(input: unknown): string[] {
  const list: ConfigIssue[] = [];
  validateBudgetConfig(input, 'p.budget', list);
  return list.map((i) => `${i.path}: ${i.message}`);
}

describe('rate budget: validation names the key', () => {
  it.each([
    [{ kind: 'rate' }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: Number.NaN }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: 0 }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: -5 }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: Number.POSITIVE_INFINITY }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: 2e6 }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: '20' }, 'p.budget.perSecond'],
    [{ kind: 'rate', perSecond: 20, burst: 0.5 }, 'p.budget.burst'],
    [{ kind: 'rate', perSecond: 20, burst: Number.NaN }, 'p.budget.burst'],
    [{ kind: 'rate', perSecond: 20, burst: 1e7 }, 'p.budget.burst'],
    [{ kind: 'rate', perSecond: 20, bust: 5 }, 'p.budget.bust'],
  ])('%j is refused at %s', (input, path) => {
    const found = issues(input);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(`${path}: `);
  });

  it('resolves the burst to one second of refill, never below one retry', () => {
    const list: ConfigIssue[] = [];
    expect(validateBudgetConfig({ kind: 'rate', perSecond: 20 }, 'b', list)).toEqual({
      kind: 'rate',
      perSecond: 20,
      burst: 20,
    });
    expect(validateBudgetConfig({ kind: 'rate', perSecond: 0.5 }, 'b', list)).toMatchObject({ burst: 1 });
    expect(list).toEqual([]);
  });

  it('the constructor throws a ConfigError for a bad option', () => {
    expect(() => new RateBudget({ perSecond: 0 })).toThrow(/budget\.perSecond/);
  });
});

describe('rate budget: the cap and the refill', () => {
  it('grants burst retries at once, then one per 1000 / perSecond ms', () => {
    const budget = createBudget({ kind: 'rate', perSecond: 20, burst: 5 });
    budget.callStarted(0);
    let granted = 0;
    while (budget.acquireRetry(0)) granted++;
    expect(granted).toBe(5);
    expect(budget.acquireRetry(49)).toBe(false);
    expect(budget.acquireRetry(50)).toBe(true);
    expect(budget.acquireRetry(50)).toBe(false);
    // A quiet spell refills to the burst, no further.
    expect(budget.level()).toBe(0);
    budget.callStarted(60_000);
    expect(budget.level()).toBe(5);
  });

  it('a clock that steps back or reads NaN refills nothing', () => {
    const budget = new RateBudget({ perSecond: 1, burst: 1 });
    expect(budget.acquireRetry(10_000)).toBe(true);
    expect(budget.acquireRetry(0)).toBe(false);
    expect(budget.acquireRetry(Number.NaN)).toBe(false);
    expect(budget.acquireRetry(Number.POSITIVE_INFINITY)).toBe(false);
    expect(budget.acquireRetry(11_000)).toBe(true);
  });

  const events = fc.array(fc.record({ dtMs: fc.integer({ min: 0, max: 3000 }), retry: fc.boolean() }), {
    maxLength: 10,
  });
  const limits = fc.record({
    perSecond: fc.constantFrom(0.5, 1, 3, 20, 250),
    burst: fc.option(fc.constantFrom(1, 2, 7, 40), { nil: undefined }),
  });

  it('never grants more than burst + perSecond · T retries over any span of T seconds (property)', () => {
    fc.assert(
      fc.property(limits, events, (opts, list) => {
        const budget = new RateBudget(opts);
        const burst = opts.burst ?? Math.max(1, opts.perSecond);
        const grants: number[] = [];
        let now = 0;
        for (const e of list) {
          now += e.dtMs;
          if (!e.retry) budget.callStarted(now);
          else if (budget.acquireRetry(now)) grants.push(now);
        }
        for (let a = 0; a < grants.length; a++) {
          for (let b = a; b < grants.length; b++) {
            const spanS = ((grants[b] as number) - (grants[a] as number)) / 1000;
            expect(b - a + 1).toBeLessThanOrEqual(Math.floor(burst + opts.perSecond * spanS + 1e-9));
          }
        }
      }),
      propertyRuns(2000),
    );
  });

  it('refills by time: after draining, waiting 1000 / perSecond ms always buys one more retry (property)', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 0, max: 100_000 }), (opts, startMs) => {
        const budget = new RateBudget(opts);
        budget.callStarted(startMs);
        while (budget.acquireRetry(startMs));
        expect(budget.acquireRetry(startMs)).toBe(false);
        const waitMs = Math.ceil(1000 / opts.perSecond);
        expect(budget.acquireRetry(startMs + waitMs)).toBe(true);
      }),
      propertyRuns(2000),
    );
  });
});
