// Tests for RetryPolicy's attempt state machine: stop reasons, waits, deadlines, budgets, safety and counters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import { ConfigError } from '../core/config-error.js';
import type { Random } from '../core/random.js';
import type { Outcome, RequestTraits } from '../core/types.js';
import { parseRetryAfter } from '../hop/retry-after.js';
import { compileRetryConditions } from './classify.js';
import { type AttemptPlan, RetryPolicy } from './retry.js';
import type { RetryPolicyConfig } from './retry-config.js';

/** A Random that always draws `u`: jitter becomes exact, so waits can be asserted to the millisecond. */
function fixedRandom(u: number): Random {
  const random: Random = { next: () => u, nextUint32: () => Math.floor(u * 2 ** 32), fork: () => random };
  return random;
}

const ok: Outcome = { kind: 'response', status: 200 };
const unavailable: Outcome = { kind: 'response', status: 503 };
const timeout: Outcome = { kind: 'timeout' };

function policy(config: RetryPolicyConfig = {}, u = 0.5): RetryPolicy {
  return new RetryPolicy(config, { random: fixedRandom(u) });
}

function plan(result: AttemptPlan | { stop: string }): AttemptPlan {
  if ('stop' in result) throw new Error(`expected an attempt, got stop ${result.stop}`);
  return result;
}

/** Runs one call where every attempt ends with `outcome`; returns the decisions. */
function runCall(p: RetryPolicy, outcome: Outcome, traits: RequestTraits = {}, startMs = 0) {
  const call = p.start(startMs, traits);
  let now = startMs;
  const waits: number[] = [];
  // Bounded: a call that never stops (maxAttempts switched off) fails here, not by exhausting memory.
  for (let i = 0; i < 1000; i++) {
    const attempt = call.beginAttempt(now);
    if ('stop' in attempt) return { call, waits, stop: attempt.stop };
    const decision = call.onOutcome(outcome, now);
    if ('stop' in decision) return { call, waits, stop: decision.stop };
    waits.push(decision.retryAfterMs);
    now += decision.retryAfterMs;
  }
  throw new Error('the call made 1,000 attempts without stopping');
}

