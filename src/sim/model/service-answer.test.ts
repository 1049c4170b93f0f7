// A service's answer after its calls (service-answer.ts): the rule itself, and the simulator applying it.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';
import { answerAfterCall, CALLS_NEXT, CALLS_WAIT, requiredFailure } from './service-answer.js';

describe('requiredFailure', () => {
  it.each([
    [true, false, 200, 0],
    [false, true, 503, 0],
    [false, false, 503, 503],
    [false, false, 0, 504], // a call that got no answer relays a 504 (hop.ts relayedStatus)
  ])('succeeded %s, optional %s, last status %s: %s', (succeeded, optional, last, status) => {
    expect(requiredFailure(succeeded, optional, last)).toBe(status);
  });
});

describe('answerAfterCall', () => {
  it.each([
    ['sequential, a middle call succeeded', false, 0, 0, 3, false, CALLS_NEXT],
    ['sequential, the last call succeeded', false, 0, 2, 3, false, 200],
    ['sequential, a required call failed', false, 503, 0, 3, false, 503],
    ['parallel, a call succeeded, siblings out', true, 0, 0, 3, true, CALLS_WAIT],
    ['parallel, the last call succeeded', true, 0, 1, 3, false, 200],
    ['parallel, the first required failure, siblings still out', true, 502, 2, 3, true, 502],
  ])('%s', (_, parallel, failure, index, count, othersOut, answer) => {
    expect(answerAfterCall(parallel, failure, index, count, othersOut)).toBe(answer);
  });
});

describe('the simulator answers at the first required failure of parallel calls', () => {
  it('answers when the fast call fails, not when the slow sibling ends, and counts the sibling wasted', () => {
    const result = runVariant(
      parseScenario(
        `
name: fail-fast
duration: 10s
traffic: [{ to: a, rate: 5 }]
network: { latency: 1ms }
services:
  a: { calls: [c, b], parallel: true }
  b: { errors: { rate: 1, status: 503 } }
  c: { serviceTime: 200ms }
calls: { a -> b: { maxAttempts: 1, budget: false }, a -> c: { maxAttempts: 1, budget: false } }`,
        'test.yaml',
      ),
      'default',
      1,
    );
    expect(result.summary.successRate.all).toBe(0);
    expect(result.summary.p99Ms.all).toBeCloseTo(2, 6); // b's 503 after 1 + 1 ms, c's 200 ms not waited for
    // c's work finishes after a answered: nobody waits for it any more (wasted.ts), every execution of it wasted.
    const c = result.timeseries.filter((row) => row.service === 'c');
    const sum = (pick: (row: (typeof c)[number]) => number) => c.reduce((total, row) => total + pick(row), 0);
    expect(sum((row) => row.arrivals)).toBeGreaterThan(20);
    // every execution that finished in the run (the last arrival's may not have) was wasted
    expect(sum((row) => row.wasted)).toBeGreaterThanOrEqual(sum((row) => row.arrivals) - 1);
  });
});
