// The upstream guards are what their names say: Envoy's LEAST_REQUEST draws and whole-percent panic, a reachable minimumCalls.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { Balancer, type EjectionSource, panicPercent } from './balancer.js';
import { CircuitBreaker, validateCircuitBreakerConfig } from './breaker.js';
import { ConcurrencyBreaker } from './concurrency.js';

function ejected(...hosts: string[]): EjectionSource {
  return { isEjected: (host) => hosts.includes(host) };
}

describe('a count window smaller than minimumCalls is refused', () => {
  // cockatiel src/breaker/CountBreaker.test.ts, "rejects if minimumNumberOfCalls is invalid": size 100 with
  // minimumNumberOfCalls 101 throws. resilience4j CircuitBreakerConfigTest.shouldReduceMinimumNumberOfCallsToSlidingWindowSize
  // lowers 6 to the size 5 instead, and shouldAllowHighMinimumNumberOfCallsWhenSlidingWindowIsTimeBased keeps 100 over
  // a 10 s time window: only a count window bounds the calls it holds.
  const issuesOf = (failureRate: unknown): ConfigIssue[] => {
    const issues: ConfigIssue[] = [];
    validateCircuitBreakerConfig({ failureRate }, 'breaker', issues);
    return issues;
  };

  it.each([
    [{ minimumCalls: 101, window: { kind: 'count', size: 100 } }, 'with 101 the failure rate'],
    [{ minimumCalls: 6, window: { kind: 'count', size: 5 } }, 'with 6 the failure rate'],
    [{ window: { kind: 'count', size: 10 } }, 'with 20 (the default 20) the failure rate'],
  ])('refuses %j, naming minimumCalls', (failureRate, said) => {
    expect(issuesOf(failureRate)).toEqual([
      {
        path: 'breaker.failureRate.minimumCalls',
        message: `must be at most window.size (${failureRate.window.size}): ${said} could never open the breaker`,
      },
    ]);
  });

  it.each([
    { minimumCalls: 5, window: { kind: 'count', size: 5 } },
    { minimumCalls: 100, window: { kind: 'time', duration: '10s', buckets: 10 } },
    { window: { kind: 'count', size: 20 } },
  ])('accepts %j', (failureRate) => {
    expect(issuesOf(failureRate)).toEqual([]);
  });

  it('throws from the constructor too', () => {
    expect(
      () => new CircuitBreaker({ failureRate: { minimumCalls: 11, window: { kind: 'count', size: 10 } } }),
    ).toThrow(ConfigError);
  });
});

describe("p2c draws as Envoy's LEAST_REQUEST: with replacement", () => {
  // envoyproxy/envoy LeastRequestLoadBalancer::unweightedHostPick (choice_count 2): each choice is random() % hosts,
  // so both may name one host; a later choice replaces the candidate only with strictly fewer active requests.
  // test/extensions/load_balancing_policies/least_request/least_request_lb_test.cc, LeastRequestLoadBalancerTest.Normal:
  // two hosts with 1 and 2 active, draws 2 and 3 (hosts 0 and 1) pick host 0; with 2 and 1 active, host 1.
  it('reproduces LeastRequestLoadBalancerTest.Normal', () => {
    const b = new Balancer(['h80', 'h81'], { kind: 'p2c' });
    b.started(0);
    b.started(1);
    b.started(1);
    expect(b.pick(0, -1, 0.25, 0.75)).toBe(0);
    b.ended(1);
    b.started(0);
    expect(b.pick(0, -1, 0.25, 0.75)).toBe(1);
  });

  it('sends to the busier endpoint when both draws name it', () => {
    const b = new Balancer(['idle', 'busy'], { kind: 'p2c' });
    for (let i = 0; i < 5; i++) b.started(1);
    expect(b.pick(0, -1, 0.9, 0.9)).toBe(1);
    expect(b.pick(0, -1, 0.9, 0.1)).toBe(0);
  });

  it('gives the busiest of 4 endpoints 1 pick in 16 over an even grid of draws, as Envoy', () => {
    const b = new Balancer(['a', 'b', 'c', 'd'], { kind: 'p2c' });
    for (let i = 0; i < 3; i++) b.started(1);
    let busiest = 0;
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) if (b.pick(0, -1, (i + 0.5) / 4, (j + 0.5) / 4) === 1) busiest++;
    expect(busiest).toBe(1);
  });
});

describe('the panic threshold as Envoy reads it: a whole percent', () => {
  // envoyproxy/envoy source/common/protobuf/utility.cc, ProtobufPercentHelper::convertPercent:
  // uint64(max_value · (percent / 100.0)), reached through PROTOBUF_PERCENT_TO_ROUNDED_INTEGER_OR_DEFAULT
  // (healthy_panic_threshold, 100, 50) in LoadBalancerBase; isHostSetInPanic then compares 100 · healthy / hosts < it.
  it.each([
    [50, 50],
    [50.9, 50],
    [0.5, 0],
    [29, 28],
    [100, 100],
  ])('%d %% is %d', (threshold, whole) => {
    expect(panicPercent(threshold)).toBe(whole);
  });

  it('does not panic with 5 of 10 endpoints left at 50.9 % (Envoy reads 50, and 50 is not below 50)', () => {
    const hosts = Array.from({ length: 10 }, (_, i) => `h${i}`);
    const b = new Balancer(hosts, { panicThreshold: 50.9 }, ejected('h0', 'h1', 'h2', 'h3', 'h4'));
    for (let i = 0; i < 10; i++) expect(b.pick(0, -1, 0, 0)).toBeGreaterThanOrEqual(5);
    expect(b.stats().panics).toBe(0);
    const below = new Balancer(hosts, { panicThreshold: 51 }, ejected('h0', 'h1', 'h2', 'h3', 'h4'));
    below.pick(0, -1, 0, 0);
    expect(below.stats().panics).toBe(1);
  });
});

describe('remainingRetries with a retry budget (deliberately not Envoy’s 0)', () => {
  // envoyproxy/envoy ResourceManagerImplTest.RetryBudgetOverrideGauge: with a budget, remaining_retries is always 0.
  // Seawall reports the free slots instead (concurrency.ts): what tryAcquire('retry') would still grant.
  it('reports the budget’s free slots', () => {
    const b = new ConcurrencyBreaker({ retryBudget: { percent: 20, minConcurrency: 5 } });
    expect(b.stats().remainingRetries).toBe(5);
    b.tryAcquire('retry');
    expect(b.stats().remainingRetries).toBe(4);
  });
});
