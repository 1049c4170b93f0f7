// One test per protection: each holds with the mechanism on and fails when only that mechanism is switched off.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

// A small system pushed past capacity by a 5 s surge: api -> db, db = 2 workers x 100 ms (20/s), load 10/s,
// x4 from 5 s to 10 s. The backlog left behind is ~5 s of work; users wait 1 s at most. "after" starts 1 s after
// the surge: a system that sheds or forgets the stale backlog answers again; one that works it off does not.
function surgeScenario(db: string, edge: string, extra = ''): string {
  return `
name: surge
duration: 30s
windows: { surge: [5s, 10s], after: [11s, 16s] }
traffic: [{ to: api, rate: 10, patience: 1s }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { workers: 2, serviceTime: 100ms, ${db} }
calls:
  api -> db: { ${edge} }
faults:
  - { service: api, at: 5s, for: 5s, surge: 4 }
${extra}`;
}

function run(yaml: string, variant = 'default', seed = 1) {
  return runVariant(parseScenario(yaml, 'test.yaml'), variant, seed);
}

const ONE_TRY = 'maxAttempts: 1, budget: false';

describe('protections, each switched off alone', () => {
  it('deadline drop: the callee answers expired work 504 instead of running it, so the backlog vanishes', () => {
    const edge = `${ONE_TRY}, deadline: { patience: 1s }`;
    const on = run(surgeScenario('dropExpired: true', edge));
    const off = run(surgeScenario('dropExpired: false', edge));
    expect(on.summary.successRate.after).toBeGreaterThanOrEqual(0.95);
    expect(on.services[1]?.shed?.dropped).toBeGreaterThan(0);
    expect(off.summary.successRate.after).toBeLessThan(0.5);
    expect(off.summary.wastedWorkFraction).toBeGreaterThan(on.summary.wastedWorkFraction + 0.2);
  });

  it('queue limit: a full queue answers 503 at once, so waiting stays short', () => {
    const on = run(surgeScenario('dropExpired: false, queueLimit: 4', ONE_TRY));
    const off = run(surgeScenario('dropExpired: false', ONE_TRY));
    expect(on.summary.successRate.after).toBeGreaterThanOrEqual(0.95);
    expect(on.summary.p99Ms.surge).toBeLessThan(500);
    expect(on.services[1]?.shed?.shed).toBeGreaterThan(0);
    expect(off.summary.successRate.after).toBeLessThan(0.5);
  });

  it('cancellation: a timed-out attempt is removed from the callee queue', () => {
    const edge = `${ONE_TRY}, perTryTimeout: 300ms`;
    const on = run(surgeScenario('dropExpired: false', edge, 'cancellation: true'));
    const off = run(surgeScenario('dropExpired: false', edge, 'cancellation: false'));
    expect(on.summary.successRate.after).toBeGreaterThanOrEqual(0.95);
    expect(on.services[1]?.shed?.cancelled).toBeGreaterThan(0);
    expect(off.summary.successRate.after).toBeLessThan(0.5);
    expect(off.summary.wastedWorkFraction).toBeGreaterThan(0.3);
  });

  it('cancellation: a user who gives up takes the entry request out of its queue', () => {
    const yaml = (cancel: boolean) => `
name: entry
duration: 30s
windows: { after: [11s, 16s] }
traffic: [{ to: api, rate: 10, patience: 1s }]
services:
  api: { workers: 2, serviceTime: 100ms, dropExpired: false }
faults:
  - { service: api, at: 5s, for: 5s, surge: 4 }
cancellation: ${cancel}`;
    const on = run(yaml(true));
    const off = run(yaml(false));
    expect(on.summary.successRate.after).toBeGreaterThanOrEqual(0.95);
    expect(off.summary.successRate.after).toBeLessThan(0.5);
    // Without cancellation the entry service keeps working for users who left: the seed's "nobody is waiting".
    expect(off.summary.wastedWorkFraction).toBeGreaterThan(0.3);
  });

  it('retry budget: when everything fails, a token bucket holds attempts near one per request', () => {
    const yaml = (budget: string) => `
name: failing
duration: 20s
traffic: [{ to: api, rate: 50 }]
services:
  api: { calls: [db] }
  db: { errors: { rate: 1, status: 503 } }
calls:
  api -> db: { maxAttempts: 4, backoff: none, retryOn: [503], budget: ${budget} }`;
    const on = run(yaml('{ kind: token-bucket, maxTokens: 10, tokenRatio: 0.1 }'));
    const off = run(yaml('false'));
    expect(on.summary.amplification.db?.total).toBeLessThan(1.01);
    expect(off.summary.amplification.db?.total).toBeCloseTo(4, 2);
  });

  it('patience: a user who waited that long is gone, counted as a failure at exactly the patience', () => {
    const yaml = (patience: string) => `
name: slow
duration: 20s
windows: { all: [2s, 18s] }
traffic: [{ to: api, rate: 20${patience} }]
services:
  api: { workers: 1, serviceTime: 100ms }`;
    const on = run(yaml(', patience: 300ms'));
    const off = run(yaml(''));
    expect(on.summary.p99Ms.all).toBe(300);
    expect(on.summary.successRate.all).toBeLessThan(0.1);
    expect(off.summary.successRate.all).toBeGreaterThan(0.4);
    expect(off.summary.p99Ms.all).toBeGreaterThan(5000);
  });
});

describe('the simulator drives the production policy objects', () => {
  it('attempts counted by RetryPolicy.stats() are exactly the arrivals at the callee', () => {
    const result = run(surgeScenario('dropExpired: false', 'maxAttempts: 3, perTryTimeout: 200ms, budget: false'));
    const api = result.services[0];
    const db = result.services[1];
    expect(api?.calls.db?.attempts).toBe(db?.arrivals);
    expect(api?.calls.db?.perTryTimeouts).toBeGreaterThan(0);
    expect(api?.calls.db?.calls).toBe(api?.arrivals);
  });
});
