// Model semantics: hops and service time add up, sequential vs parallel calls, optional calls, errors and faults.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

function run(yaml: string, variant = 'default') {
  return runVariant(parseScenario(yaml, 'test.yaml'), variant, 1);
}

const NO_RETRY = '{ maxAttempts: 1, budget: false }';

describe('service model', () => {
  it('adds network latency each way per hop and service time, sequential calls one after another', () => {
    const result = run(`
name: chain
duration: 10s
windows: { all: [0s, 9s] }
traffic: [{ to: a, rate: 5 }]
network: { latency: 1ms }
services:
  a: { calls: [b, c] }
  b: { serviceTime: 10ms }
  c: { serviceTime: 20ms }
calls: { a -> b: ${NO_RETRY}, a -> c: ${NO_RETRY} }`);
    // (1 + 10 + 1) + (1 + 20 + 1) ms; users reach the entry service without a network hop.
    expect(result.summary.p99Ms.all).toBeCloseTo(34, 6);
    expect(result.summary.successRate.all).toBe(1);
  });

  it('runs parallel calls together: the slowest decides', () => {
    const result = run(`
name: fanout
duration: 10s
traffic: [{ to: a, rate: 5 }]
network: { latency: 1ms }
services:
  a: { calls: [b, c], parallel: true }
  b: { serviceTime: 10ms }
  c: { serviceTime: 20ms }
calls: { a -> b: ${NO_RETRY}, a -> c: ${NO_RETRY} }`);
    expect(result.summary.p99Ms.all).toBeCloseTo(22, 6);
  });

  it('fails the request on a failed call unless the call is optional, and answers with that status', () => {
    const yaml = (optional: boolean) => `
name: optional
duration: 10s
traffic: [{ to: a, rate: 20 }]
services:
  a: { calls: [b, { to: c, optional: ${optional} }] }
  b: {}
  c: { errors: { rate: 1, status: 500 } }
calls: { a -> b: ${NO_RETRY}, a -> c: ${NO_RETRY} }`;
    expect(run(yaml(true)).summary.successRate.all).toBe(1);
    expect(run(yaml(false)).summary.successRate.all).toBe(0);
  });

  it('draws transient errors at the configured rate and lets them cost worker time', () => {
    const result = run(`
name: errors
duration: 100s
traffic: [{ to: a, rate: 100 }]
services:
  a: { workers: 1000, errors: { rate: 0.1, status: 503, cost: 5ms } }`);
    expect(result.summary.successRate.all).toBeGreaterThan(0.895);
    expect(result.summary.successRate.all).toBeLessThan(0.905);
    expect(result.summary.p99Ms.all).toBe(5);
  });

  it('applies faults over their interval: workers, latency, errors and surges', () => {
    const result = run(`
name: faults
duration: 40s
windows: { before: [0s, 10s], workers: [10s, 20s], slow: [20s, 25s], errors: [25s, 30s], surge: [30s, 35s], after: [35s, 39s] }
traffic: [{ to: a, rate: 50 }]
services:
  a: { workers: 10, serviceTime: 10ms, dropExpired: false }
faults:
  - { service: a, at: 10s, for: 10s, workers: 1 }
  - { service: a, at: 20s, for: 5s, latency: 100ms }
  - { service: a, at: 25s, for: 5s, errors: { rate: 1, status: 500 } }
  - { service: a, at: 30s, for: 5s, surge: 3 }`);
    const { successRate, p99Ms, amplification } = result.summary;
    expect(successRate.before).toBe(1);
    expect(p99Ms.before).toBe(10);
    expect(p99Ms.workers).toBeGreaterThan(20); // one worker at 50 % utilisation: some requests wait
    expect(p99Ms.slow).toBeGreaterThanOrEqual(110);
    expect(p99Ms.slow).toBeLessThan(150);
    expect(successRate.errors).toBe(0);
    expect(successRate.after).toBe(1);
    const users = (window: string) => (result.summary.goodputPerS[window] ?? 0) / 50;
    expect(users('surge')).toBeGreaterThan(2.7);
    expect(users('after')).toBeGreaterThan(0.9);
    expect(users('after')).toBeLessThan(1.1);
    expect(amplification.a?.total).toBe(1);
  });

  it('reports the contract shape: windows in order, amplification per service plus total', () => {
    const result = run(`
name: shape
duration: 10s
windows: { w1: [1s, 5s], w2: [5s, 9s] }
traffic: [{ to: a, rate: 20 }]
services:
  a: { calls: [b] }
  b: {}
calls: { a -> b: ${NO_RETRY} }`);
    expect(Object.keys(result.summary)).toEqual([
      'variant',
      'seed',
      'userRequests',
      'successRate',
      'p99Ms',
      'goodputPerS',
      'amplification',
      'deepestService',
      'trigger',
      'recoverySeconds',
      'wastedWorkFraction',
      'retryRadius',
      'edges',
    ]);
    expect(Object.keys(result.summary.successRate)).toEqual(['w1', 'w2']);
    expect(Object.keys(result.summary.amplification.b ?? {})).toEqual(['w1', 'w2', 'total']);
    // No faults: nothing to recover from, which the summary tells apart from never recovering.
    expect(result.summary.trigger).toBeNull();
    expect(result.summary.recoverySeconds).toBeNull();
    expect(result.summary.deepestService).toBe('b');
    expect(result.timeseries).toHaveLength(10 * 2);
    expect(result.timeseries[0]).toMatchObject({ t: 0, service: 'a', successRate: 1 });
    expect(result.timeseries[1]).toMatchObject({ t: 0, service: 'b', successRate: null, goodput: null });
  });

  it('reports the trigger as the span of the faults, so a run with faults that never recovers reads as never', () => {
    const result = run(`
name: trigger
duration: 20s
windows: { before: [1s, 4s], after: [12s, 18s] }
traffic: [{ to: a, rate: 20 }]
services:
  a: { calls: [b] }
  b: { workers: 2 }
calls: { a -> b: ${NO_RETRY} }
faults:
  - { at: 5s, for: 2s, service: b, errors: { rate: 1 } }
  - { at: 6s, for: 3500ms, service: b, latency: 10ms }`);
    expect(result.summary.trigger).toEqual({ startS: 5, endS: 9.5 });
    expect(result.summary.recoverySeconds).not.toBeNull();
  });

  it('has no trigger when the only fault starts after the run has ended (it never happens)', () => {
    const result = run(`
name: late
duration: 10s
traffic: [{ to: a, rate: 20 }]
services:
  a: { workers: 2 }
faults: [{ at: 12s, for: 1s, service: a, workers: 1 }]`);
    expect(result.summary.trigger).toBeNull();
  });
});