describe('RetryPolicy: the happy path and stop reasons', () => {
  it('stops as succeeded after a successful first attempt and counts one call and one attempt', () => {
    const p = policy();
    const result = runCall(p, ok);
    expect(result.stop).toBe('succeeded');
    expect(result.call.attempts).toBe(1);
    expect(result.call.stopReason).toBe('succeeded');
    const stats = p.stats();
    expect(stats).toMatchObject({ calls: 1, active: 0, attempts: 1, retries: 0, retrySuccess: 0 });
    expect(stats.stops.succeeded).toBe(1);
  });

  it('counts a success after a retry as retrySuccess', () => {
    const p = policy({ budget: false });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome(unavailable, 0)).toEqual({ retryAfterMs: 50 });
    plan(call.beginAttempt(50));
    expect(call.onOutcome(ok, 60)).toEqual({ stop: 'succeeded' });
    expect(p.stats()).toMatchObject({ attempts: 2, retries: 1, retrySuccess: 1 });
  });

  it('makes exactly maxAttempts attempts, then stops as attempts-exhausted', () => {
    const p = policy({ maxAttempts: 4, budget: false, backoff: 'none' });
    const result = runCall(p, unavailable);
    expect(result.stop).toBe('attempts-exhausted');
    expect(result.call.attempts).toBe(4);
    expect(result.waits).toEqual([0, 0, 0]);
    expect(p.stats()).toMatchObject({ retryLimitExceeded: 1, retries: 3 });
  });

  it('lets a per-call override lower maxAttempts but never raise it', () => {
    const p = policy({ maxAttempts: 3, budget: false });
    expect(runCall(p, unavailable, { maxAttempts: 1 }).call.attempts).toBe(1);
    expect(runCall(p, unavailable, { maxAttempts: 10 }).call.attempts).toBe(3);
  });

  it("lets a per-call retryOn replace the policy's, as a list or a compiled set, and rejects a bad list", () => {
    const p = policy({ budget: false, retryOn: [503] });
    expect(runCall(p, { kind: 'response', status: 500 }, { retryOn: [500] }).call.attempts).toBe(3);
    expect(runCall(p, unavailable, { retryOn: [500] }).stop).toBe('not-retryable');
    expect(runCall(p, unavailable, { retryOn: compileRetryConditions(['gateway-error']) }).call.attempts).toBe(3);
    expect(runCall(p, unavailable).call.attempts).toBe(3);
    expect(() => p.start(0, { retryOn: ['bogus' as never] })).toThrow(ConfigError);
    expect(() => p.start(0, { retryOn: ['bogus' as never] })).toThrow(/^retryOn.0: unknown retry condition/);
  });

  it('stops a 404 as not-retryable and leaves the token bucket alone (gRPC A6 credits only OK)', () => {
    const p = policy({ budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.5 } });
    p.budgetFor('').recordFailure();
    expect(p.budgetFor('').level()).toBe(9);
    const result = runCall(p, { kind: 'response', status: 404 });
    expect(result.stop).toBe('not-retryable');
    expect(p.budgetFor('').level()).toBe(9);
  });

  it('retries 429 when listed', () => {
    const p = policy({ budget: false, retryOn: [429] });
    expect(runCall(p, { kind: 'response', status: 429 }).call.attempts).toBe(3);
  });

  it('ends an aborted attempt as aborted without touching the budget', () => {
    const p = policy();
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'aborted' }, 5)).toEqual({ stop: 'aborted' });
    expect(p.budgetFor('').level()).toBe(10);
  });

  it('ends a locally shed attempt as refused (a give-up), the first one too', () => {
    expect(runCall(policy(), { kind: 'shed-locally' }).stop).toBe('refused');
  });
});

