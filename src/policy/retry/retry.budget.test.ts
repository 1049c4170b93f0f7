// Tests for how RetryPolicy drives its budgets (token bucket and percent), run-time updates, and call invariants.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import { createRandom } from '../core/random.js';
import { type Outcome, STOP_REASONS, type StopReason } from '../core/types.js';
import { type AttemptPlan, MAX_TRACKED_UPSTREAMS, RetryPolicy } from './retry.js';
import type { RetryPolicyConfig } from './retry-config.js';

const ok: Outcome = { kind: 'response', status: 200 };
const unavailable: Outcome = { kind: 'response', status: 503 };
const seedBudget: RetryPolicyConfig = {
  maxAttempts: 3,
  backoff: 'none',
  budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },
};

function plan(result: AttemptPlan | { stop: string }): AttemptPlan {
  if ('stop' in result) throw new Error(`expected an attempt, got stop ${result.stop}`);
  return result;
}

/** One attempt that fails with 503, returning the decision. */
function failOnce(p: RetryPolicy, upstream = '') {
  const call = p.start(0, { upstream });
  plan(call.beginAttempt(0));
  return { call, decision: call.onOutcome(unavailable, 0) };
}

describe('RetryPolicy with the gRPC A6 token bucket', () => {
  it('stops retrying once half the tokens are spent', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    const decisions = [];
    for (let i = 0; i < 6; i++) {
      const { call, decision } = failOnce(p);
      decisions.push('stop' in decision ? decision.stop : 'retry');
      call.abort(0);
    }
    // tokens after each failure: 9 8 7 6 5 4 — retry allowed only while tokens > 5
    expect(decisions).toEqual(['retry', 'retry', 'retry', 'retry', 'budget-exhausted', 'budget-exhausted']);
    expect(p.stats().retryOverflow).toBe(2);
  });

  it('buys back one retry with ten successes', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    for (let i = 0; i < 5; i++) failOnce(p).call.abort(0);
    expect(p.budgetFor('').level()).toBe(5);
    for (let i = 0; i < 10; i++) {
      const call = p.start(0);
      plan(call.beginAttempt(0));
      call.onOutcome(ok, 0);
    }
    expect(p.budgetFor('').level()).toBe(6);
    expect('retryAfterMs' in failOnce(p).decision).toBe(false); // 6 -> 5 after the failure: denied
    for (let i = 0; i < 20; i++) {
      const call = p.start(0);
      plan(call.beginAttempt(0));
      call.onOutcome(ok, 0);
    }
    expect('retryAfterMs' in failOnce(p).decision).toBe(true); // 7 -> 6: allowed
  });

  it('keeps a budget per upstream', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    for (let i = 0; i < 5; i++) failOnce(p, 'a').call.abort(0);
    expect(failOnce(p, 'a').decision).toEqual({ stop: 'budget-exhausted' });
    expect(failOnce(p, 'b').decision).toEqual({ retryAfterMs: 0 });
  });

  it('forgets the least recently used upstream beyond the tracking limit', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    p.budgetFor('first').recordFailure();
    for (let i = 0; i < MAX_TRACKED_UPSTREAMS; i++) p.budgetFor(`u${i}`);
    expect(p.budgetFor('first').level()).toBe(10);
  });

  // Issue #9 item 10: eviction by insertion order handed a drained hot upstream a fresh bucket.
  it("keeps a hot upstream's drained budget however many other upstreams appear", () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    const hot = p.budgetFor('https://hot');
    for (let i = 0; i < 6; i++) hot.recordFailure();
    for (let i = 0; i < MAX_TRACKED_UPSTREAMS * 3; i++) {
      p.budgetFor(`https://cold-${i}`);
      if (i % 100 === 0) expect(p.budgetFor('https://hot')).toBe(hot); // in use now and then
    }
    expect(p.budgetFor('https://hot').level()).toBe(4);
  });

  it('evicts exactly what a least-recently-used model evicts (property)', () => {
    let evictions = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 60, size: 'max' }), (uses) => {
        const limit = 4;
        const p = new RetryPolicy(seedBudget, { random: createRandom(1), maxUpstreams: limit });
        const model: number[] = []; // least recently used first
        const seen = new Map<number, object>();
        for (const key of uses) {
          const tracked = model.includes(key);
          const budget = p.budgetFor(`u${key}`);
          if (tracked) expect(budget).toBe(seen.get(key));
          else expect(budget).not.toBe(seen.get(key));
          seen.set(key, budget);
          if (tracked) model.splice(model.indexOf(key), 1);
          else if (model.length === limit) {
            model.shift();
            evictions++;
          }
          model.push(key);
        }
      }),
      propertyRuns(),
    );
    expect(evictions).toBeGreaterThan(propertyRuns().numRuns); // more than one per case on average
  });

  it('refuses a tracking limit below 2', () => {
    expect(() => new RetryPolicy({}, { maxUpstreams: 1 })).toThrow('maxUpstreams: must be an integer >= 2');
    expect(() => new RetryPolicy({}, { maxUpstreams: Number.NaN })).toThrow('maxUpstreams');
  });

  it('retries every failure when the budget is off', () => {
    const p = new RetryPolicy({ ...seedBudget, budget: false }, { random: createRandom(1) });
    for (let i = 0; i < 50; i++) expect(failOnce(p).decision).toEqual({ retryAfterMs: 0 });
  });

  it('rescales tokens on update, keeping the fill ratio', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    for (let i = 0; i < 2; i++) failOnce(p).call.abort(0);
    expect(p.budgetFor('').level()).toBe(8);
    p.update({ budget: { kind: 'token-bucket', maxTokens: 20, tokenRatio: 0.1 } });
    expect(p.budgetFor('').level()).toBe(16);
  });

  it('starts budgets afresh when the budget kind changes', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    failOnce(p).call.abort(0);
    p.update({ budget: { kind: 'percent', percent: 20, minConcurrency: 3 } });
    expect(p.budgetFor('').kind).toBe('percent');
  });
});

