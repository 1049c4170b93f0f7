// Edges of the hop data, hint lists, trait checks and LRU budgets that mutation testing found untested (issue #9).
import { describe, expect, it } from 'vitest';
import { ConfigError, didYouMean } from './core/config-error.js';
import { createRandom } from './core/random.js';
import type { Outcome } from './core/types.js';
import { readDeadline } from './hop/deadline.js';
import { CLAIM_HEADER, DEADLINE_REFUSAL, PUSHBACK_HEADER, queueFullRefusal, responseOutcome } from './hop/hop.js';
import { headerMembers, parseGrpcPushback, parseRetryAfter, parseRetryAfterMs, serverWait } from './hop/retry-after.js';
import { compileRetryConditions } from './retry/classify.js';
import { type AttemptPlan, MAX_TRACKED_UPSTREAMS, RetryPolicy } from './retry/retry.js';
import { validateRetryConfig } from './retry/retry-config.js';

const NOW = Date.UTC(1994, 10, 6, 8, 49, 30);
const unavailable = (extra: Partial<Extract<Outcome, { kind: 'response' }>> = {}): Outcome => ({
  kind: 'response',
  status: 503,
  ...extra,
});

function plan(result: AttemptPlan | { stop: string }): AttemptPlan {
  if ('stop' in result) throw new Error(`expected an attempt, got stop ${result.stop}`);
  return result;
}

/** One call of `policy` that got `outcome` on its first attempt: the decision. */
function decide(policy: RetryPolicy, outcome: Outcome) {
  const call = policy.start(0);
  plan(call.beginAttempt(0));
  return call.onOutcome(outcome, 0);
}

const fixedJitter = (config = {}) =>
  new RetryPolicy({ budget: false, backoff: 'none', ...config }, { random: createRandom(1) });

describe('hop data: refusals and the reading of a response', () => {
  it('reads no hint on a success, and every hint on a failure, raw', () => {
    const headers: Record<string, string | string[]> = {
      'retry-after': ['1', '2'],
      'retry-after-ms': '150',
      [PUSHBACK_HEADER]: '20',
    };
    expect(responseOutcome(399, (name) => headers[name])).toEqual({ kind: 'response', status: 399 });
    expect(responseOutcome(400, (name) => headers[name])).toEqual({
      kind: 'response',
      status: 400,
      retryAfter: ['1', '2'],
      retryAfterMs: '150',
      pushbackMs: '20',
      claim: 'absent',
    });
    expect(PUSHBACK_HEADER).toBe('grpc-retry-pushback-ms');
  });

  it('builds the 503 and the 504 a callee sends as data: claimed, with both forms of the wait', () => {
    expect(queueFullRefusal(200.4)).toEqual({
      status: 503,
      reason: 'queue-full',
      retryAfterMs: 201,
      retryAfter: '1',
      headers: { 'retry-after': '1', 'retry-after-ms': '201', [CLAIM_HEADER]: '1' },
    });
    expect(DEADLINE_REFUSAL).toEqual({ status: 504, reason: 'deadline-passed', headers: { [CLAIM_HEADER]: '1' } });
    expect(Object.isFrozen(DEADLINE_REFUSAL.headers)).toBe(true);
  });
});