describe('RetryPolicy: waits', () => {
  it('spreads the first retry over U(0, 100 ms) with the default full jitter (base 50 ms, cap 500 ms)', () => {
    for (const u of [0, 0.25, 0.999]) {
      const call = policy({ budget: false }, u).start(0);
      plan(call.beginAttempt(0));
      expect(call.onOutcome(unavailable, 0)).toEqual({ retryAfterMs: u * 100 });
    }
  });

  it('doubles the jitter ceiling for the second retry', () => {
    const result = runCall(policy({ budget: false }, 0.5), unavailable);
    expect(result.waits).toEqual([50, 100]);
  });

  it('treats Retry-After as a floor on the wait', () => {
    const call = policy({ budget: false }).start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, retryAfter: '1' }, 0)).toEqual({ retryAfterMs: 1000 });
  });

  it("keeps the jittered wait when it is longer than the server's Retry-After", () => {
    const call = policy({ budget: false, backoff: { kind: 'constant', delay: '300ms' } }).start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, retryAfter: '0.2' }, 0)).toEqual({ retryAfterMs: 300 });
  });

  it('ignores Retry-After when honorRetryAfter is false, and ignores a malformed one', () => {
    const call = policy({ budget: false, honorRetryAfter: false }).start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, retryAfter: '1' }, 0)).toEqual({ retryAfterMs: 50 });
    const other = policy({ budget: false }).start(0);
    plan(other.beginAttempt(0));
    expect(other.onOutcome({ kind: 'response', status: 503, retryAfter: 'soon' }, 0)).toEqual({ retryAfterMs: 50 });
  });

  it('reads one meaning of the cap: the parser returns the wait asked for, the policy refuses it, never shortens it', () => {
    // retry-after.ts: parsers are not capped (the 300 s default is maxRetryAfter's, applied here only).
    expect(parseRetryAfter('301', 0)).toEqual({ ok: true, delayMs: 301_000, bounded: false });
    const call = policy({ budget: false }).start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, retryAfter: '301' }, 0)).toEqual({
      stop: 'server-pushback',
    });
    const patient = policy({ budget: false, maxRetryAfter: '10m', deadline: false }).start(0);
    plan(patient.beginAttempt(0));
    expect(patient.onOutcome({ kind: 'response', status: 503, retryAfter: '301' }, 0)).toEqual({
      retryAfterMs: 301_000,
    });
  });

  it('does not retry when the server asks for a wait beyond maxRetryAfter', () => {
    const p = policy({ budget: false, maxRetryAfter: '10s' });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 503, retryAfter: '11' }, 0)).toEqual({ stop: 'server-pushback' });
    const atLimit = p.start(0);
    plan(atLimit.beginAttempt(0));
    expect(atLimit.onOutcome({ kind: 'response', status: 503, retryAfter: '10' }, 0)).toEqual({ retryAfterMs: 10_000 });
  });

  it('waits exactly the grpc-retry-pushback-ms and restarts the backoff (gRPC A6)', () => {
    const call = policy({ budget: false, maxAttempts: 4 }, 0.5).start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome(unavailable, 0)).toEqual({ retryAfterMs: 50 });
    plan(call.beginAttempt(50));
    expect(call.onOutcome({ kind: 'response', status: 503, pushbackMs: '7' }, 50)).toEqual({ retryAfterMs: 7 });
    plan(call.beginAttempt(57));
    // the backoff starts over: the first retry's ceiling again (100 ms), not the third's (400 ms)
    expect(call.onOutcome(unavailable, 57)).toEqual({ retryAfterMs: 50 });
  });

  it('stops on a negative or malformed pushback and counts it as a budget failure', () => {
    for (const pushback of ['-1', 'NaN', '12ms']) {
      const p = policy({ retryOn: [503] });
      const call = p.start(0);
      plan(call.beginAttempt(0));
      expect(call.onOutcome({ kind: 'response', status: 500, pushbackMs: pushback }, 0)).toEqual({
        stop: 'server-pushback',
      });
      expect(p.budgetFor('').level()).toBe(9);
    }
  });

  it('charges a retryable failure with a do-not-retry pushback only once', () => {
    const p = policy();
    const call = p.start(0);
    plan(call.beginAttempt(0));
    call.onOutcome({ kind: 'response', status: 503, pushbackMs: '-5' }, 0);
    expect(p.budgetFor('').level()).toBe(9);
  });
});