describe('RetryPolicy with the Envoy percent budget', () => {
  it('allows at most minConcurrency concurrent retries when few calls are active, and frees slots', () => {
    const p = new RetryPolicy(
      { ...seedBudget, budget: { kind: 'percent', percent: 20, minConcurrency: 3 } },
      { random: createRandom(1) },
    );
    const results = Array.from({ length: 5 }, () => failOnce(p));
    expect(results.map((r) => ('stop' in r.decision ? r.decision.stop : 'retry'))).toEqual([
      'retry',
      'retry',
      'retry',
      'budget-exhausted',
      'budget-exhausted',
    ]);
    // the first retry attempt finishes: its slot is free again for another call
    const first = results[0]!.call;
    plan(first.beginAttempt(1));
    first.onOutcome(ok, 2);
    expect(failOnce(p).decision).toEqual({ retryAfterMs: 0 });
  });

  it('releases the retry slot when a call is aborted during its backoff', () => {
    const p = new RetryPolicy(
      { ...seedBudget, budget: { kind: 'percent', percent: 20, minConcurrency: 1 } },
      { random: createRandom(1) },
    );
    const { call } = failOnce(p);
    expect(failOnce(p).decision).toEqual({ stop: 'budget-exhausted' });
    call.abort(1);
    expect(call.stopReason).toBe('aborted');
    expect(failOnce(p).decision).toEqual({ retryAfterMs: 0 });
  });
});

describe('RetryPolicy: operating it', () => {
  it('turns retries off for calls already in flight when maxAttempts is updated to 1 (kill switch)', () => {
    const p = new RetryPolicy({ ...seedBudget, budget: false }, { random: createRandom(1) });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    p.update({ maxAttempts: 1 });
    expect(call.onOutcome(unavailable, 0)).toEqual({ stop: 'attempts-exhausted' });
    expect(p.config.maxAttempts).toBe(1);
    expect(p.config.backoff.kind).toBe('none'); // other keys keep their value
  });

  it('rejects an invalid update and keeps the old configuration', () => {
    const p = new RetryPolicy(seedBudget, { random: createRandom(1) });
    expect(() => p.update({ maxAttempts: 0 })).toThrow('maxAttempts: must be an integer ≥ 1');
    expect(p.config.maxAttempts).toBe(3);
  });

  it('reports warnings to onWarning at construction and on update', () => {
    const seen: string[] = [];
    const p = new RetryPolicy({ maxAttempts: 6 }, { onWarning: (w) => seen.push(w.path) });
    p.update({ maxAttempts: 7 });
    expect(seen).toEqual(['maxAttempts', 'maxAttempts']);
  });

  it('works without an injected random source', () => {
    const call = new RetryPolicy({ budget: false }).start(0);
    plan(call.beginAttempt(0));
    const decision = call.onOutcome(unavailable, 0);
    expect('retryAfterMs' in decision && decision.retryAfterMs >= 0 && decision.retryAfterMs < 100).toBe(true);
  });
});

