// Tests for outcome classification: retry conditions, replay safety (semantics.md §7) and budget effects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { Outcome } from '../core/types.js';
import {
  classifyOutcome,
  compileRetryConditions,
  compileRetryOn,
  isIdempotentMethod,
  type RetryOnSet,
} from './classify.js';

function compile(conditions: unknown): RetryOnSet {
  const issues: ConfigIssue[] = [];
  const set = compileRetryOn(conditions, 'retryOn', issues);
  expect(issues).toEqual([]);
  return set;
}

const seedFix = compile(['timeout', 429, 502, 503, 504, 'connect-failure', 'reset']);
const safe = { replaySafe: true };
const unsafe = { replaySafe: false };
const status = (s: number): Outcome => ({ kind: 'response', status: s });

describe('classifyOutcome', () => {
  // semantics.md §7: retry safety by condition.
  it.each([
    ['connect failure', { kind: 'connect-failure' } as Outcome, unsafe, true],
    ['reset before the request was written', { kind: 'reset', stage: 'before-request' } as Outcome, unsafe, true],
    ['reset after the request may have been written', { kind: 'reset' } as Outcome, unsafe, false],
    ['reset of an idempotent request', { kind: 'reset' } as Outcome, safe, true],
    ['503', status(503), unsafe, true],
    ['504', status(504), unsafe, true],
    ['502', status(502), unsafe, true],
    ['429', status(429), unsafe, true],
    ['timeout of an idempotent request', { kind: 'timeout' } as Outcome, safe, true],
    ['timeout of a non-idempotent request', { kind: 'timeout' } as Outcome, unsafe, false],
    ['timeout before the request was sent', { kind: 'timeout', stage: 'before-request' } as Outcome, unsafe, true],
  ])('retries %s: %s', (_name, outcome, safety, retryable) => {
    expect(classifyOutcome(outcome, seedFix, safety).retryable).toBe(retryable);
  });

  it('retries a 500 only when the request is replay-safe', () => {
    const withFiveHundred = compile([500]);
    expect(classifyOutcome(status(500), withFiveHundred, safe)).toEqual({
      retryable: true,
      reason: 'retryable',
      budget: 'failure',
    });
    expect(classifyOutcome(status(500), withFiveHundred, unsafe)).toEqual({
      retryable: false,
      reason: 'unsafe',
      budget: 'failure',
    });
  });

  it('treats 501 and 599 like 500 (unsafe without replay safety) but 502 to 504 as safe', () => {
    const all = compile(['5xx']);
    expect(classifyOutcome(status(501), all, unsafe).reason).toBe('unsafe');
    expect(classifyOutcome(status(599), all, unsafe).reason).toBe('unsafe');
    for (const s of [502, 503, 504]) expect(classifyOutcome(status(s), all, unsafe).retryable).toBe(true);
  });

  it('does not retry a 4xx other than those listed, and leaves the budget alone (gRPC A6 credits only OK)', () => {
    expect(classifyOutcome(status(404), seedFix, safe)).toEqual({
      retryable: false,
      reason: 'not-in-retry-on',
      budget: 'none',
    });
    expect(classifyOutcome(status(400), seedFix, safe).budget).toBe('none');
    expect(classifyOutcome(status(499), seedFix, safe).budget).toBe('none');
  });

  it('leaves the budget alone for an unlisted 5xx, 429 or transport failure', () => {
    const onlyTimeout = compile(['timeout']);
    expect(classifyOutcome(status(500), onlyTimeout, safe)).toEqual({
      retryable: false,
      reason: 'not-in-retry-on',
      budget: 'none',
    });
    expect(classifyOutcome(status(429), onlyTimeout, safe).budget).toBe('none');
    expect(classifyOutcome({ kind: 'reset' }, onlyTimeout, safe).budget).toBe('none');
    expect(classifyOutcome({ kind: 'connect-failure' }, onlyTimeout, safe).budget).toBe('none');
    expect(classifyOutcome({ kind: 'timeout' }, compile([503]), safe).retryable).toBe(false);
  });

  it('counts every status below 400 as success', () => {
    for (const s of [200, 204, 304, 399]) {
      expect(classifyOutcome(status(s), seedFix, unsafe)).toEqual({
        retryable: false,
        reason: 'success',
        budget: 'success',
      });
    }
  });

  it('never retries an aborted call or a locally shed attempt, and charges nothing', () => {
    expect(classifyOutcome({ kind: 'aborted' }, seedFix, safe)).toEqual({
      retryable: false,
      reason: 'aborted',
      budget: 'none',
    });
    expect(classifyOutcome({ kind: 'shed-locally' }, seedFix, safe)).toEqual({
      retryable: false,
      reason: 'shed-locally',
      budget: 'none',
    });
  });

  it('never retries a local error (the caller broke, not the upstream) and charges nothing', () => {
    expect(classifyOutcome({ kind: 'local-error' }, compile(['5xx', 'timeout']), safe)).toEqual({
      retryable: false,
      reason: 'local-error',
      budget: 'none',
    });
  });

  // semantics.md §7: a reset after the response started is like a timeout — the server may have done the work.
  it('retries a reset in the middle of a response only when the request is replay-safe', () => {
    const midResponse: Outcome = { kind: 'reset', stage: 'mid-response' };
    expect(classifyOutcome(midResponse, seedFix, safe)).toEqual({
      retryable: true,
      reason: 'retryable',
      budget: 'failure',
    });
    expect(classifyOutcome(midResponse, seedFix, unsafe)).toEqual({
      retryable: false,
      reason: 'unsafe',
      budget: 'failure',
    });
    expect(classifyOutcome(midResponse, compile([503]), safe)).toEqual({
      retryable: false,
      reason: 'not-in-retry-on',
      budget: 'none',
    });
  });

  // semantics.md §7 and Envoy's reset-before-request: only a reset that provably came before the server saw the
  // request is safe to replay for a POST; one after the request was written (or of unknown stage) is not.
  it.each([
    [{ kind: 'reset', stage: 'before-request' } as Outcome, true],
    [{ kind: 'reset', stage: 'after-request' } as Outcome, false],
    [{ kind: 'reset' } as Outcome, false],
    [{ kind: 'reset', stage: 'mid-response' } as Outcome, false],
  ])(
    'replays a non-idempotent request after %j only when the request never reached the server (%s)',
    (outcome, retried) => {
      expect(classifyOutcome(outcome, seedFix, unsafe)).toEqual(
        retried
          ? { retryable: true, reason: 'retryable', budget: 'failure' }
          : { retryable: false, reason: 'unsafe', budget: 'failure' },
      );
      expect(classifyOutcome(outcome, seedFix, safe).retryable).toBe(true);
    },
  );

  it('retries a timeout before the request was sent under timeout or connect-failure, for any method', () => {
    const unsent: Outcome = { kind: 'timeout', stage: 'before-request' };
    expect(classifyOutcome(unsent, compile(['connect-failure']), unsafe)).toEqual({
      retryable: true,
      reason: 'retryable',
      budget: 'failure',
    });
    expect(classifyOutcome(unsent, compile(['timeout']), unsafe).retryable).toBe(true);
    expect(classifyOutcome(unsent, compile([503]), unsafe).retryable).toBe(false);
    expect(classifyOutcome({ kind: 'timeout' }, compile(['connect-failure']), unsafe).retryable).toBe(false);
  });

  it('retries only resets before the request under reset-before-request, and every safe reset under reset', () => {
    const before: Outcome = { kind: 'reset', stage: 'before-request' };
    const after: Outcome = { kind: 'reset', stage: 'after-request' };
    const onlyBefore = compile(['reset-before-request']);
    expect(classifyOutcome(before, onlyBefore, unsafe).retryable).toBe(true);
    expect(classifyOutcome(after, onlyBefore, safe)).toEqual({
      retryable: false,
      reason: 'not-in-retry-on',
      budget: 'none',
    });
    expect(compile(['reset']).resetBeforeRequest).toBe(true);
    expect(compile(['5xx']).resetBeforeRequest).toBe(true);
    expect(compile([503]).resetBeforeRequest).toBe(false);
    expect(classifyOutcome(before, compile([503]), unsafe).retryable).toBe(false);
  });
});

