// Tests for budget.ts: the gRPC A6 token bucket, the Envoy percent budget, NoBudget, validation and the factory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import {
  type BudgetConfig,
  createBudget,
  NoBudget,
  PercentBudget,
  TokenBucket,
  validateBudgetConfig,
} from './budget.js';

function issuesOf(fn: () => unknown): readonly ConfigIssue[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

// grpc/grpc test/core/client_channel/retry_throttle_test.cc, as listed in docs/semantics.md §1: maxTokens 4,
// tokenRatio 1.6, threshold 2. Each step: event, tokens after it, and (after failures) whether a retry may go.
const GRPC_VECTOR =
  'F 3 yes · S 4 · F 3 yes · F 2 no · F 1 no · F 0 no · F 0 no · S 1.6 · S 3.2 · F 2.2 yes · F 1.2 no · S 2.8 · F 1.8 no · S 3.4 · F 2.4 yes'
    .split(' · ')
    .map((step, i) => [i + 1, ...step.split(' ')] as [number, 'F' | 'S', string, 'yes' | 'no' | undefined]);

describe('TokenBucket', () => {
  it.each(GRPC_VECTOR)(
    'matches the gRPC C-core vector at step %d (%s): %s tokens, retry allowed: %s',
    (step, _e, tokens, allowed) => {
      const bucket = new TokenBucket({ maxTokens: 4, tokenRatio: 1.6 });
      for (const [, event] of GRPC_VECTOR.slice(0, step)) {
        if (event === 'F') bucket.onFailure();
        else bucket.onSuccess();
      }
      expect(bucket.tokens).toBe(Number(tokens));
      if (allowed !== undefined) expect(bucket.allowRetry()).toBe(allowed === 'yes');
    },
  );

  it('starts full and reports its limits', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
    expect([bucket.kind, bucket.tokens, bucket.maxTokens, bucket.tokenRatio, bucket.level()]).toEqual([
      'token-bucket',
      10,
      10,
      0.1,
      10,
    ]);
  });

  it('denies a retry when tokens are exactly half of max and allows one a milli-token above', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.001 });
    for (let i = 0; i < 5; i++) bucket.onFailure();
    expect(bucket.tokens).toBe(5);
    expect(bucket.allowRetry()).toBe(false);
    bucket.onSuccess();
    expect(bucket.tokens).toBe(5.001);
    expect(bucket.allowRetry()).toBe(true);
  });

  it('compares against half of an odd milli-token max exactly', () => {
    const bucket = new TokenBucket({ maxTokens: 2.001, tokenRatio: 1 });
    bucket.onFailure(); // 1.001 tokens: 2002 > 2001 milli-tokens
    expect(bucket.allowRetry()).toBe(true);
  });

  it('earns back exactly one token from ten successes of 0.1 (integer milli-tokens, no float drift)', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
    bucket.onFailure();
    for (let i = 0; i < 10; i++) bucket.onSuccess();
    expect(bucket.tokens).toBe(10);
    bucket.onFailure();
    bucket.onFailure();
    for (let i = 0; i < 3; i++) bucket.onSuccess();
    expect(bucket.tokens).toBe(8.3);
  });

  it('never drops below zero, even on a partial token, and recovers from zero by exactly the ratio', () => {
    const bucket = new TokenBucket({ maxTokens: 2.5, tokenRatio: 0.3 });
    for (let i = 0; i < 3; i++) bucket.onFailure();
    expect(bucket.tokens).toBe(0);
    bucket.onSuccess();
    expect(bucket.tokens).toBe(0.3);
  });

  it('never rises above max', () => {
    const bucket = new TokenBucket({ maxTokens: 3, tokenRatio: 0.7 });
    bucket.onSuccess();
    expect(bucket.tokens).toBe(3);
    bucket.onFailure();
    bucket.onSuccess();
    bucket.onSuccess();
    expect(bucket.tokens).toBe(3);
  });

  it('records the failure before testing the threshold, as C-core does', () => {
    const bucket = new TokenBucket({ maxTokens: 4, tokenRatio: 1 });
    bucket.onFailure();
    bucket.recordFailure(); // 2 tokens: the retry after this failure is denied
    expect(bucket.acquireRetry()).toBe(false);
  });

  it('maps the RetryBudget calls onto the bucket and treats call and retry tracking as no-ops', () => {
    const bucket = new TokenBucket({ maxTokens: 4, tokenRatio: 0.5 });
    bucket.recordFailure();
    expect(bucket.level()).toBe(3);
    bucket.recordSuccess();
    expect(bucket.level()).toBe(3.5);
    bucket.callStarted();
    bucket.callEnded();
    bucket.retryEnded();
    expect(bucket.acquireRetry()).toBe(true);
    expect(bucket.tokens).toBe(3.5);
  });

  it('rescales tokens on reconfigure (tokens · newMax / oldMax, rounded down to a milli-token)', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
    for (let i = 0; i < 6; i++) bucket.onFailure();
    bucket.reconfigure({ maxTokens: 20, tokenRatio: 0.5 });
    expect(bucket.tokens).toBe(8);
    expect(bucket.maxTokens).toBe(20);
    expect(bucket.tokenRatio).toBe(0.5);
    bucket.onSuccess();
    expect(bucket.tokens).toBe(8.5);
    const third = new TokenBucket({ maxTokens: 3, tokenRatio: 1 });
    third.onFailure();
    third.onFailure();
    third.reconfigure({ maxTokens: 10, tokenRatio: 1 });
    expect(third.tokens).toBe(3.333);
  });

  it('keeps a throttled client throttled after scaling down', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
    for (let i = 0; i < 6; i++) bucket.onFailure();
    bucket.reconfigure({ maxTokens: 5, tokenRatio: 0.1 });
    expect(bucket.tokens).toBe(2);
    expect(bucket.allowRetry()).toBe(false);
  });

  it('rejects an invalid reconfigure and keeps its state', () => {
    const bucket = new TokenBucket({ maxTokens: 4, tokenRatio: 1 });
    bucket.onFailure();
    expect(() => bucket.reconfigure({ maxTokens: 0, tokenRatio: 1 })).toThrow(ConfigError);
    expect(bucket.tokens).toBe(3);
    expect(bucket.maxTokens).toBe(4);
  });

  it.each([0, -1, 1000.001, Number.NaN, Number.POSITIVE_INFINITY, 0.0004, '10'])(
    'rejects maxTokens %s with an issue at budget.maxTokens',
    (maxTokens) => {
      const issues = issuesOf(() => new TokenBucket({ maxTokens: maxTokens as number, tokenRatio: 1 }));
      expect(issues.map((i) => i.path)).toEqual(['budget.maxTokens']);
    },
  );

  it('reports every problem at once, saying why each value is wrong', () => {
    const messages = (fn: () => unknown) => issuesOf(fn).map((i) => i.message);
    expect(messages(() => new TokenBucket({ maxTokens: 0, tokenRatio: 0.0004 }))).toEqual([
      'must be a number in (0, 1000]',
      'must be at least 0.001 (gRPC keeps 3 decimals)',
    ]);
    expect(messages(() => new TokenBucket({ maxTokens: 0.0004, tokenRatio: 0 }))).toEqual([
      'must be at least 0.001 (gRPC keeps 3 decimals)',
      'must be a finite number > 0',
    ]);
    expect(messages(() => new PercentBudget({ minConcurrency: -1 }))).toEqual(['must be an integer >= 0']);
    expect(issuesOf(() => new TokenBucket(undefined as never))).toHaveLength(2);
    expect(
      issuesOf(() => new TokenBucket({ maxTokens: 1, tokenRatio: 1 }).reconfigure({ maxTokens: 1, tokenRatio: 0 })),
    ).toEqual([{ path: 'budget.tokenRatio', message: 'must be a finite number > 0' }]);
  });

  it.each([1000, 0.001, 0.5])('accepts maxTokens %d', (maxTokens) => {
    expect(new TokenBucket({ maxTokens, tokenRatio: 1 }).maxTokens).toBe(maxTokens);
  });

  it.each([0, -0.1, Number.NaN, Number.POSITIVE_INFINITY, 0.0004, '1'])(
    'rejects tokenRatio %s with an issue at budget.tokenRatio',
    (tokenRatio) => {
      const issues = issuesOf(() => new TokenBucket({ maxTokens: 10, tokenRatio: tokenRatio as number }));
      expect(issues.map((i) => i.path)).toEqual(['budget.tokenRatio']);
    },
  );

  it('keeps tokens within [0, maxTokens] at milli-token precision for any event sequence (property)', () => {
    const event = fc.oneof(
      fc.constant<'S' | 'F'>('S'),
      fc.constant<'S' | 'F'>('F'),
      fc.record({ maxTokens: fc.integer({ min: 1, max: 1_000_000 }), tokenRatio: fc.integer({ min: 1, max: 5000 }) }),
    );
    let throttledRuns = 0;
    fc.assert(
      fc.property(
        // Mostly buckets small enough for 200 events to drain below half (a 1,000-token one never gets there).
        fc.oneof(fc.integer({ min: 1, max: 40_000 }), fc.integer({ min: 1, max: 1_000_000 })),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(event, { maxLength: 200, size: 'max' }),
        (maxMilli, ratioMilli, events) => {
          const bucket = new TokenBucket({ maxTokens: maxMilli / 1000, tokenRatio: ratioMilli / 1000 });
          let throttled = false;
          for (const e of events) {
            if (e === 'S') bucket.onSuccess();
            else if (e === 'F') bucket.onFailure();
            else bucket.reconfigure({ maxTokens: e.maxTokens / 1000, tokenRatio: e.tokenRatio / 1000 });
            expect(bucket.tokens).toBeGreaterThanOrEqual(0);
            expect(bucket.tokens).toBeLessThanOrEqual(bucket.maxTokens);
            expect(Math.abs(bucket.tokens * 1000 - Math.round(bucket.tokens * 1000))).toBeLessThan(1e-6);
            expect(bucket.allowRetry()).toBe(bucket.tokens > bucket.maxTokens / 2);
            if (!bucket.allowRetry()) throttled = true;
          }
          if (throttled) throttledRuns++;
        },
      ),
      { numRuns: 500 },
    );
    // The threshold is exercised on both sides, not only on a bucket that never drains.
    expect(throttledRuns).toBeGreaterThan(50); // 128-143 of 500 measured
  });
});

