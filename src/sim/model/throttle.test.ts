// The SRE book's claim for client-side throttling, in the simulator: under 10× demand the backend gets about k × what it accepts.

import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

// api -> db, 2 000 users/s. db: 2 instances; while the fault holds (0-32 s) each has 10 workers × 100 ms (100/s, so
// A = 200/s: demand is 10 × A) and sheds the rest at once (queueLimit 0: its own 503). From 32 s on, 200 workers each
// (4 000/s, twice the demand). One attempt per user, so what db accepts is api's goodput.
function scenario(throttle: string): string {
  return `
name: throttle
duration: 56s
traffic: [{ to: api, rate: 2000, patience: 5s }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { instances: 2, workers: 200, serviceTime: 100ms, queueLimit: 0 }
calls:
  api -> db: { maxAttempts: 1, perTryTimeout: 2s, budget: false, deadline: false${throttle} }
faults:
  - { service: db, at: 0s, for: 32s, workers: 10 }`;
}

function run(throttle: string) {
  return runVariant(parseScenario(scenario(throttle), 'throttle.yaml'), 'default', 1);
}

type Rows = ReturnType<typeof run>['timeseries'];

/** Mean per second over bins [from, to) of `service`'s `field`. */
function perSecond(rows: Rows, service: string, field: 'arrivals' | 'goodput', from: number, to: number): number {
  const bins = rows.filter((r) => r.service === service && r.t >= from && r.t < to);
  return bins.reduce((n, r) => n + ((r[field] as number | null) ?? 0), 0) / bins.length;
}

describe('client-side adaptive throttling (SRE book ch. 21) in the simulator', () => {
  // Over 12-30 s the window (10 s) holds overload only. Tolerances: ±10 % on the ratio (the throttle's draws and the
  // Poisson arrivals, over 18 bins of ~400 attempts); "accepts" is measured, not assumed (db's blocking at 10
  // workers keeps it somewhat below 200/s, the more so the fewer attempts arrive).
  it.each([
    [2, 0.75],
    [1.1, 0.55],
  ])('k = %d: db receives about k × the attempts it accepts, and accepts most of its capacity', (k, share) => {
    const r = run(`, throttle: { kind: adaptive, k: ${k}, window: 10s }`);
    const arrivals = perSecond(r.timeseries, 'db', 'arrivals', 12, 30);
    const accepted = perSecond(r.timeseries, 'api', 'goodput', 12, 30);
    expect(arrivals / accepted).toBeGreaterThan(k * 0.9);
    expect(arrivals / accepted).toBeLessThan(k * 1.1);
    expect(accepted).toBeGreaterThan(200 * share);
    expect(accepted).toBeLessThanOrEqual(200);
    const t = r.summary.edges['api -> db']?.throttle;
    expect(t?.throttled).toBeGreaterThan(0);
    // Every attempt sent is counted (db's arrivals over the run are exactly the throttle's sent attempts).
    expect(t?.sent).toBe(r.summary.edges['api -> db']?.upstreamRqTotal);
  });

  it('without it db receives the whole demand (2 000/s), 10 × what it accepts', () => {
    const r = run('');
    expect(perSecond(r.timeseries, 'db', 'arrivals', 12, 30)).toBeGreaterThan(1800);
    expect(r.summary.edges['api -> db']?.throttle).toBeUndefined();
  });

  it('stops throttling within one window of the capacity coming back', () => {
    const r = run(', throttle: { kind: adaptive, k: 2, window: 10s }');
    expect(perSecond(r.timeseries, 'db', 'arrivals', 28, 32)).toBeLessThan(500); // throttled before
    // From one window (10 s) after the recovery at 32 s: the whole demand reaches db, and every user is served.
    expect(perSecond(r.timeseries, 'db', 'arrivals', 42, 50)).toBeGreaterThan(1800);
    const users = r.timeseries.filter((row) => row.service === 'api' && row.t >= 42 && row.t < 50);
    for (const row of users) expect(row.successRate).toBeGreaterThan(0.99);
  });

  it('a bad throttle block is refused with the path of every bad key', () => {
    const bad = ', throttle: { kind: adaptive, k: 0, window: 100ms, minRequest: 3 }';
    expect(() => parseScenario(scenario(bad), 'throttle.yaml')).toThrow(/calls\.api -> db\.throttle\.k: must be a number/);
    expect(() => parseScenario(scenario(bad), 'throttle.yaml')).toThrow(/calls\.api -> db\.throttle\.window: must be/);
    expect(() => parseScenario(scenario(bad), 'throttle.yaml')).toThrow(/throttle\.minRequest: unknown key.*minRequests/);
  });
});