describe('compileRetryConditions', () => {
  it('compiles a valid list like compileRetryOn', () => {
    expect(compileRetryConditions([503, 'timeout'])).toEqual(compile([503, 'timeout']));
  });

  it('throws a ConfigError naming each bad entry', () => {
    try {
      compileRetryConditions([503, 'nope' as never, 200], 'seawall.retryOn');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['seawall.retryOn.1', 'seawall.retryOn.2']);
    }
  });
});

describe('compileRetryOn', () => {
  it("expands Envoy's 5xx to every 5xx status, resets and connect failures", () => {
    const set = compile(['5xx']);
    expect(set.statuses.has(500)).toBe(true);
    expect(set.statuses.has(599)).toBe(true);
    expect(set.statuses.has(499)).toBe(false);
    expect(set.statuses.has(600)).toBe(false);
    expect(set.reset).toBe(true);
    expect(set.connectFailure).toBe(true);
    expect(set.timeout).toBe(false);
  });

  it('expands gateway-error to 502, 503, 504 and retriable-4xx to 409', () => {
    expect([...compile(['gateway-error']).statuses].sort()).toEqual([502, 503, 504]);
    expect([...compile(['retriable-4xx']).statuses]).toEqual([409]);
  });

  it('expands 4xx to 400 through 499', () => {
    const set = compile(['4xx']);
    expect(set.statuses.size).toBe(100);
    expect(set.statuses.has(400)).toBe(true);
    expect(set.statuses.has(499)).toBe(true);
    expect(set.reset).toBe(false);
  });

  it('sets each transport flag only for its own name', () => {
    expect(compile(['timeout'])).toMatchObject({ timeout: true, reset: false, connectFailure: false });
    expect(compile(['reset'])).toMatchObject({ timeout: false, reset: true, connectFailure: false });
    expect(compile(['connect-failure'])).toMatchObject({ timeout: false, reset: false, connectFailure: true });
  });

  it('accepts status codes as numbers or three-digit strings', () => {
    expect([...compile([503, '429']).statuses]).toEqual([503, 429]);
    expect(compile([503, '429']).conditions).toEqual([503, 429]);
  });

  it('names the path of an unknown condition, an impossible status and a non-list', () => {
    const issues: ConfigIssue[] = [];
    compileRetryOn(['timeout', 'fivexx', 200, 600, 503.5], 'calls.a.retryOn', issues);
    expect(issues.map((i) => i.path)).toEqual([
      'calls.a.retryOn.1',
      'calls.a.retryOn.2',
      'calls.a.retryOn.3',
      'calls.a.retryOn.4',
    ]);
    expect(issues[0]?.message).toContain('unknown retry condition "fivexx"');
    expect(issues[1]?.message).toContain('400 to 599');
    const more: ConfigIssue[] = [];
    compileRetryOn('5xx', 'retryOn', more);
    expect(more).toEqual([{ path: 'retryOn', message: 'must be a list of retry conditions or status codes' }]);
  });

  it('accepts the boundary statuses 400 and 599', () => {
    expect([...compile([400, 599]).statuses]).toEqual([400, 599]);
  });
});

