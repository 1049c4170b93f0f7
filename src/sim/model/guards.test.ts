// The attempt guards in the simulator, one mechanism per test: each fails when only that mechanism is switched off.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

function run(yaml: string, variant = 'default', seed = 1) {
  return runVariant(parseScenario(yaml, 'test.yaml'), variant, seed);
}

// api -> db; db has `instances` instances of 4 workers x 20 ms (200/s each); 100 users/s. Windows around a fault
// from 5 s to 15 s.
function system(db: string, edge: string, faults: string, instances = 4): string {
  return `
name: guards
duration: 25s
windows: { before: [1s, 5s], during: [5s, 15s], after: [17s, 23s] }
traffic: [{ to: api, rate: 100, patience: 2s }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { instances: ${instances}, workers: 4, serviceTime: 20ms, ${db} }
calls:
  api -> db: { budget: false, deadline: false, ${edge} }
faults:
${faults}`;
}

const ONE_TRY = 'maxAttempts: 1, perTryTimeout: 1s';
const SICK_ZERO = '  - { service: db, instances: [1], at: 5s, for: 10s, errors: { rate: 1, status: 503 } }';

describe('faults on some instances', () => {
  it('hit only the instances they list: one of four failing costs exactly its round-robin share', () => {
    const one = run(system('', ONE_TRY, SICK_ZERO));
    const all = run(system('', ONE_TRY, SICK_ZERO.replace('instances: [1], ', '')));
    expect(one.summary.successRate.during).toBeCloseTo(0.75, 2);
    expect(all.summary.successRate.during).toBe(0);
    const byHost = one.summary.edges['api -> db']?.loadBalancer?.upstreamRqByHost.during ?? [];
    expect(Math.max(...byHost) - Math.min(...byHost)).toBeLessThanOrEqual(1); // round-robin: equal shares
  });

  it('slow one instance only: a latency fault on it leaves the others fast', () => {
    const faults = '  - { service: db, instances: [2], at: 5s, for: 10s, latency: 100ms }';
    const r = run(system('', ONE_TRY, faults));
    // A quarter of the users wait 100 ms more (4 workers x 120 ms still serve its 25/s): the p99 shows it.
    expect(r.summary.p99Ms.during).toBeGreaterThan(120);
    expect(r.summary.p99Ms.before).toBeLessThan(100);
    expect(r.summary.successRate.during).toBe(1);
  });

  it('lower the workers of the instances they list only', () => {
    // 100/s round-robin is 25/s an instance; one worker of 20 ms serves 50/s, so nobody waits long either way.
    const faults = '  - { service: db, instances: [0, 3], at: 5s, for: 10s, workers: 1 }';
    const run1 = runVariant(parseScenario(system('', ONE_TRY, faults), 't'), 'default', 1);
    expect(run1.summary.successRate.during).toBe(1);
    const shed = run1.services[1]?.shed;
    expect(shed?.started).toBeGreaterThan(0);
  });
});

describe('the balancer: a retry avoids the instance that failed', () => {
  // Instance 1 fails every request after 30 ms of work, so other calls' picks move round-robin's cursor meanwhile;
  // p2c: the sick instance has the fewest attempts in flight and wins most draws. Only the avoidance keeps a retry
  // off it (without it about a quarter of the retries, or more under p2c, land on it again).
  const slowSick =
    '  - { service: db, instances: [1], at: 5s, for: 10s, errors: { rate: 1, status: 503, cost: 30ms } }';
  it.each(['round-robin', 'p2c'])('%s: sends the retry of an attempt that failed at the sick one elsewhere', (kind) => {
    const edge = `maxAttempts: 2, perTryTimeout: 1s, retryOn: [503], loadBalancer: ${kind}`;
    const r = run(system('', edge, kind === 'p2c' ? SICK_ZERO : slowSick));
    const lb = r.summary.edges['api -> db']?.loadBalancer;
    expect(r.summary.successRate.during).toBe(1);
    expect(lb?.avoidedPrevious).toBeGreaterThan(200); // ~25 users/s reach the sick one for 10 s
    expect(lb?.avoidedPrevious).toBe(r.summary.edges['api -> db']?.upstreamRqRetry);
  });
});