// Envoy retry budget, envoyproxy/envoy source/common/upstream/resource_manager_impl.h (RetryBudget), vectors as
// listed in docs/semantics.md §3: allowed = max(trunc(percent/100 · active), minConcurrency), in doubles as Envoy computes it.
describe('PercentBudget', () => {
  it.each([
    [20, 3, 16, 3],
    [20, 3, 20, 4],
    [20, 3, 100, 20],
    [20, 5, 20, 5],
    [20, 3, 0, 3],
    // Envoy's double arithmetic: 29 / 100.0 · 100 is 28.999…, truncated to 28 (one slot below the exact share).
    [29, 0, 100, 28],
    [20, 0, 24, 4],
    [12.5, 0, 8, 1],
  ])('allows %d %% with minimum %d and %d active requests: %d concurrent retries', (percent, min, active, allowed) => {
    expect(new PercentBudget({ percent, minConcurrency: min }).allowedRetries(active)).toBe(allowed);
  });

  it('defaults to 20 % with a minimum of 3 and counts active requests from callStarted/callEnded', () => {
    const budget = new PercentBudget();
    expect(budget.kind).toBe('percent');
    expect(budget.allowedRetries()).toBe(3);
    for (let i = 0; i < 25; i++) budget.callStarted();
    expect(budget.activeRequests).toBe(25);
    expect(budget.allowedRetries()).toBe(5);
    for (let i = 0; i < 5; i++) budget.callEnded();
    expect(budget.activeRequests).toBe(20);
    expect(budget.allowedRetries()).toBe(4);
  });

  it('falls back to the minimum for a NaN or negative active count', () => {
    const budget = new PercentBudget({ percent: 50, minConcurrency: 2 });
    expect(budget.allowedRetries(Number.NaN)).toBe(2);
    expect(budget.allowedRetries(-10)).toBe(2);
  });

  it('hands out retry slots up to the limit and takes one back per release', () => {
    const budget = new PercentBudget({ percent: 20, minConcurrency: 3 });
    expect([budget.acquire(), budget.acquire(), budget.acquire()]).toEqual([true, true, true]);
    expect(budget.activeRetries).toBe(3);
    expect(budget.acquire()).toBe(false);
    expect(budget.activeRetries).toBe(3);
    budget.release();
    expect(budget.activeRetries).toBe(2);
    expect(budget.acquire()).toBe(true);
  });

  it('never lets releases push the retry count below zero', () => {
    const budget = new PercentBudget({ minConcurrency: 1 });
    budget.release();
    budget.retryEnded();
    expect(budget.activeRetries).toBe(0);
    expect(budget.acquire()).toBe(true);
    expect(budget.acquire()).toBe(false);
  });

  it('never lets callEnded push the active count below zero', () => {
    const budget = new PercentBudget({ percent: 100, minConcurrency: 0 });
    budget.callEnded();
    expect(budget.activeRequests).toBe(0);
    budget.callStarted();
    expect(budget.acquireRetry()).toBe(true);
    expect(budget.acquireRetry()).toBe(false);
  });

  it('reports free slots as its level, never below zero when the load drops under held retries', () => {
    const budget = new PercentBudget({ percent: 20, minConcurrency: 3 });
    for (let i = 0; i < 100; i++) budget.callStarted();
    expect(budget.level()).toBe(20);
    for (let i = 0; i < 12; i++) budget.acquireRetry();
    expect(budget.level()).toBe(8);
    for (let i = 0; i < 100; i++) budget.callEnded();
    expect(budget.level()).toBe(0);
    budget.retryEnded();
    expect(budget.activeRetries).toBe(11);
  });

  it('ignores successes and failures', () => {
    const budget = new PercentBudget();
    budget.recordFailure();
    budget.recordSuccess();
    expect(budget.level()).toBe(3);
  });

  it.each([
    [{ percent: -1 }, 'budget.percent'],
    [{ percent: 100.5 }, 'budget.percent'],
    [{ percent: Number.NaN }, 'budget.percent'],
    [{ percent: '20' }, 'budget.percent'],
    [{ minConcurrency: -1 }, 'budget.minConcurrency'],
    [{ minConcurrency: 1.5 }, 'budget.minConcurrency'],
    [{ minConcurrency: '3' }, 'budget.minConcurrency'],
  ])('rejects %j with an issue at %s', (opts, path) => {
    expect(issuesOf(() => new PercentBudget(opts as object)).map((i) => i.path)).toEqual([path]);
  });

  it('accepts the edges 0 % and 100 % and a zero minimum', () => {
    expect(new PercentBudget({ percent: 0, minConcurrency: 0 }).allowedRetries(50)).toBe(0);
    expect(new PercentBudget({ percent: 100, minConcurrency: 0 }).allowedRetries(50)).toBe(50);
  });
});

