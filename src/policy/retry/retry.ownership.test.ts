// RetryCall under error ownership: who retries by the claim read off each attempt, and how a failed call is passed up.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import { createRandom } from '../core/random.js';
import type { Outcome, RequestTraits } from '../core/types.js';
import type { Claim } from '../hop/ownership.js';
import { type RetryCall, RetryPolicy } from './retry.js';

const failing = (claim: Claim | undefined, status = 503): Outcome => ({ kind: 'response', status, claim });
const timeout: Outcome = { kind: 'timeout' };

function policy(ownership: boolean, maxAttempts = 4): RetryPolicy {
  return new RetryPolicy({ budget: false, maxAttempts, backoff: 'none', ownership }, { random: createRandom(1) });
}

/** Runs one call whose every attempt ends in `outcome`: the call, its attempts and how it stopped. */
function run(
  p: RetryPolicy,
  outcome: Outcome,
  traits: RequestTraits = {},
): { call: RetryCall; attempts: number; stop: string } {
  const call = p.start(0, traits);
  let now = 0;
  for (let i = 0; i < 100; i++) {
    const attempt = call.beginAttempt(now);
    if ('stop' in attempt) return { call, attempts: call.attempts, stop: attempt.stop };
    const decision = call.onOutcome(outcome, now);
    if ('stop' in decision) return { call, attempts: call.attempts, stop: decision.stop };
    now += decision.retryAfterMs + 1;
  }
  throw new Error('the call made 100 attempts without stopping');
}

describe('RetryCall with ownership', () => {
  it('retries an error its callee claimed', () => {
    expect(run(policy(true), failing('claimed'))).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
  });

  it('stops at once on an unclaimed error, and counts the stop', () => {
    const p = policy(true);
    const { call, attempts, stop } = run(p, failing('unclaimed'));
    expect([attempts, stop, call.stopReason, call.lastClaim]).toEqual([
      1,
      'unclaimed-error',
      'unclaimed-error',
      'unclaimed',
    ]);
    const stats = p.stats();
    expect(stats.stops['unclaimed-error']).toBe(1);
    expect([stats.calls, stats.active, stats.attempts, stats.retries]).toEqual([1, 0, 1, 0]);
  });

  it('retries as the nearest caller when no claim came back: a timeout, or a response without the header', () => {
    expect(run(policy(true), timeout)).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
    expect(run(policy(true), failing(undefined))).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
    expect(run(policy(true), failing('absent'))).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
  });

  it('retries an error flagged criteria-met (the at-least-once guarantee)', () => {
    expect(run(policy(true), failing('criteria-met'))).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
  });

  it('replaces the one-layer rule: inside a Seawall hop it still retries a claimed error', () => {
    expect(run(policy(true), failing('claimed'), { fromSeawallHop: true })).toMatchObject({
      attempts: 4,
      stop: 'attempts-exhausted',
    });
    expect(policy(true).start(0, { fromSeawallHop: true }).maxAttempts).toBe(4);
    // Without ownership the one-layer rule holds: one attempt inside a hop.
    expect(run(policy(false), failing('claimed'), { fromSeawallHop: true })).toMatchObject({
      attempts: 1,
      stop: 'one-layer',
    });
  });

  it('stops an unclaimed error that was not retryable anyway as not-retryable', () => {
    const p = policy(true);
    expect(run(p, failing('unclaimed', 404))).toMatchObject({ attempts: 1, stop: 'not-retryable' });
    expect(p.stats().stops['unclaimed-error']).toBe(0);
    expect(p.stats().stops['not-retryable']).toBe(1);
  });

  it('lets a success through whatever the claim says', () => {
    expect(run(policy(true), { kind: 'response', status: 200, claim: 'unclaimed' })).toMatchObject({
      attempts: 1,
      stop: 'succeeded',
    });
  });

  it('reads the claim of the last attempt only', () => {
    const call = policy(true).start(0);
    call.beginAttempt(0);
    expect('retryAfterMs' in call.onOutcome(failing('unclaimed', 404), 0)).toBe(false);
    expect(call.lastClaim).toBe('unclaimed');
    const other = policy(true).start(0);
    other.beginAttempt(0);
    expect(other.onOutcome(failing('claimed'), 0)).toEqual({ retryAfterMs: 0 });
    expect(other.lastClaim).toBe('claimed');
    other.beginAttempt(1);
    expect(other.onOutcome(timeout, 1)).toEqual({ retryAfterMs: 0 });
    expect(other.lastClaim).toBe('absent');
    other.beginAttempt(2);
    expect(other.onOutcome(failing('unclaimed'), 2)).toEqual({ stop: 'unclaimed-error' });
  });
});