describe('RetryCall: driver mistakes are loud', () => {
  const p = () => new RetryPolicy({}, { random: createRandom(1) });

  it('throws when an attempt begins while the previous one has no outcome', () => {
    const call = p().start(0);
    plan(call.beginAttempt(0));
    expect(() => call.beginAttempt(1)).toThrow('previous attempt has no outcome');
  });

  it('throws when an outcome arrives without an attempt', () => {
    expect(() => p().start(0).onOutcome(ok, 0)).toThrow('no attempt in progress');
  });

  it('throws when an ended call begins another attempt, and ignores a late abort', () => {
    const policy = p();
    const call = policy.start(0);
    plan(call.beginAttempt(0));
    call.onOutcome(ok, 0);
    expect(() => call.beginAttempt(1)).toThrow('already ended (succeeded)');
    call.abort(2);
    expect(call.stopReason).toBe('succeeded');
    expect(policy.stats().stops.aborted).toBe(0);
  });
});

const outcomeArb: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constantFrom<Outcome>(
    { kind: 'timeout' },
    { kind: 'reset' },
    { kind: 'connect-failure' },
    { kind: 'aborted' },
    { kind: 'shed-locally' },
  ),
  fc.record({
    kind: fc.constant('response' as const),
    status: fc.constantFrom(200, 404, 409, 429, 500, 502, 503, 504),
    retryAfter: fc.option(fc.constantFrom('0', '1', '0.2', '-1', 'junk', '100000'), { nil: undefined }),
    pushbackMs: fc.option(fc.constantFrom('0', '30', '-1', 'x'), { nil: undefined }),
  }),
);

describe('RetryPolicy properties', () => {
  it('never exceeds maxAttempts, never waits to or past the deadline, and ends every call exactly once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
        fc.constantFrom<RetryPolicyConfig['budget']>(false, undefined, { kind: 'percent', minConcurrency: 1 }),
        fc.array(fc.tuple(outcomeArb, fc.integer({ min: 0, max: 900 })), { minLength: 1, maxLength: 12, size: 'max' }),
        fc.integer({ min: 1, max: 1000 }),
        (maxAttempts, patienceMs, budget, steps, seed) => {
          const config: RetryPolicyConfig = { maxAttempts, retryOn: ['5xx', 'timeout', 429, 409], budget };
          if (patienceMs !== undefined) config.deadline = { patience: patienceMs };
          const p = new RetryPolicy(config, { random: createRandom(seed) });
          const call = p.start(0, { method: seed % 2 === 0 ? 'GET' : 'POST' });
          let now = 0;
          let ended: StopReason | null = null;
          for (const [outcome, elapsedMs] of steps) {
            const attempt = call.beginAttempt(now);
            if ('stop' in attempt) {
              ended = attempt.stop;
              break;
            }
            expect(attempt.perTryTimeoutMs).toBeGreaterThan(0);
            now += elapsedMs;
            const decision = call.onOutcome(outcome, now);
            if ('stop' in decision) {
              ended = decision.stop;
              break;
            }
            expect(Number.isFinite(decision.retryAfterMs)).toBe(true);
            expect(decision.retryAfterMs).toBeGreaterThanOrEqual(0);
            if (call.deadlineMs !== null) expect(now + decision.retryAfterMs).toBeLessThan(call.deadlineMs);
            now += decision.retryAfterMs;
          }
          if (ended === null) call.abort(now);
          expect(call.attempts).toBeLessThanOrEqual(maxAttempts);
          expect(STOP_REASONS).toContain(call.stopReason);
          const stats = p.stats();
          const stopped = Object.values(stats.stops).reduce((a, b) => a + b, 0);
          expect(stopped).toBe(1);
          expect(stats.active).toBe(0);
          expect(stats.calls).toBe(stats.active + stopped);
          expect(stats.attempts).toBe(call.attempts);
          expect(p.budgetFor('').level()).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