describe('RetryPolicy: deadlines', () => {
  const seedFix: RetryPolicyConfig = {
    maxAttempts: 3,
    perTryTimeout: '800ms',
    deadline: { patience: '2s', margin: '100ms' },
    budget: false,
  };

  it('sets the deadline to start + patience − margin and gives each attempt min(perTryTimeout, time left)', () => {
    const call = policy(seedFix).start(1000);
    expect(call.deadlineMs).toBe(2900);
    expect(plan(call.beginAttempt(1000)).perTryTimeoutMs).toBe(800);
    call.onOutcome(timeout, 1800);
    expect(plan(call.beginAttempt(2500)).perTryTimeoutMs).toBe(400);
  });

  it('keeps the earlier of an inherited deadline and its own', () => {
    expect(policy(seedFix).start(0, { deadlineMs: 500 }).deadlineMs).toBe(500);
    expect(policy(seedFix).start(0, { deadlineMs: 5000 }).deadlineMs).toBe(1900);
    expect(policy({ deadline: false }).start(0, { deadlineMs: 5000 }).deadlineMs).toBe(5000);
    expect(policy({ deadline: false }).start(0).deadlineMs).toBeNull();
  });

  // Issue #9 item 12: a dead upstream must not leave a call pending forever.
  it('gives a call with no configured deadline the default 15 s (Envoy route timeout), and none with deadline: false', () => {
    expect(policy({}).start(1000).deadlineMs).toBe(16_000);
    expect(plan(policy({}).start(0).beginAttempt(0)).perTryTimeoutMs).toBe(15_000);
    expect(policy({}).start(0, { deadlineMs: 5000 }).deadlineMs).toBe(5000);
    expect(policy({}).start(0, { inheritedDeadlineMs: 60_000 }).deadlineMs).toBe(15_000);
  });

  // Issue #9 item 7: a deadline only ever shrinks down a chain, whoever sets it.
  it("takes the earliest of the call's own, the inherited and the policy's deadline: none can extend another", () => {
    const p = policy({ deadline: { patience: 10_000 } });
    expect(p.start(0, { inheritedDeadlineMs: 200, deadlineMs: 2000 }).deadlineMs).toBe(200);
    expect(p.start(0, { inheritedDeadlineMs: 2000, deadlineMs: 200 }).deadlineMs).toBe(200);
    expect(p.start(0, { inheritedDeadlineMs: 20_000, deadlineMs: 30_000 }).deadlineMs).toBe(10_000);
    expect(
      plan(p.start(0, { inheritedDeadlineMs: 200, deadlineMs: 2000 }).beginAttempt(0)).headers['grpc-timeout'],
    ).toBe('200m');
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
        (own, inherited, patience) => {
          const call = policy(patience === undefined ? { deadline: false } : { deadline: { patience } }).start(0, {
            deadlineMs: own,
            inheritedDeadlineMs: inherited,
          });
          const candidates = [own, inherited, patience].filter((v) => v !== undefined) as number[];
          expect(call.deadlineMs).toBe(candidates.length === 0 ? null : Math.min(...candidates));
        },
      ),
      propertyRuns(),
    );
  });

  it('has no per-try timeout when neither perTryTimeout nor a deadline is set', () => {
    expect(plan(policy({ deadline: false }).start(0).beginAttempt(0)).perTryTimeoutMs).toBe(Number.POSITIVE_INFINITY);
  });

  it("lets a per-call perTryTimeoutMs shorten the policy's, never lengthen it", () => {
    const p = policy({ perTryTimeout: 800, deadline: false });
    expect(plan(p.start(0, { perTryTimeoutMs: 100 }).beginAttempt(0)).perTryTimeoutMs).toBe(100);
    expect(plan(p.start(0, { perTryTimeoutMs: 5000 }).beginAttempt(0)).perTryTimeoutMs).toBe(800);
  });

  // Issue #9 item 8: maxAttempts NaN once removed the attempt cap.
  it.each([
    [{ maxAttempts: Number.NaN }, 'maxAttempts'],
    [{ maxAttempts: '3' as unknown as number }, 'maxAttempts'],
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ maxAttempts: 1.5 }, 'maxAttempts'],
    [{ maxAttempts: 1000 }, 'maxAttempts'],
    [{ deadlineMs: Number.NaN }, 'deadlineMs'],
    [{ deadlineMs: 'x' as unknown as number }, 'deadlineMs'],
    [{ inheritedDeadlineMs: Number.POSITIVE_INFINITY }, 'inheritedDeadlineMs'],
    [{ perTryTimeoutMs: -1 }, 'perTryTimeoutMs'],
    [{ perTryTimeoutMs: Number.NaN }, 'perTryTimeoutMs'],
    [{ method: 5 as unknown as string }, 'method'],
    [{ method: {} as unknown as string }, 'method'],
  ])('refuses the trait %j with a ConfigError naming %s, and starts no call', (traits, name) => {
    const p = policy({});
    expect(() => p.start(0, traits)).toThrow(new RegExp(`^${name}: must be`));
    expect(p.stats().calls).toBe(0);
  });

  it('stops as deadline-would-pass when now + wait reaches the deadline exactly', () => {
    const p = policy({ budget: false, backoff: { kind: 'constant', delay: 100 }, deadline: { patience: 1000 } });
    const call = p.start(0);
    plan(call.beginAttempt(0));
    expect(call.onOutcome(unavailable, 900)).toEqual({ stop: 'deadline-would-pass' });
    const earlier = p.start(0);
    plan(earlier.beginAttempt(0));
    expect(earlier.onOutcome(unavailable, 899)).toEqual({ retryAfterMs: 100 });
    expect(p.stats().deadlineExceeded).toBe(1);
  });

  it('refuses to begin an attempt at or after the deadline (deadline-exceeded)', () => {
    const p = policy({});
    const call = p.start(0, { deadlineMs: 100 });
    expect(call.beginAttempt(100)).toEqual({ stop: 'deadline-exceeded' });
    expect(call.attempts).toBe(0);
    expect(p.stats()).toMatchObject({ deadlineExceeded: 1, attempts: 0 });
    expect(plan(p.start(0, { deadlineMs: 100 }).beginAttempt(99)).perTryTimeoutMs).toBe(1);
  });

  it('sends the deadline in absolute and relative form plus the attempt number', () => {
    const call = policy(seedFix).start(1_764_486_000_000);
    expect(plan(call.beginAttempt(1_764_486_000_500)).headers).toEqual({
      'x-seawall-attempt': '1',
      'x-request-deadline': '1764486001.900',
      'grpc-timeout': '1400m',
    });
    call.onOutcome(unavailable, 1_764_486_000_600);
  });

  it('sends only the attempt number when propagateDeadline is false or there is no deadline', () => {
    const call = policy({ ...seedFix, propagateDeadline: false }).start(0);
    expect(plan(call.beginAttempt(0)).headers).toEqual({ 'x-seawall-attempt': '1' });
    expect(plan(policy({ deadline: false }).start(0).beginAttempt(0)).headers).toEqual({ 'x-seawall-attempt': '1' });
  });
});