describe('RetryCall.passUp: how a failed call marks the error it relays', () => {
  it('after a claimed error with no retries (maxAttempts 1): criteria-met, so a hop above may retry', () => {
    const { call } = run(policy(true, 1), failing('claimed'));
    expect([call.stopReason, call.passUp]).toEqual(['attempts-exhausted', 'criteria-met']);
  });

  it('after a claimed error with retries (maxAttempts 3): unclaimed, they were spent here', () => {
    const { call, attempts } = run(policy(true, 3), failing('claimed'));
    expect([attempts, call.passUp]).toEqual([3, 'unclaimed']);
  });

  it('after no claim with no retries: unclaimed', () => {
    expect(run(policy(true, 1), timeout).call.passUp).toBe('unclaimed');
    expect(run(policy(true, 1), failing(undefined)).call.passUp).toBe('unclaimed');
  });

  it('after criteria-met: passes the flag on without retries, unclaims it with retries', () => {
    expect(run(policy(true, 1), failing('criteria-met')).call.passUp).toBe('criteria-met');
    expect(run(policy(true, 3), failing('criteria-met')).call.passUp).toBe('unclaimed');
  });

  it('after an unclaimed error: unclaimed, with or without retries', () => {
    expect(run(policy(true, 1), failing('unclaimed')).call.passUp).toBe('unclaimed');
    expect(run(policy(true, 3), failing('unclaimed')).call.passUp).toBe('unclaimed');
  });

  it('counts a per-call cap of one attempt as no retries', () => {
    expect(run(policy(true, 3), failing('claimed'), { maxAttempts: 1 }).call.passUp).toBe('criteria-met');
  });

  it('a claimed error this hop cannot retry for its own reasons goes up flagged: a hop above may be able to', () => {
    // Not in this hop's retryOn (500 is not in the default list).
    expect(run(policy(true, 3), failing('claimed', 500))).toMatchObject({ attempts: 1, stop: 'not-retryable' });
    expect(run(policy(true, 3), failing('claimed', 500)).call.passUp).toBe('criteria-met');
    // A one-shot body.
    const oneShot = run(policy(true, 3), failing('claimed'), { bodyReplayable: false });
    expect([oneShot.stop, oneShot.call.passUp]).toEqual(['body-not-replayable', 'criteria-met']);
  });

  it('a claimed error unsafe to replay here goes up unclaimed: a retry from above would repeat the side effect', () => {
    for (const maxAttempts of [1, 3]) {
      const p5xx = new RetryPolicy({ budget: false, backoff: 'none', ownership: true, retryOn: ['5xx'], maxAttempts });
      const unsafe = run(p5xx, failing('claimed', 500), { method: 'POST' });
      expect([unsafe.stop, unsafe.call.passUp]).toEqual(['unsafe-to-retry', 'unclaimed']);
    }
  });

  it('a claimed error whose retry the budget or the deadline refused goes up unclaimed: the storm stops here', () => {
    const budgeted = new RetryPolicy(
      { backoff: 'none', ownership: true, budget: { kind: 'token-bucket', maxTokens: 1, tokenRatio: 0.1 } },
      { random: createRandom(1) },
    );
    const refused = run(budgeted, failing('claimed'));
    expect([refused.stop, refused.attempts, refused.call.passUp]).toEqual(['budget-exhausted', 1, 'unclaimed']);
  });
});

describe('RetryCall.relayMark: whether an answer relays this call at all', () => {
  it('nothing while the call runs, after a success, after the caller aborted, or after an answer below 500', () => {
    const p = policy(true, 3);
    const running = p.start(0);
    expect(running.relayMark).toBeNull();
    running.beginAttempt(0);
    running.onOutcome({ kind: 'response', status: 200 }, 0);
    expect(running.relayMark).toBeNull();
    const aborted = p.start(0);
    aborted.beginAttempt(0);
    aborted.abort(0);
    expect(aborted.relayMark).toBeNull();
    expect(run(p, failing('claimed', 404)).call.relayMark).toBeNull();
  });

  it('passUp after a 5xx or no answer at all', () => {
    expect(run(policy(true, 3), failing('claimed')).call.relayMark).toBe('unclaimed');
    expect(run(policy(true, 1), failing('claimed')).call.relayMark).toBe('criteria-met');
    expect(run(policy(true, 1), timeout).call.relayMark).toBe('unclaimed');
  });
});

describe('RetryCall without ownership (the outermost hop retries)', () => {
  it('ignores claims: an unclaimed 503 is retried', () => {
    const p = policy(false);
    expect(run(p, failing('unclaimed'))).toMatchObject({ attempts: 4, stop: 'attempts-exhausted' });
    expect(p.stats().stops['unclaimed-error']).toBe(0);
  });

  it('is the default', () => {
    expect(new RetryPolicy({}).config.ownership).toBe(false);
    const p = new RetryPolicy({ budget: false, backoff: 'none' }, { random: createRandom(1) });
    expect(run(p, failing('unclaimed')).stop).toBe('attempts-exhausted');
  });
});

describe('ownership config', () => {
  it('must be a boolean: a ConfigError names it', () => {
    let error: unknown;
    try {
      new RetryPolicy({ ownership: 'yes' as unknown as boolean });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['ownership']);
    expect(new RetryPolicy({ ownership: true }).config.ownership).toBe(true);
  });
});
