// The SRE book's claim for client-side throttling, in the simulator: under 10× demand the backend gets about k × what it accepts.

import { describe, expect, it } from 'vitest';
import {
  backToDemandS,
  perSecond,
  runThrottle as run,
  throttleScenario as scenario,
  throttleOf,
} from '../../../tools/docs/throttle-figures.js';
import { parseScenario } from '../scenario/load.js';

// The scenario (tools/docs/throttle-figures.ts): 2 000 users/s into api -> db; db accepts A ≈ 200/s (2 × 10 workers
// × 100 ms, shedding the rest with its own 503) until 32 s, then has twice the demand's capacity.
describe('client-side adaptive throttling (SRE book ch. 21) in the simulator', () => {
  // Over 12-30 s the window (10 s) holds overload only. Tolerances: ±10 % on the ratio (the throttle's draws and the
  // Poisson arrivals, over 18 bins of ~400 attempts); "accepts" is measured, not assumed (db's blocking at 10
  // workers keeps it somewhat below 200/s, the more so the fewer attempts arrive).
  it.each([
    [2, 0.75],
    [1.1, 0.55],
  ])('k = %d: db receives about k × the attempts it accepts, and accepts most of its capacity', (k, share) => {
    const r = run(throttleOf(k));
    const arrivals = perSecond(r, 'db', 'arrivals', 12, 30);
    const accepted = perSecond(r, 'api', 'goodput', 12, 30);
    expect(arrivals / accepted).toBeGreaterThan(k * 0.9);
    expect(arrivals / accepted).toBeLessThan(k * 1.1);
    expect(accepted).toBeGreaterThan(200 * share);
    expect(accepted).toBeLessThanOrEqual(200);
    const edge = r.summary.edges['api -> db'];
    expect(edge?.throttle?.throttled).toBeGreaterThan(0);
    // Only sent attempts are counted: the throttle's `sent` is what went over the wire.
    expect(edge?.throttle?.sent).toBe(edge?.upstreamRqTotal);
  });

  it('without it db receives the whole demand (2 000/s), 10 × what it accepts', () => {
    const r = run('');
    expect(perSecond(r, 'db', 'arrivals', 12, 30)).toBeGreaterThan(1800);
    expect(r.summary.edges['api -> db']?.throttle).toBeUndefined();
  });

  it('stops throttling about one window (10 s) after the capacity comes back', () => {
    const r = run(throttleOf(2));
    expect(perSecond(r, 'db', 'arrivals', 28, 32)).toBeLessThan(500); // throttled before
    // The window forgets the overload's rejections within one window, but the throttle's own refusals since the
    // recovery are requests too: sending grows by about k / window per second (×e^0.2 here), so the whole demand is
    // back a little after one window (11 s, seed 1). Tolerance: 1.5 windows.
    const back = backToDemandS(r);
    expect(back).not.toBeNull();
    expect(back as number).toBeGreaterThan(3); // it does not snap back at once either: the window remembers
    expect(back as number).toBeLessThanOrEqual(15);
    // From 1.5 windows after the recovery every user is served.
    const users = r.timeseries.filter((row) => row.service === 'api' && row.t >= 47 && row.t < 51);
    for (const row of users) expect(row.successRate).toBeGreaterThan(0.99);
  });

  it('a bad throttle block is refused with the path of every bad key', () => {
    const bad = scenario(', throttle: { kind: adaptive, k: 0, window: 100ms, minRequest: 3 }');
    expect(() => parseScenario(bad, 'throttle.yaml')).toThrow(/calls\.api -> db\.throttle\.k: must be a number/);
    expect(() => parseScenario(bad, 'throttle.yaml')).toThrow(/calls\.api -> db\.throttle\.window: must be/);
    expect(() => parseScenario(bad, 'throttle.yaml')).toThrow(/throttle\.minRequest: unknown key.*minRequests/);
  });
});
