// OutlierDetector behaviour pinned after the issue #12 mutation run: answers, boundaries and messages no other test read.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { createRandom } from '../core/random.js';
import {
  classifyOutlierResult,
  type OutlierDetectionConfig,
  OutlierDetector,
  type OutlierOutcome,
  resolveOutlierDetectionConfig,
  validateOutlierDetectionConfig,
} from './outlier.js';

const S = 1000;
const RANDOM = createRandom(7);
const hostNames = (n: number) => Array.from({ length: n }, (_, i) => `h${i}`);

/** A detector over a declared pool, its clock started at 0 (interval 10 s, base ejection 30 s unless configured). */
function pool(n: number, config: OutlierDetectionConfig = {}): OutlierDetector {
  const d = new OutlierDetector(config);
  d.addHosts(hostNames(n), 0);
  return d;
}
function repeat(d: OutlierDetector, host: string, outcome: OutlierOutcome, times: number, nowMs = 0) {
  let verdict = d.onResult(host, outcome, nowMs);
  for (let i = 1; i < times; i++) verdict = d.onResult(host, outcome, nowMs);
  return verdict;
}
/** `volume` results for `host` at `nowMs`, `successes` of them 200s and the rest 500s. */
function results(d: OutlierDetector, host: string, successes: number, volume: number, nowMs: number) {
  for (let r = 0; r < volume; r++) d.onResult(host, r < successes ? 200 : 500, nowMs);
}
function issuesOf(input: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  expect(validateOutlierDetectionConfig(input, 'od', issues)).toBeUndefined();
  return issues;
}
function accepts(input: OutlierDetectionConfig) {
  const issues: ConfigIssue[] = [];
  const resolved = validateOutlierDetectionConfig(input, 'od', issues);
  expect(issues).toEqual([]);
  return resolved;
}

