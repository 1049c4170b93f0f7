// Brooker's deposit bucket: validation, retries never above what the deposits paid for, and a retry whenever they did.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import type { ConfigIssue } from '../core/config-error.js';
import { createBudget, DepositBucket, validateBudgetConfig } from './budget.js';

function issues(input: unknown): string[] {
  const list: ConfigIssue[] = [];
  validateBudgetConfig(input, 'p.budget', list);
  return list.map((i) => `${i.path}: ${i.message}`);
}

describe('deposit bucket: validation names the key', () => {
  it.each([
    [{ kind: 'deposit-bucket', deposit: 0 }, 'p.budget.deposit'],
    [{ kind: 'deposit-bucket', deposit: Number.NaN }, 'p.budget.deposit'],
    [{ kind: 'deposit-bucket', deposit: -0.1 }, 'p.budget.deposit'],
    [{ kind: 'deposit-bucket', deposit: 1e-9 }, 'p.budget.deposit'],
    [{ kind: 'deposit-bucket', cost: 0 }, 'p.budget.cost'],
    [{ kind: 'deposit-bucket', cost: Number.POSITIVE_INFINITY }, 'p.budget.cost'],
    [{ kind: 'deposit-bucket', maxTokens: 1e9 }, 'p.budget.maxTokens'],
    [{ kind: 'deposit-bucket', maxTokens: 0.5 }, 'p.budget.maxTokens'],
    [{ kind: 'deposit-bucket', cost: 5, maxTokens: 4 }, 'p.budget.maxTokens'],
    [{ kind: 'deposit-bucket', startFull: 'yes' }, 'p.budget.startFull'],
    [{ kind: 'deposit-bucket', deposits: 0.1 }, 'p.budget.deposits'],
  ])('%j is refused at %s', (input, path) => {
    const found = issues(input);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(`${path}: `);
  });

  it("resolves to Brooker's numbers: 0.1 a call, 1 a retry, 10 tokens, full", () => {
    const list: ConfigIssue[] = [];
    expect(validateBudgetConfig({ kind: 'deposit-bucket' }, 'b', list)).toEqual({
      kind: 'deposit-bucket',
      deposit: 0.1,
      cost: 1,
      maxTokens: 10,
      startFull: true,
    });
    expect(list).toEqual([]);
    expect(() => new DepositBucket({ cost: 0 })).toThrow(/budget\.cost/);
  });
});

describe('deposit bucket: deposits pay for retries', () => {
  it('starts full (10 retries), then needs 10 calls of 0.1 for one retry of 1', () => {
    const bucket = createBudget({ kind: 'deposit-bucket', deposit: 0.1, cost: 1, maxTokens: 10, startFull: true });
    let granted = 0;
    while (bucket.acquireRetry(0)) granted++;
    expect(granted).toBe(10);
    for (let i = 0; i < 9; i++) bucket.callStarted(0);
    expect(bucket.acquireRetry(0)).toBe(false);
    bucket.callStarted(0);
    expect(bucket.acquireRetry(0)).toBe(true);
  });

  it('an empty start earns its first retry after cost / deposit calls; a full one caps at maxTokens', () => {
    const bucket = new DepositBucket({ deposit: 0.25, cost: 1, maxTokens: 2, startFull: false });
    expect(bucket.acquireRetry()).toBe(false);
    for (let i = 0; i < 100; i++) bucket.callStarted();
    expect(bucket.level()).toBe(2);
  });

  const opts = fc.record({
    deposit: fc.constantFrom(0.05, 0.1, 0.3, 1, 2.5),
    cost: fc.constantFrom(0.5, 1, 3),
    maxTokens: fc.constantFrom(3, 10, 50),
    startFull: fc.boolean(),
  });
  const steps = fc.array(
    fc.record({ calls: fc.integer({ min: 0, max: 40 }), retries: fc.integer({ min: 0, max: 5 }) }),
    {
      maxLength: 10,
    },
  );

  it('never grants more retries than the start and the deposits pay for, and grants one whenever they do (property)', () => {
    fc.assert(
      fc.property(opts, steps, (o, list) => {
        const bucket = new DepositBucket(o);
        // The ledger in millionths, as the bucket keeps it: what came in (capped at maxTokens), what went out.
        const unit = (x: number) => Math.round(x * 1e6);
        let model = o.startFull ? unit(o.maxTokens) : 0;
        let calls = 0;
        let granted = 0;
        for (const s of list) {
          for (let i = 0; i < s.calls; i++) {
            bucket.callStarted();
            calls++;
            model = Math.min(unit(o.maxTokens), model + unit(o.deposit));
          }
          for (let i = 0; i < s.retries; i++) {
            const paid = model >= unit(o.cost);
            expect(bucket.acquireRetry()).toBe(paid);
            if (paid) {
              model -= unit(o.cost);
              granted++;
            }
          }
          const start = o.startFull ? unit(o.maxTokens) : 0;
          expect(granted * unit(o.cost)).toBeLessThanOrEqual(start + calls * unit(o.deposit));
        }
      }),
      propertyRuns(2000),
    );
  });
});