describe('NoBudget', () => {
  it('always allows a retry and reports an unlimited level', () => {
    const budget = new NoBudget();
    for (let i = 0; i < 100; i++) budget.recordFailure();
    expect(budget.kind).toBe('none');
    expect(budget.acquireRetry()).toBe(true);
    expect(budget.level()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('validateBudgetConfig', () => {
  it.each([false, null, undefined])('reads %s as no budget', (input) => {
    const issues: ConfigIssue[] = [];
    expect(validateBudgetConfig(input, 'budget', issues)).toEqual({ kind: 'none' });
    expect(issues).toEqual([]);
  });

  const bucketConfig = { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 } as const;
  const percentConfig = { kind: 'percent', percent: 10, minConcurrency: 0 } as const;
  it.each<[unknown, BudgetConfig]>([
    [bucketConfig, bucketConfig],
    [{ kind: 'percent' }, { kind: 'percent', percent: 20, minConcurrency: 3 }],
    [percentConfig, percentConfig],
    [{ kind: 'none' }, { kind: 'none' }],
  ])('accepts %j', (input, expected) => {
    const issues: ConfigIssue[] = [];
    expect(validateBudgetConfig(input, 'p.budget', issues)).toEqual(expected);
    expect(issues).toEqual([]);
  });

  it.each<[unknown, string[]]>([
    ['token-bucket', ['p.budget']],
    [true, ['p.budget']],
    [[], ['p.budget']],
    [{}, ['p.budget.kind']],
    [{ kind: 'toString' }, ['p.budget.kind']],
    [{ kind: ['none'] }, ['p.budget.kind']],
    [{ kind: 'percent', percent: 101 }, ['p.budget.percent']],
    [{ kind: 'token-bucket', maxTokens: 0, tokenRatio: -1 }, ['p.budget.maxTokens', 'p.budget.tokenRatio']],
    [{ kind: 'token-bucket', maxToken: 10, tokenRatio: 1 }, ['p.budget.maxToken', 'p.budget.maxTokens']],
    [{ kind: 'none', percent: 500 }, ['p.budget.percent']],
    [{ kind: 'percent', tokenRatio: 1 }, ['p.budget.tokenRatio']],
  ])('rejects %j with issues at %j', (input, paths) => {
    const issues: ConfigIssue[] = [];
    expect(validateBudgetConfig(input, 'p.budget', issues)).toBeUndefined();
    expect(issues.map((i) => i.path)).toEqual(paths);
    expect(issues.every((i) => i.message.length > 0)).toBe(true);
  });

  it('judges only its own issues, not ones already collected by the caller', () => {
    const issues: ConfigIssue[] = [{ path: 'other', message: 'bad' }];
    expect(validateBudgetConfig({ kind: 'percent' }, 'budget', issues)).toMatchObject({ kind: 'percent' });
    expect(issues).toHaveLength(1);
  });
});

describe('createBudget', () => {
  it.each([false, null, undefined] as const)('gives %s no budget', (config) => {
    expect(createBudget(config)).toBeInstanceOf(NoBudget);
  });

  it('builds a fresh budget of each kind with its options', () => {
    const bucket = createBudget({ kind: 'token-bucket', maxTokens: 6, tokenRatio: 0.2 });
    expect(bucket).toBeInstanceOf(TokenBucket);
    expect((bucket as TokenBucket).maxTokens).toBe(6);
    const percent = createBudget({ kind: 'percent', percent: 50, minConcurrency: 1 });
    expect(percent).toBeInstanceOf(PercentBudget);
    expect((percent as PercentBudget).allowedRetries(10)).toBe(5);
    expect(createBudget({ kind: 'none' })).toBeInstanceOf(NoBudget);
    bucket.recordFailure(); // every call gets its own state
    expect(createBudget({ kind: 'token-bucket', maxTokens: 6, tokenRatio: 0.2 }).level()).toBe(6);
  });

  it('throws a ConfigError for an unknown kind or invalid options', () => {
    expect(issuesOf(() => createBudget({ kind: 'leaky' } as unknown as BudgetConfig))).toEqual([
      { path: 'budget.kind', message: 'must be one of token-bucket, percent, ratio, rate, deposit-bucket, none' },
    ]);
    expect(() => createBudget({ kind: 'token-bucket', maxTokens: 0, tokenRatio: 1 })).toThrow(ConfigError);
  });
});