describe('hint lists', () => {
  it('splits members, skipping lines that are not strings, joining a day name only when asked', () => {
    expect(headerMembers(null)).toEqual([]);
    expect(headerMembers(undefined)).toEqual([]);
    expect(headerMembers(['1', 5 as unknown as string, ' 2 , 3'])).toEqual(['1', '2', '3']);
    expect(headerMembers('Sun, 06 Nov')).toEqual(['Sun', '06 Nov']);
    expect(headerMembers('Sun, 06 Nov', true)).toEqual(['Sun, 06 Nov']);
    expect(headerMembers('1, Sun', true)).toEqual(['1', 'Sun']); // a day name at the end joins nothing
  });

  it('joins only a whole day name (anchored): "XMon" and "Monx" start no date', () => {
    expect(parseRetryAfter('XMon, 5', NOW)).toEqual({ ok: true, delayMs: 5000, bounded: false });
    expect(parseRetryAfter('Monx, 5', NOW)).toEqual({ ok: true, delayMs: 5000, bounded: false });
  });

  it('reads a leading comma as an empty member, in both forms of the wait', () => {
    expect(parseRetryAfter(',5', NOW)).toEqual({ ok: true, delayMs: 5000, bounded: false });
    expect(parseRetryAfterMs(',5')).toEqual({ ok: true, delayMs: 5, bounded: false });
  });

  it('reads retry-after-ms lists like Retry-After lists', () => {
    expect(parseRetryAfterMs(null)).toEqual({ ok: false, reason: 'absent' });
    expect(parseRetryAfterMs('100, 200')).toEqual({ ok: true, delayMs: 200, bounded: false });
    expect(parseRetryAfterMs(['200', '100'])).toEqual({ ok: true, delayMs: 200, bounded: false });
    expect(parseRetryAfterMs(['x', '100'])).toEqual({ ok: true, delayMs: 100, bounded: false });
    expect(parseRetryAfterMs(['x', 'y'])).toEqual({ ok: false, reason: 'malformed' });
    expect(parseRetryAfterMs(' 12\t')).toEqual({ ok: true, delayMs: 12, bounded: false });
    expect(parseRetryAfterMs('1.5a')).toEqual({ ok: false, reason: 'malformed' });
    expect(parseRetryAfterMs('1./')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('takes retry-after-ms only when it refines Retry-After: 0 beside "1" is a disagreement, so the longer wait', () => {
    expect(serverWait('1', '0', NOW)).toEqual({ ok: true, delayMs: 1000, bounded: false });
    expect(serverWait('1', '1', NOW)).toEqual({ ok: true, delayMs: 1, bounded: false });
    expect(serverWait('2', '1000', NOW)).toEqual({ ok: true, delayMs: 2000, bounded: false });
  });

  it('keeps the longest pushback of a list, whatever its place', () => {
    expect(parseGrpcPushback(['200', '100'])).toEqual({ kind: 'retry', delayMs: 200 });
    expect(parseGrpcPushback(['100', '200', '150'])).toEqual({ kind: 'retry', delayMs: 200 });
  });
});

describe('RetryPolicy reads server waits with the one rule', () => {
  it('stops on a pushback beyond maxRetryAfter, and waits exactly one at it', () => {
    const policy = fixedJitter({ maxRetryAfter: '10s', deadline: false });
    expect(decide(policy, unavailable({ pushbackMs: '10001' }))).toEqual({ stop: 'server-pushback' });
    expect(decide(policy, unavailable({ pushbackMs: '10000' }))).toEqual({ retryAfterMs: 10_000 });
  });

  it('takes a floor from retry-after-ms alone, and from retry-after-ms refining Retry-After', () => {
    const policy = fixedJitter({ deadline: false });
    expect(decide(policy, unavailable({ retryAfterMs: '250' }))).toEqual({ retryAfterMs: 250 });
    expect(decide(policy, unavailable({ retryAfter: '1', retryAfterMs: '250' }))).toEqual({ retryAfterMs: 250 });
    expect(decide(policy, unavailable({ retryAfter: '1' }))).toEqual({ retryAfterMs: 1000 });
  });

  it('retries a call without a deadline (deadline: false) whatever the wait', () => {
    const policy = fixedJitter({ deadline: false });
    expect(decide(policy, unavailable({ retryAfter: '200' }))).toEqual({ retryAfterMs: 200_000 });
  });
});

describe('RetryPolicy checks per-call traits at their bounds', () => {
  it('accepts null deadlines, 100 attempts and any positive per-try cap', () => {
    const policy = fixedJitter({ deadline: { patience: 1000 } });
    expect(policy.start(0, { deadlineMs: null, inheritedDeadlineMs: null }).deadlineMs).toBe(1000);
    expect(policy.start(0, { maxAttempts: 100 }).maxAttempts).toBe(3);
    expect(plan(policy.start(0, { perTryTimeoutMs: 0.5 }).beginAttempt(0)).perTryTimeoutMs).toBe(0.5);
    expect(() => policy.start(0, { perTryTimeoutMs: 0 })).toThrow(ConfigError);
    expect(() => policy.start(0, { maxAttempts: 101 })).toThrow(ConfigError);
  });

  it('takes a compiled retryOn set as it is', () => {
    const set = compileRetryConditions([429]);
    const policy = fixedJitter({ deadline: false });
    const call = policy.start(0, { retryOn: set });
    plan(call.beginAttempt(0));
    expect(call.onOutcome({ kind: 'response', status: 429 }, 0)).toEqual({ retryAfterMs: 0 });
  });
});

describe("RetryPolicy keeps the default upstream's budget in its map", () => {
  it('rescales the default budget on update even after more than the tracking limit of other upstreams', () => {
    const policy = new RetryPolicy({ budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 } });
    policy.budgetFor('').recordFailure(); // 9 of 10
    for (let i = 0; i < MAX_TRACKED_UPSTREAMS + 5; i++) policy.budgetFor(`u${i}`);
    policy.update({ budget: { kind: 'token-bucket', maxTokens: 20, tokenRatio: 0.1 } });
    expect(policy.budgetFor('').level()).toBe(18);
  });
});

describe('config validation edges', () => {
  it('refuses an invalid config outright (no config is returned beside issues)', () => {
    expect(validateRetryConfig({ maxAttempts: 0 }).config).toBeUndefined();
    expect(() => new RetryPolicy({ maxAttempts: 0 })).toThrow(ConfigError);
  });

  it('suggests the deadline key a typo meant', () => {
    const { issues } = validateRetryConfig({ deadline: { patiense: 1000 } });
    expect(issues.map((i) => i.message)).toEqual(['unknown key; did you mean patience?']);
  });

  it('suggests the first of equally close keys, within a third of the key length (at least one edit)', () => {
    expect(didYouMean('aa', ['ab', 'ac'])).toBe('; did you mean ab?');
    expect(didYouMean('x', ['y'])).toBe('; did you mean y?');
    expect(didYouMean('mxAtempts', ['maxAttempts'])).toBe('; did you mean maxAttempts?');
    expect(didYouMean('zzzzzz', ['maxAttempts'])).toBe('');
    expect(didYouMean('m'.repeat(65), ['mmm'])).toBe(''); // long keys are not compared at all
  });
});

describe('more edges found by mutation testing', () => {
  const T0 = 1_764_486_000_000;

  it('caps an absolute deadline used alone at now + maxMs, and not one exactly at it', () => {
    expect(readDeadline({ 'x-request-deadline': '1764486400' }, T0)).toEqual({
      ok: true,
      atMs: T0 + 300_000,
      capped: true,
      source: 'x-request-deadline',
    });
    expect(readDeadline({ 'x-request-deadline': '1764486300' }, T0)).toEqual({
      ok: true,
      atMs: T0 + 300_000,
      capped: false,
      source: 'x-request-deadline',
    });
  });

  it('reports the first failure of a relative header even when a later one fails for a non-finite now', () => {
    expect(readDeadline({ 'grpc-timeout': 'junk', 'x-envoy-expected-rq-timeout-ms': '5' }, Number.NaN)).toEqual({
      ok: false,
      reason: 'malformed',
      source: 'grpc-timeout',
    });
  });

  it('accepts a tracking limit of 2 upstreams', () => {
    const policy = new RetryPolicy({}, { maxUpstreams: 2 });
    const a = policy.budgetFor('a');
    policy.budgetFor('b');
    expect(policy.budgetFor('a')).toBe(a);
  });

  it('refuses a per-try cap given as a string', () => {
    expect(() => new RetryPolicy({}).start(0, { perTryTimeoutMs: '5' as unknown as number })).toThrow(ConfigError);
  });

  it('reads an HTTP-date with blanks around it (a list member, or a lone value)', () => {
    expect(parseRetryAfter(' Sun, 06 Nov 1994 08:49:37 GMT\t', NOW)).toEqual({
      ok: true,
      delayMs: 7000,
      bounded: false,
    });
  });

  it('reads a lone asctime date (no comma: the one-member path) with blanks around it', () => {
    expect(parseRetryAfter(' Sun Nov  6 08:49:37 1994\t', NOW)).toEqual({ ok: true, delayMs: 7000, bounded: false });
  });

  it('reads every fraction digit of retry-after-ms, 9 included', () => {
    expect(parseRetryAfterMs('1.9')).toEqual({ ok: true, delayMs: 2, bounded: false });
    expect(parseRetryAfterMs('0.09')).toEqual({ ok: true, delayMs: 1, bounded: false });
  });

  it('trims a trailing space or tab of a pushback', () => {
    expect(parseGrpcPushback('5 ')).toEqual({ kind: 'retry', delayMs: 5 });
    expect(parseGrpcPushback(' -1\t')).toEqual({ kind: 'stop', reason: 'negative' });
  });
});
