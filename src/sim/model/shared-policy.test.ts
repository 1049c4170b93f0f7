// The simulator runs the production policy, so what the policy promises must hold in simulated runs: each test here
// switches one promise off (the mirror run) and shows the figure it moves.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

function run(yaml: string) {
  return runVariant(parseScenario(yaml, 'test.yaml'), 'default', 1);
}

// A callee with one worker and no queue sheds ~44 % of arrivals at 80 % load (Erlang B, one server), each with a
// 503 and the callee's Retry-After. The caller retries once, after a 10-20 ms backoff unless the hint says more.
function sheddingCallee(retryAfter: string, honorRetryAfter: boolean): string {
  return `
name: floor
duration: 40s
windows: { all: [2s, 38s] }
traffic: [{ to: api, rate: 4 }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { workers: 1, serviceTime: 200ms, queueLimit: 0, retryAfter: ${retryAfter} }
calls:
  api -> db: { maxAttempts: 2, backoff: { kind: full-jitter, base: 10ms, cap: 20ms }, budget: false, deadline: false, honorRetryAfter: ${honorRetryAfter} }
`;
}

describe('the simulated caller obeys the callee as production does', () => {
  it("Retry-After is a floor on the wait: a shed request's retry waits the callee's 3 s, not the 20 ms backoff", () => {
    const floor = run(sheddingCallee('3s', true));
    const ignored = run(sheddingCallee('3s', false));
    const shed = floor.services[1]?.shed?.shed ?? 0;
    expect(shed).toBeGreaterThan(30);
    // About a third of the users were shed once and retried: their answer comes after the 3 s wait.
    expect(floor.summary.p99Ms.all).toBeGreaterThanOrEqual(3000);
    expect(ignored.summary.p99Ms.all).toBeLessThan(1500);
  });

  it('a fractional hint is read from retry-after-ms (1.5 s), not from the integer Retry-After sent beside it (2 s)', () => {
    const result = run(sheddingCallee('1500ms', true));
    expect(result.summary.p99Ms.all).toBeGreaterThanOrEqual(1500);
    expect(result.summary.p99Ms.all).toBeLessThan(1950);
  });
});

describe('the simulated per-try timeout', () => {
  // A slow callee (3 s) behind a 10 s per-try timeout inside a 1 s deadline: the deadline must cut the attempt.
  const slow = `
name: cap
duration: 20s
windows: { all: [2s, 18s] }
traffic: [{ to: api, rate: 5 }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { workers: 100, serviceTime: 3s }
calls:
  api -> db: { maxAttempts: 3, perTryTimeout: 10s, budget: false, deadline: { patience: 1s } }
`;

  it('is capped at the time left before the deadline: the caller answers at 1 s, not when the callee does', () => {
    const result = run(slow);
    const api = result.services[0];
    expect(result.summary.p99Ms.all).toBeLessThanOrEqual(1010);
    // Every attempt ends by its timer (those still running when the run ends aside).
    expect(api?.calls.db?.perTryTimeouts).toBeGreaterThan(0.9 * (api?.calls.db?.attempts ?? 0));
    expect(result.summary.successRate.all).toBeLessThan(0.5);
  });
});