describe('RetryPolicy: request safety', () => {
  const config: RetryPolicyConfig = { budget: false, retryOn: ['timeout', 500, 503] };

  it('does not retry a POST on 500 or timeout without an idempotency key', () => {
    expect(runCall(policy(config), { kind: 'response', status: 500 }, { method: 'POST' }).stop).toBe('unsafe-to-retry');
    expect(runCall(policy(config), timeout, { method: 'POST' }).stop).toBe('unsafe-to-retry');
  });

  it('retries a POST on 500 when it carries an idempotency key, or is declared idempotent', () => {
    const keyed = runCall(
      policy(config),
      { kind: 'response', status: 500 },
      { method: 'POST', hasIdempotencyKey: true },
    );
    expect(keyed.call.attempts).toBe(3);
    expect(runCall(policy(config), timeout, { method: 'POST', idempotent: true }).call.attempts).toBe(3);
  });

  it('retries a POST on 503 (refused before work)', () => {
    expect(runCall(policy(config), unavailable, { method: 'POST' }).call.attempts).toBe(3);
  });

  it('retries a POST on timeout when retryNonIdempotent is set, and warns about it', () => {
    const p = policy({ ...config, retryNonIdempotent: true });
    expect(runCall(p, timeout, { method: 'POST' }).call.attempts).toBe(3);
    expect(p.warnings.map((w) => w.path)).toContain('retryNonIdempotent');
  });

  it('retries a GET reset mid-response but not a POST without an idempotency key', () => {
    const midResponse: Outcome = { kind: 'reset', stage: 'mid-response' };
    expect(runCall(policy({ budget: false }), midResponse, { method: 'GET' }).call.attempts).toBe(3);
    expect(runCall(policy({ budget: false }), midResponse, { method: 'POST' }).stop).toBe('unsafe-to-retry');
  });

  it('ends a local error as not-retryable after one attempt without touching the budget', () => {
    const p = policy();
    const result = runCall(p, { kind: 'local-error' });
    expect(result.stop).toBe('not-retryable');
    expect(result.call.attempts).toBe(1);
    expect(p.budgetFor('').level()).toBe(10);
  });

  it('sends a request with a one-shot body once, with its own stop reason', () => {
    const result = runCall(policy(config), unavailable, { bodyReplayable: false });
    expect(result.stop).toBe('body-not-replayable');
    expect(result.call.attempts).toBe(1);
  });
});