describe('what onResult answers when nothing is detected', () => {
  it('answers none for a success', () => {
    expect(pool(10).onResult('h0', 200, 0)).toBe('none');
  });

  it('answers none for a result that never tested the host, and does not track the host for it', () => {
    const d = new OutlierDetector();
    expect(d.onResult('h0', { kind: 'aborted' }, 0)).toBe('none');
    expect(d.trackedHosts()).toEqual([]);
    expect(d.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('classification of statuses at the top of the 5xx range (Envoy is5xx: 500 <= status < 600)', () => {
  it.each([599, 600, 999])('status %i', (status) => {
    expect(classifyOutlierResult(status)).toBe(status < 600 ? '5xx' : 'success');
  });

  it('does not count a 600 towards consecutive 5xx', () => {
    const d = pool(10);
    repeat(d, 'h0', 500, 4);
    d.onResult('h0', 600, 0);
    expect(d.inspect('h0')?.consecutive5xx).toBe(0);
    expect(repeat(d, 'h0', 500, 4)).toBe('none');
  });
});

describe('hosts the detector does not track', () => {
  it('are not ejected and stay available', () => {
    const d = pool(2, { maxEjectionPercent: 100 });
    repeat(d, 'h0', 500, 5);
    expect(d.isEjected('stranger', 0)).toBe(false);
    expect(d.available(['h0', 'stranger', 'h1'], 0)).toEqual(['stranger', 'h1']);
  });

  it('have no snapshot', () => {
    const d = pool(2);
    expect(d.inspect('stranger')).toBeUndefined();
    d.removeHost('h1');
    expect(d.inspect('h1')).toBeUndefined();
  });
});

describe('timesEjected', () => {
  it('counts every ejection of a host, and the multiplier decay does not lower it', () => {
    const d = pool(10); // interval 10 s, base 30 s
    expect(repeat(d, 'h0', 500, 5, 1 * S)).toBe('ejected');
    expect(d.inspect('h0')?.timesEjected).toBe(1);
    for (let t = 10; t <= 40; t += 10) d.sweep(t * S, RANDOM); // back at the 40 s sweep
    expect(repeat(d, 'h0', 500, 5, 41 * S)).toBe('ejected');
    expect(d.inspect('h0')).toMatchObject({ timesEjected: 2, multiplier: 2 });
    for (let t = 50; t <= 130; t += 10) d.sweep(t * S, RANDOM); // 60 s out, back at 110 s, two healthy intervals
    expect(d.inspect('h0')).toMatchObject({ ejected: false, timesEjected: 2, multiplier: 0 });
  });
});

describe('isEjected while the due sweep has not run (a late driver)', () => {
  it('keeps a host out whose ejection time has not passed, though sweeps are overdue', () => {
    const d = pool(10); // sweeps due at 10 s, 20 s, 30 s...: none is run here
    repeat(d, 'h0', 500, 5, 5 * S); // out for 30 s: until 35 s
    expect(d.isEjected('h0', 15 * S)).toBe(true);
    expect(d.isEjected('h0', 34_999)).toBe(true);
    expect(d.isEjected('h0', 35 * S)).toBe(false);
    expect(d.available(['h0', 'h1'], 26 * S)).toEqual(['h1']);
  });

  it('returns a host at the instant of the due sweep when its ejection time ends exactly then, as that sweep will', () => {
    const d = pool(10);
    d.sweep(10 * S, RANDOM);
    repeat(d, 'h0', 500, 5, 10 * S); // out for 30 s: until 40 s, the sweep after 20 s and 30 s
    d.sweep(20 * S, RANDOM);
    d.sweep(30 * S, RANDOM);
    expect(d.nextWakeMs()).toBe(40 * S);
    expect(d.isEjected('h0', 39_999)).toBe(true); // no sweep due yet
    expect(d.isEjected('h0', 40 * S)).toBe(false);
    expect(d.sweep(40 * S, RANDOM).unejected).toEqual(['h0']);
  });
});

describe('which hosts the sweep analyses', () => {
  /** 10 declared hosts; h0..h4 get 100 results at 50, 100, 100, 100, 100 % success, h5..h9 none. */
  function halfIdle(config: OutlierDetectionConfig) {
    const d = pool(10, { consecutive5xx: 0, consecutiveGatewayFailure: 0, ...config });
    [50, 100, 100, 100, 100].forEach((rate, i) => {
      results(d, `h${i}`, rate, 100, 5 * S);
    });
    return d;
  }

  // Envoy skips a host whose success-rate bucket holds no request, whatever the request volume asked for.
  it('leaves out of success rate a host without results in the interval, even with a request volume of 0', () => {
    const report = halfIdle({ successRateRequestVolume: 0 }).sweep(10 * S, RANDOM);
    expect([report.successRateAverage, report.successRateEjectionThreshold]).toEqual([90, 52]);
    expect(report.events).toEqual([{ host: 'h0', reason: 'success-rate', verdict: 'ejected' }]);
  });

  it('does not count a host without results towards failurePercentageMinimumHosts, even with a volume of 0', () => {
    const lonely = pool(10, {
      consecutive5xx: 0,
      consecutiveGatewayFailure: 0,
      enforcingFailurePercentage: 100,
      failurePercentageRequestVolume: 0,
      failurePercentageMinimumHosts: 2,
      maxEjectionPercent: 50,
    });
    results(lonely, 'h0', 0, 50, 5 * S); // fails every request, the only host with results
    expect(lonely.sweep(10 * S, RANDOM).events).toEqual([]);
    results(lonely, 'h0', 0, 50, 15 * S);
    results(lonely, 'h1', 50, 50, 15 * S); // a second host with results: now the analysis runs
    expect(lonely.sweep(20 * S, RANDOM).events).toEqual([
      { host: 'h0', reason: 'failure-percentage', verdict: 'ejected' },
    ]);
  });

  it('reports no success-rate figures when no host had the volume, even with successRateMinimumHosts 0', () => {
    const d = pool(3, { successRateMinimumHosts: 0, successRateRequestVolume: 10 });
    results(d, 'h0', 9, 9, 5 * S); // below the volume
    const report = d.sweep(10 * S, RANDOM);
    expect([report.ran, report.successRateAverage, report.successRateEjectionThreshold]).toEqual([true, null, null]);
    results(d, 'h0', 10, 10, 15 * S);
    expect(d.sweep(20 * S, RANDOM).successRateAverage).toBe(100);
  });

  // 7 of 11 is not exact in binary: the mean of five such rates rounds one unit above each of them. The spread is
  // still zero, so the threshold is the rate itself, a number, and nobody is ejected.
  it('puts the threshold at the common rate when every analysed host has the same success rate', () => {
    const d = pool(10, { consecutive5xx: 0, consecutiveGatewayFailure: 0, successRateRequestVolume: 11 });
    for (const host of hostNames(5)) results(d, host, 7, 11, 5 * S);
    const report = d.sweep(10 * S, RANDOM);
    expect(report.successRateAverage).toBeCloseTo(700 / 11, 9);
    expect(report.successRateEjectionThreshold).toBeCloseTo(700 / 11, 9);
    expect(report.events).toEqual([]);
  });

  // With a factor below 1000 the threshold sits above mean − stdev, and a mean that rounded one unit up passed every
  // host of a tie: all five were detected (and, within maxEjectionPercent, ejected) for having the same rate.
  it.each([0, 500, 999])('ejects no host of a tie whatever the stdev factor (%i)', (factor) => {
    const d = pool(10, {
      consecutive5xx: 0,
      consecutiveGatewayFailure: 0,
      successRateRequestVolume: 11,
      successRateStdevFactor: factor,
      maxEjectionPercent: 100,
    });
    for (const host of hostNames(5)) results(d, host, 7, 11, 5 * S);
    expect(d.sweep(10 * S, RANDOM).events).toEqual([]);
    // A host really below its peers is still found (2 stdev below the mean: any factor under 2000 detects it).
    for (const host of hostNames(4)) results(d, host, 8, 11, 15 * S);
    results(d, 'h4', 7, 11, 15 * S);
    expect(d.sweep(20 * S, RANDOM).events.map((e) => e.host)).toEqual(['h4']);
  });
});

describe('the enforcement draw', () => {
  it('names the detector, its percentage and the draw it got when the draw is missing', () => {
    const d = pool(10, { enforcingConsecutive5xx: 30 });
    repeat(d, 'h0', 500, 4);
    expect(() => d.onResult('h0', 500, 0)).toThrow(
      'OutlierDetector: consecutive-5xx ejection is enforced at 30 %, which needs a draw u in [0, 1) (got undefined)',
    );
  });

  it.each([
    ['the string "0.1"', '0.1'],
    ['null', null],
  ])('refuses a draw that is not a number: %s', (_, u) => {
    const d = pool(10, { enforcingConsecutive5xx: 30 });
    repeat(d, 'h0', 500, 4);
    expect(() => d.onResult('h0', 500, 0, u as unknown as number)).toThrow(RangeError);
    expect(d.stats()).toMatchObject({ ejectionsActive: 0, ejectionsNotEnforced: 0 });
  });

  it('refuses a sweep random whose draw is not a number', () => {
    const d = pool(10, { consecutive5xx: 0, consecutiveGatewayFailure: 0, enforcingSuccessRate: 50 });
    [50, 100, 100, 100, 100].forEach((rate, i) => {
      results(d, `h${i}`, rate, 100, 5 * S);
    });
    const stringy = { next: () => '0.1', nextUint32: () => 0, fork: () => stringy } as unknown as typeof RANDOM;
    expect(() => d.sweep(10 * S, stringy)).toThrow(/success-rate ejection is enforced at 50 %.*got 0\.1/);
  });
});

describe('configuration boundaries and messages', () => {
  it.each([5, 'fast', true])('refuses %j, which is not an object', (input) => {
    expect(issuesOf(input)).toEqual([
      { path: 'od', message: 'must be an object such as { consecutive5xx: 5, maxEjectionPercent: 50 }' },
    ]);
  });

  it('takes percentages from 0 to 100 and refuses -1 and 101', () => {
    expect(accepts({ maxEjectionPercent: 0, enforcingSuccessRate: 100 })).toMatchObject({
      maxEjectionPercent: 0,
      enforcingSuccessRate: 100,
    });
    expect(issuesOf({ enforcingConsecutive5xx: -1, failurePercentageThreshold: 101 })).toEqual([
      { path: 'od.enforcingConsecutive5xx', message: 'must be an integer percentage from 0 to 100' },
      { path: 'od.failurePercentageThreshold', message: 'must be an integer percentage from 0 to 100' },
    ]);
  });

  it('takes counts up to 4294967295, the largest an Envoy UInt32Value holds, and says so above it', () => {
    expect(accepts({ successRateRequestVolume: 4_294_967_295, consecutive5xx: 0 })).toMatchObject({
      successRateRequestVolume: 4_294_967_295,
      consecutive5xx: 0,
    });
    expect(issuesOf({ successRateRequestVolume: 4_294_967_296 })).toEqual([
      { path: 'od.successRateRequestVolume', message: "must be at most 4294967295 (Envoy's UInt32Value)" },
    ]);
  });

  it('names baseEjectionTime when it is not longer than 0', () => {
    expect(issuesOf({ baseEjectionTime: 0 })).toEqual([
      { path: 'od.baseEjectionTime', message: 'must be longer than 0' },
    ]);
  });

  it('gives a duration that does not parse one issue, not also "must be longer than 0"', () => {
    expect(issuesOf({ interval: 'soon' })).toEqual([
      { path: 'od.interval', message: 'must be a duration like 800ms or 2s, got "soon"' },
    ]);
  });

  it('says a snake_case key is not an option when its camelCase is not one either', () => {
    expect(issuesOf({ retry_on: '5xx' })).toEqual([
      { path: 'od.retry_on', message: 'is not an outlier detection option' },
    ]);
  });

  it('throws from the constructor one ConfigError with exactly the issues, at paths from the root', () => {
    const error = (() => {
      try {
        new OutlierDetector({ maxEjectionPercent: 150, interval: 0 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: 'maxEjectionPercent', message: 'must be an integer percentage from 0 to 100' },
      { path: 'interval', message: 'must be longer than 0' },
    ]);
    expect((error as ConfigError).message).toBe(
      'maxEjectionPercent: must be an integer percentage from 0 to 100\ninterval: must be longer than 0',
    );
    expect(resolveOutlierDetectionConfig({ maxHosts: 3 }).maxHosts).toBe(3);
  });
});