describe('isIdempotentMethod', () => {
  it.each([
    ['GET', true],
    ['head', true],
    ['OPTIONS', true],
    ['TRACE', true],
    ['PUT', true],
    ['DELETE', true],
    ['POST', false],
    ['PATCH', false],
    ['CONNECT', false],
    ['Delete', true],
    ['trace', true],
    ['post', false],
    ['BREW', false],
    ['', false],
  ])('%s -> %s (RFC 9110 §9.2.2)', (method, expected) => {
    expect(isIdempotentMethod(method)).toBe(expected);
  });

  it('answers for any string as the RFC list read in upper case would, and always returns (property)', () => {
    const listed = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'];
    const name = fc.oneof(
      fc.constantFrom(...listed, 'POST', 'PATCH', 'CONNECT', 'ǅ', 'ß', 'ŉ', 'ﬀ'),
      fc
        .constantFrom(...listed)
        .chain((m) =>
          fc
            .array(fc.boolean(), { minLength: m.length, maxLength: m.length })
            .map((up) => [...m].map((c, i) => (up[i] ? c : c.toLowerCase())).join('')),
        ),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
    );
    fc.assert(
      fc.property(name, (method) => {
        expect(isIdempotentMethod(method)).toBe(listed.includes(method.toUpperCase()));
      }),
      propertyRuns(),
    );
  });
});

describe('classification edges found by mutation testing', () => {
  it('treats 400 as a refusal, not a success', () => {
    expect(classifyOutcome(status(400), seedFix, safe)).toEqual({
      retryable: false,
      reason: 'not-in-retry-on',
      budget: 'none',
    });
  });

  it('keeps reset and connect-failure separate', () => {
    expect(classifyOutcome({ kind: 'reset' }, compile(['connect-failure']), safe).retryable).toBe(false);
    expect(classifyOutcome({ kind: 'reset' }, compile(['reset']), safe).retryable).toBe(true);
    expect(classifyOutcome({ kind: 'connect-failure' }, compile(['reset']), safe).retryable).toBe(false);
    expect(classifyOutcome({ kind: 'connect-failure' }, compile(['connect-failure']), safe).retryable).toBe(true);
  });

  it('lists every known name when a condition is unknown', () => {
    const issues: ConfigIssue[] = [];
    compileRetryOn(['nope'], 'retryOn', issues);
    expect(issues[0]?.message).toBe(
      'unknown retry condition "nope"; expected a status code or one of 5xx, gateway-error, reset, reset-before-request, connect-failure, retriable-4xx, timeout, 4xx',
    );
  });

  it('reads only exactly three digits as a status code string', () => {
    for (const code of ['1503', '5030', '50']) {
      const issues: ConfigIssue[] = [];
      compileRetryOn([code], 'retryOn', issues);
      expect(issues[0]?.message).toContain('unknown retry condition');
    }
  });

  it('returns an empty set for a retryOn that is not a list', () => {
    const set = compileRetryOn('5xx', 'retryOn', []);
    expect(set).toMatchObject({ timeout: false, reset: false, connectFailure: false, conditions: [] });
    expect(set.statuses.size).toBe(0);
  });
});