describe('the circuit breaker (proposal C) between the retry loop and the wire', () => {
  const ALL_FAIL = '  - { service: db, at: 5s, for: 10s, errors: { rate: 1, status: 503 } }';
  const breaker = 'circuitBreaker: { failureThreshold: 5, failureRate: false, breakDuration: 2s }';

  it('opens on consecutive failures and fails fast: the callee gets almost nothing while it is open', () => {
    const on = run(system('', `${ONE_TRY}, ${breaker}`, ALL_FAIL, 1));
    const off = run(system('', ONE_TRY, ALL_FAIL, 1));
    const cb = on.summary.edges['api -> db']?.circuitBreaker;
    expect(cb?.opened).toBeGreaterThanOrEqual(1);
    expect(cb?.rejectedOpen).toBeGreaterThan(800);
    // Open for ~2 s at a time, one probe between breaks: a handful of attempts reach db during 10 s of failure.
    expect(on.summary.amplification.db?.during).toBeLessThan(0.05);
    expect(off.summary.amplification.db?.during).toBeCloseTo(1, 2);
    expect(cb?.openByBin.slice(6, 15).filter((n) => n === 1).length).toBeGreaterThanOrEqual(6);
    expect(cb?.openByBin.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('lets one probe through per break and closes after the failure ends; refused users get 503 at once', () => {
    const r = run(system('', `${ONE_TRY}, ${breaker}`, ALL_FAIL, 1));
    const cb = r.summary.edges['api -> db']?.circuitBreaker;
    // A probe every 2 s of the 10 s: each failed probe re-opens; the first after 15 s closes.
    expect(cb?.probes).toBeGreaterThanOrEqual(4);
    expect(cb?.probes).toBeLessThanOrEqual(6);
    expect(cb?.probeFailures).toBe((cb?.probes ?? 0) - 1);
    expect(cb?.reopened).toBe(cb?.probeFailures);
    expect(cb?.closedAfterProbes).toBe(1);
    expect(r.summary.successRate.after).toBe(1);
    // Fast: a refused user waits no network time at all, so the window's p99 is a few ms, never a timeout.
    expect(r.summary.p99Ms.during).toBeLessThan(25);
  });

  it('admits at most halfOpenMaxProbes while half-open: the others fail fast with half-open-full', () => {
    // A slow failure: db answers after 300 ms, so a probe is out for 300 ms while users keep arriving.
    const slow = '  - { service: db, at: 5s, for: 10s, errors: { rate: 1, status: 503, cost: 300ms } }';
    const r = run(system('', `${ONE_TRY}, ${breaker}`, slow, 1));
    const cb = r.summary.edges['api -> db']?.circuitBreaker;
    expect(cb?.rejectedHalfOpenFull).toBeGreaterThan(50);
    expect(cb?.probes).toBeLessThanOrEqual(6);
  });
});

describe('a refused attempt, as the hop above sees it', () => {
  // api -> mid -> db; mid's breaker on db opens while db fails. mid answers its callers for the refused call.
  const chain = (apiEdge: string) => `
name: refusal
duration: 12s
windows: { during: [4s, 10s] }
traffic: [{ to: api, rate: 50, patience: 2s }]
services:
  api: { calls: [mid] }
  mid: { calls: [db] }
  db: { serviceTime: 5ms }
calls:
  api -> mid: { budget: false, deadline: false, ${apiEdge} }
  mid -> db: { maxAttempts: 1, circuitBreaker: { failureThreshold: 3, failureRate: false, breakDuration: 20s } }
faults:
  - { service: db, at: 2s, for: 8s, errors: { rate: 1, status: 500 } }`;

  it('is answered 503 (a local refusal), so a caller retrying 503 retries it', () => {
    const r = run(chain('maxAttempts: 2, retryOn: [503]'));
    expect(r.summary.edges['mid -> db']?.circuitBreaker?.rejectedOpen).toBeGreaterThan(300);
    // db answers 500, which api does not retry: every retry api makes is of mid's 503 for a refused call.
    expect(r.summary.edges['api -> mid']?.upstreamRqRetry).toBeGreaterThan(300);
  });

  it('is marked relayed (unclaimed), so a caller using error ownership does not retry it', () => {
    const r = run(chain('maxAttempts: 2, retryOn: [503], ownership: true'));
    expect(r.summary.edges['api -> mid']?.upstreamRqRetry).toBe(0);
    expect(r.services[0]?.calls.mid?.stops['unclaimed-error']).toBeGreaterThan(300);
  });
});

describe('limits (Envoy circuit_breakers): overflow fails fast, never queues', () => {
  // db: one instance, 4 workers x 20 ms, slowed to 200 ms from 5 s: 20/s for 100/s offered.
  const SLOW = '  - { service: db, at: 5s, for: 10s, latency: 180ms }';

  it('refuses the attempt over maxRequests at once and counts it as pendingOverflow', () => {
    const on = run(system('', `${ONE_TRY}, limits: { maxRequests: 8 }`, SLOW, 1));
    const off = run(system('', ONE_TRY, SLOW, 1));
    const limits = on.summary.edges['api -> db']?.limits;
    expect(limits?.pendingOverflow).toBeGreaterThan(500);
    expect(limits?.activeOverflow).toBe(limits?.pendingOverflow);
    // No queue behind the limit: at most 8 in flight, so at most 4 wait at db; without it the queue grows.
    expect(on.services[1]?.shed?.peakQueued).toBeLessThanOrEqual(4);
    expect(off.services[1]?.shed?.peakQueued).toBeGreaterThan(100);
    expect(on.summary.p99Ms.during).toBeLessThan(off.summary.p99Ms.during ?? 0);
  });

  it('refuses a retry over maxRetries (upstream_rq_retry_overflow): the call ends on what its attempt said', () => {
    const edge = 'maxAttempts: 3, perTryTimeout: 1s, retryOn: [503], limits: { maxRetries: 0 }';
    const r = run(system('', edge, SICK_ZERO));
    const e = r.summary.edges['api -> db'];
    expect(e?.limits?.retryOverflow).toBeGreaterThan(200);
    expect(e?.upstreamRqRetry).toBe(0);
    expect(r.summary.successRate.during).toBeCloseTo(0.75, 2);
  });
});

describe('outlier detection in front of a single instance', () => {
  const ALL_FAIL = '  - { service: db, at: 5s, for: 10s, errors: { rate: 1, status: 503 } }';
  const od = 'outlierDetection: { consecutive5xx: 5, interval: 1s, baseEjectionTime: 2s, maxEjectionPercent: 100 }';

  it('reports the attempts the instance got: the balancer block counts every attempt sent', () => {
    const r = run(system('', `${ONE_TRY}, ${od}`, ALL_FAIL, 1));
    const edge = r.summary.edges['api -> db'];
    const byHost = edge?.loadBalancer?.upstreamRqByHost;
    expect(edge?.upstreamRqTotal).toBeGreaterThan(2000);
    expect(byHost?.total).toEqual([edge?.upstreamRqTotal]);
    const windows = ['before', 'during', 'after'].map((w) => byHost?.[w]?.[0] ?? 0);
    expect(windows.every((n) => n > 0)).toBe(true);
  });

  it('with panicThreshold 0 ejecting it refuses every attempt (no host left); with the default it panics', () => {
    const strict = run(system('', `${ONE_TRY}, ${od}, loadBalancer: { panicThreshold: 0 }`, ALL_FAIL, 1));
    const lenient = run(system('', `${ONE_TRY}, ${od}`, ALL_FAIL, 1));
    expect(strict.summary.edges['api -> db']?.loadBalancer?.noneHealthy).toBeGreaterThan(100);
    expect(lenient.summary.edges['api -> db']?.loadBalancer?.noneHealthy).toBe(0);
    expect(lenient.summary.edges['api -> db']?.loadBalancer?.healthyPanic).toBeGreaterThan(100);
  });
});
