// RetryCall.refuseRetry: a granted retry that a driver's limit (Envoy's max_retries) refused ends the call, uncounted.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import { type AttemptPlan, RetryPolicy } from './retry.js';

const unavailable: Outcome = { kind: 'response', status: 503, claim: 'claimed' };

function plan(result: AttemptPlan | { stop: string }): AttemptPlan {
  if ('stop' in result) throw new Error(`expected an attempt, got stop ${result.stop}`);
  return result;
}

function granted(p: RetryPolicy) {
  const call = p.start(0);
  plan(call.beginAttempt(0));
  expect(call.onOutcome(unavailable, 10)).toEqual({ retryAfterMs: 0 });
  return call;
}

describe('RetryCall.refuseRetry', () => {
  it('ends the call as budget-exhausted and counts neither the retry nor an attempt', () => {
    const p = new RetryPolicy({ budget: false, maxAttempts: 3, backoff: 'none' }, { random: createRandom(1) });
    const call = granted(p);
    expect(p.stats().retries).toBe(1); // granted by onOutcome
    expect(call.refuseRetry(10)).toBe('budget-exhausted');
    expect(call.stopReason).toBe('budget-exhausted');
    expect(call.attempts).toBe(1);
    const stats = p.stats();
    expect(stats).toMatchObject({ calls: 1, active: 0, attempts: 1, retries: 0, retryOverflow: 0 });
    expect(stats.stops['budget-exhausted']).toBe(1);
    expect(() => call.beginAttempt(20)).toThrow(/already ended/);
  });

  it('frees the percent budget’s retry slot the grant took', () => {
    const p = new RetryPolicy(
      { backoff: 'none', budget: { kind: 'percent', percent: 0, minConcurrency: 1 } },
      { random: createRandom(1) },
    );
    const first = granted(p);
    const blocked = p.start(0);
    plan(blocked.beginAttempt(0));
    expect(blocked.onOutcome(unavailable, 10)).toEqual({ stop: 'budget-exhausted' }); // the one slot is held
    first.refuseRetry(10);
    granted(p); // and free again
  });

  it('keeps the last answer’s status and claim for the relay mark (what Envoy passes on)', () => {
    const p = new RetryPolicy(
      { budget: false, maxAttempts: 3, backoff: 'none', ownership: true },
      { random: createRandom(1) },
    );
    const call = granted(p);
    call.refuseRetry(10);
    expect(call.lastStatus).toBe(503);
    expect(call.lastClaim).toBe('claimed');
    // It could retry a claimed error and spent its chance here: nobody above retries it.
    expect(call.relayMark).toBe('unclaimed');
  });

  it('keeps the stop of a call that already ended, and refuses a driver that calls it with no retry pending', () => {
    const p = new RetryPolicy({ budget: false, maxAttempts: 3, backoff: 'none' }, { random: createRandom(1) });
    const ended = p.start(0);
    plan(ended.beginAttempt(0));
    ended.abort(1);
    expect(ended.refuseRetry(2)).toBe('aborted');
    const fresh = p.start(0);
    expect(() => fresh.refuseRetry(0)).toThrow(/no retry is pending/);
    plan(fresh.beginAttempt(0));
    expect(() => fresh.refuseRetry(0)).toThrow(/no retry is pending/);
    fresh.onOutcome(unavailable, 1);
    plan(fresh.beginAttempt(1)); // the granted retry began: nothing to refuse any more
    expect(() => fresh.refuseRetry(1)).toThrow(/no retry is pending/);
    expect(p.stats().stops.aborted).toBe(1);
  });
});
