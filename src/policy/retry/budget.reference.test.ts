// The budgets' arithmetic is their reference's: gRPC's 3-decimal truncation and OK-only credit, Envoy's doubles, Finagle's units.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import { PercentBudget, RatioBudget, TokenBucket } from './budget.js';
import { RetryPolicy } from './retry.js';

describe('gRPC A6 token bucket: 3 decimals, the rest dropped', () => {
  // A6 (grpc/proposal A6-client-retries.md): "Up to 3 decimal places are supported." C-core keeps the first three
  // digits after the point and drops the rest (src/core/client_channel/retry_service_config.cc, tokenRatio parser);
  // grpc-java casts tokenRatio · 1000 to int (RetriableStream.Throttle). grpc/grpc
  // test/core/client_channel/retry_service_config_test.cc, RetryParserTest.ValidRetryThrottling: maxTokens 2 and
  // tokenRatio 1.0 are 2000 and 1000 milli-tokens.
  it.each([
    [2, 1.0, 2, 1],
    [10, 0.5466, 10, 0.546],
    [10, 0.1999, 10, 0.199],
    [10, 1.005, 10, 1.005], // the decimal written, not its double (1004.999… · 1000)
    [2.0019, 0.0019, 2.001, 0.001],
  ])('maxTokens %d and tokenRatio %d keep %d and %d', (maxTokens, tokenRatio, max, ratio) => {
    const bucket = new TokenBucket({ maxTokens, tokenRatio });
    expect([bucket.maxTokens, bucket.tokenRatio]).toEqual([max, ratio]);
  });

  it('earns 0.546 per success for tokenRatio 0.5466, not 0.547 (5 failures, then 3 successes: 16.638 of 20)', () => {
    const bucket = new TokenBucket({ maxTokens: 20, tokenRatio: 0.5466 });
    for (let i = 0; i < 5; i++) bucket.onFailure();
    for (let i = 0; i < 3; i++) bucket.onSuccess();
    expect(bucket.tokens).toBe(16.638);
  });

  it('refuses a ratio whose first 3 decimals are 0 (0.0009), as C-core refuses a ratio of 0', () => {
    expect(() => new TokenBucket({ maxTokens: 10, tokenRatio: 0.0009 })).toThrow(/at least 0.001/);
  });
});

describe('gRPC A6 token bucket: only OK earns tokens', () => {
  // A6: "Every successful RPC will increment the token_count by tokenRatio", and only retryable failures (or a
  // "do not retry" pushback) count as failures. C-core's retry filter calls RecordSuccess for an OK status only.
  const policy = () =>
    new RetryPolicy(
      { maxAttempts: 2, backoff: 'none', budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.5 } },
      { random: createRandom(1) },
    );
  const once = (p: RetryPolicy, status: number): void => {
    const call = p.start(0, {});
    call.beginAttempt(0);
    call.onOutcome({ kind: 'response', status }, 0);
    call.abort(0);
  };

  it.each([400, 404, 409, 499])('a %d the policy does not retry neither earns nor costs a token', (status) => {
    const p = policy();
    for (let i = 0; i < 4; i++) once(p, 503); // 10 − 4 = 6 (the retries' own 503s are not sent: aborted)
    const before = p.budgetFor('').level();
    for (let i = 0; i < 10; i++) once(p, status);
    expect(p.budgetFor('').level()).toBe(before);
  });

  it('an OK earns tokenRatio', () => {
    const p = policy();
    once(p, 503);
    once(p, 200);
    expect(p.budgetFor('').level()).toBe(9.5);
  });
});

describe("Envoy's percent budget: its doubles", () => {
  // envoyproxy/envoy source/common/upstream/resource_manager_impl.h, RetryBudgetImpl::max():
  // std::max<uint64_t>(budget_percent / 100.0 * current_active, min_retry_concurrency), the double truncated.
  // test/common/upstream/resource_manager_impl_test.cc, ResourceManagerImplTest.RetryBudgetOverrideGauge: 20 % with
  // min_retry_concurrency 5 and nothing active allows 5. The others (docs/semantics.md §3, and the formula's doubles):
  // 20 % of 16 is 3 (the minimum), of 20 is 4, of 100 is 20.
  it('allows the minimum with nothing active (RetryBudgetOverrideGauge: 20 %, minimum 5 -> 5)', () => {
    expect(new PercentBudget({ percent: 20, minConcurrency: 5 }).allowedRetries(0)).toBe(5);
  });

  it.each([
    [20, 16, 3],
    [20, 20, 4],
    [20, 100, 20],
    [29, 100, 28], // 0.29 · 100 = 28.999999999999996: Envoy allows 28, one below the exact share
    [57, 100, 56],
    [10, 75, 7],
  ])('%d %% of %d active allows %d concurrent retries (minimum 3)', (percent, active, allowed) => {
    expect(new PercentBudget({ percent, minConcurrency: 3 }).allowedRetries(active)).toBe(allowed);
  });
});

describe("Finagle's ratio budget: a deposit of 1000, a withdrawal of trunc(1000 / ratio)", () => {
  // twitter/finagle finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala (TokenRetryBudget;
  // ScaleFactor 1000). RetryBudgetTest's rule, docs/semantics.md §4: 10,000 deposit-then-withdraw rounds allow
  // int(10000 · percent) + minRetries retries (± 1).
  const rounds = (ratio: number): number => {
    const budget = new RatioBudget({ ratio, minRetriesPerSec: 0, ttl: '60s' });
    let allowed = 0;
    for (let i = 0; i < 10_000; i++) {
      budget.callStarted(0);
      if (budget.acquireRetry(0)) allowed++;
    }
    return allowed;
  };

  it.each([
    [0.0004, 4], // quantised to 0.001, it would be 0: no retry at all
    [0.0015, 15],
    [0.2, 2000],
    [0.3, 3000], // 1000 / 0.3 costs 3333: 3,000.3 retries' worth, as in Finagle
    [0.7, 7002], // 1428 per retry: Finagle's rounding gives a little more than the share
    [0, 0],
  ])('ratio %d allows %d retries over 10,000 calls', (ratio, allowed) => {
    expect(rounds(ratio)).toBe(allowed);
  });

  it('refuses a ratio between 0 and 0.000001, where a retry would cost more than 10^9 units', () => {
    expect(() => new RatioBudget({ ratio: 1e-7 })).toThrow(/0 or at least 0.000001/);
    expect(new RatioBudget({ ratio: 1e-6 }).level()).toBe(100); // the reserve, 10/s · 10 s
  });
});
