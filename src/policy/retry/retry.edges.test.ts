// Edge cases of RetryPolicy found by mutation testing: counters, budget bookkeeping, updates and zero-length hints.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import { type AttemptPlan, MAX_TRACKED_UPSTREAMS, RetryPolicy } from './retry.js';

const ok: Outcome = { kind: 'response', status: 200 };
const unavailable: Outcome = { kind: 'response', status: 503 };

function plan(result: AttemptPlan | { stop: string }): AttemptPlan {
  if ('stop' in result) throw new Error(`expected an attempt, got stop ${result.stop}`);
  return result;
}

describe('RetryPolicy counters', () => {
  it('counts each per-try timeout, and nothing else as one', () => {
    const p = new RetryPolicy({ budget: false, maxAttempts: 3 }, { random: createRandom(1) });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    call.onOutcome({ kind: 'timeout' }, 10);
    plan(call.beginAttempt(20));
    call.onOutcome(unavailable, 30);
    plan(call.beginAttempt(40));
    call.onOutcome({ kind: 'timeout' }, 50);
    expect(p.stats().perTryTimeouts).toBe(2);
  });

  it('counts retrySuccess only for successes after a retry, and deadlineExceeded only for deadline stops', () => {
    const p = new RetryPolicy({ budget: false, maxAttempts: 2, backoff: 'none' }, { random: createRandom(1) });
    const exhausted = p.start(0);
    plan(exhausted.beginAttempt(0));
    exhausted.onOutcome(unavailable, 0);
    plan(exhausted.beginAttempt(0));
    expect(exhausted.onOutcome(unavailable, 0)).toEqual({ stop: 'attempts-exhausted' });
    const first = p.start(0);
    plan(first.beginAttempt(0));
    first.onOutcome(ok, 0);
    expect(p.stats()).toMatchObject({ retrySuccess: 0, deadlineExceeded: 0 });
  });
});

describe('RetryPolicy budget bookkeeping', () => {
  it('uses the same budget for start() without an upstream and budgetFor() without an argument', () => {
    const p = new RetryPolicy({ backoff: 'none' }, { random: createRandom(1) });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    call.onOutcome(unavailable, 0);
    expect(p.budgetFor().level()).toBe(9);
    expect(p.budgetFor()).toBe(p.budgetFor(''));
  });

  it('keeps every upstream while fewer than the limit are tracked', () => {
    const p = new RetryPolicy({}, { random: createRandom(1) });
    p.budgetFor('first').recordFailure();
    for (let i = 0; i < MAX_TRACKED_UPSTREAMS - 1; i++) p.budgetFor(`u${i}`);
    expect(p.budgetFor('first').level()).toBe(9);
  });

  it('releases a percent-budget retry slot exactly once', () => {
    const p = new RetryPolicy(
      { backoff: 'none', budget: { kind: 'percent', percent: 0, minConcurrency: 2 } },
      { random: createRandom(1) },
    );
    const failOnce = () => {
      const call = p.start(0);
      plan(call.beginAttempt(0));
      return { call, decision: call.onOutcome(unavailable, 0) };
    };
    const a = failOnce();
    const b = failOnce();
    expect([a.decision, b.decision]).toEqual([{ retryAfterMs: 0 }, { retryAfterMs: 0 }]);
    plan(a.call.beginAttempt(0));
    a.call.onOutcome(ok, 0); // a's slot is released here, and must not be released again when a ends
    expect(failOnce().decision).toEqual({ retryAfterMs: 0 }); // takes the slot a freed
    expect(failOnce().decision).toEqual({ stop: 'budget-exhausted' }); // b still holds the other
  });
});

describe('RetryPolicy.update', () => {
  it('keeps a percent budget (and its state) when the budget config does not change', () => {
    const p = new RetryPolicy({ budget: { kind: 'percent' } }, { random: createRandom(1) });
    const budget = p.budgetFor('');
    p.update({ maxAttempts: 2 });
    expect(p.budgetFor('')).toBe(budget);
  });

  it('can turn a token-bucket budget off', () => {
    const p = new RetryPolicy({}, { random: createRandom(1) });
    p.budgetFor('');
    p.update({ budget: false });
    expect(p.budgetFor('').kind).toBe('none');
  });

  it('can turn a budget on', () => {
    const p = new RetryPolicy({ budget: false }, { random: createRandom(1) });
    p.budgetFor('');
    p.update({ budget: { kind: 'token-bucket', maxTokens: 4, tokenRatio: 1 } });
    expect(p.budgetFor('').level()).toBe(4);
  });

  it('reports new warnings without an onWarning handler', () => {
    const p = new RetryPolicy({}, { random: createRandom(1) });
    p.update({ maxAttempts: 6 });
    expect(p.warnings.map((w) => w.path)).toEqual(['maxAttempts']);
  });
});

describe('server hints at the edges', () => {
  it('retries at once on a zero pushback, replacing the backoff', () => {
    const p = new RetryPolicy(
      { budget: false, backoff: { kind: 'constant', delay: 300 } },
      { random: createRandom(1) },
    );
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, pushbackMs: '0' }, 0)).toEqual({ retryAfterMs: 0 });
  });

  it('ignores a pushback when honorRetryAfter is false', () => {
    const p = new RetryPolicy(
      { budget: false, honorRetryAfter: false, backoff: { kind: 'constant', delay: 300 } },
      { random: createRandom(1) },
    );
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, pushbackMs: '5' }, 0)).toEqual({ retryAfterMs: 300 });
  });
});

describe('RetryCall after it ended', () => {
  it('answers a late outcome (a response racing an abort) with the stop it already has, counting nothing', () => {
    const p = new RetryPolicy({ budget: { kind: 'percent', minConcurrency: 1 } }, { random: createRandom(1) });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    call.abort(5);
    expect(call.onOutcome(unavailable, 6)).toEqual({ stop: 'aborted' });
    expect(call.onOutcome(ok, 7)).toEqual({ stop: 'aborted' });
    const stats = p.stats();
    expect(stats.stops.aborted).toBe(1);
    expect(stats.stops.succeeded).toBe(0);
    expect(stats.active).toBe(0);
    expect(p.budgetFor('').level()).toBe(1);
  });
});

describe('the default upstream budget', () => {
  it('keeps the default upstream and a named one apart', () => {
    const p = new RetryPolicy({}, { random: createRandom(1) });
    const unnamed = p.budgetFor('');
    expect(p.budgetFor('a')).not.toBe(unnamed);
    expect(p.budgetFor()).toBe(unnamed);
  });

  it('never forgets the default upstream (read through a shortcut, it is always in use)', () => {
    const p = new RetryPolicy({}, { random: createRandom(1) });
    p.budgetFor('').recordFailure();
    for (let i = 0; i < MAX_TRACKED_UPSTREAMS * 2; i++) p.budgetFor(`u${i}`);
    expect(p.budgetFor('').level()).toBe(9);
  });
});
