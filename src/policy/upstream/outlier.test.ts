// Tests for OutlierDetector: each Envoy detector alone, ejection time, the ejection limit, sweeps, the host bound, config.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { createRandom, type Random } from '../core/random.js';
import {
  classifyOutlierResult,
  DEFAULT_OUTLIER_DETECTION,
  ENVOY_OUTLIER_FIELDS,
  type OutlierDetectionConfig,
  OutlierDetector,
  type OutlierOutcome,
  validateOutlierDetectionConfig,
} from './outlier.js';

const S = 1000;
const RANDOM = createRandom(12);
/** A Random that always draws `u`, to pin an enforcing percentage's decision. */
function always(u: number): Random {
  return { next: () => u, nextUint32: () => Math.floor(u * 2 ** 32), fork: () => always(u) };
}
const hostNames = (n: number) => Array.from({ length: n }, (_, i) => `h${i}`);

/** A detector over a declared pool, its clock started at 0. */
function pool(n: number, config: OutlierDetectionConfig = {}): OutlierDetector {
  const d = new OutlierDetector(config);
  d.addHosts(hostNames(n), 0);
  return d;
}
function repeat(d: OutlierDetector, host: string, outcome: OutlierOutcome, times: number, nowMs = 0, u?: number) {
  let verdict = d.onResult(host, outcome, nowMs, u);
  for (let i = 1; i < times; i++) verdict = d.onResult(host, outcome, nowMs, u);
  return verdict;
}
/** Sweeps every interval up to and including `untilMs`. */
function sweepUntil(d: OutlierDetector, untilMs: number, random: Random = RANDOM) {
  while (d.nextWakeMs() <= untilMs) d.sweep(d.nextWakeMs(), random);
}

describe('classifyOutlierResult (Envoy, split_external_local_origin_errors = false)', () => {
  it.each([
    [200, 'success'],
    [404, 'success'],
    [429, 'success'],
    [500, '5xx'],
    [501, '5xx'],
    [599, '5xx'],
    [502, 'gateway-failure'],
    [503, 'gateway-failure'],
    [504, 'gateway-failure'],
    [{ kind: 'response', status: 503 }, 'gateway-failure'],
    [{ kind: 'response', status: 500 }, '5xx'],
    [{ kind: 'connect-failure' }, 'gateway-failure'],
    [{ kind: 'reset' }, 'gateway-failure'],
    [{ kind: 'timeout' }, 'gateway-failure'],
    [{ kind: 'aborted' }, 'ignored'],
    [{ kind: 'shed-locally' }, 'ignored'],
    [{ kind: 'local-error' }, 'ignored'],
  ] as [OutlierOutcome, string][])('classifies %j as %s', (outcome, expected) => {
    expect(classifyOutlierResult(outcome)).toBe(expected);
  });
});

describe('consecutive 5xx', () => {
  it('ejects on the fifth 5xx in a row with the defaults (10 hosts, so 10 % allows one)', () => {
    const d = pool(10);
    expect(repeat(d, 'h0', 500, 4)).toBe('none');
    expect(d.isEjected('h0', 0)).toBe(false);
    expect(d.onResult('h0', 500, 0)).toBe('ejected');
    expect(d.isEjected('h0', 0)).toBe(true);
    expect(d.stats()).toMatchObject({
      ejectionsActive: 1,
      ejectionsDetectedConsecutive5xx: 1,
      ejectionsEnforcedConsecutive5xx: 1,
      ejectionsEnforcedTotal: 1,
    });
  });

  it.each([200, 404])('starts the count again after a %s (any answer below 500 is a success)', (status) => {
    const d = pool(10);
    repeat(d, 'h0', 500, 4);
    d.onResult('h0', status, 0);
    expect(repeat(d, 'h0', 500, 4)).toBe('none');
    expect(d.onResult('h0', 500, 0)).toBe('ejected');
  });

  it('counts locally originated failures and ignores results that never tested the host', () => {
    const d = pool(10, { consecutiveGatewayFailure: 0 });
    d.onResult('h0', 500, 0);
    d.onResult('h0', { kind: 'connect-failure' }, 0);
    d.onResult('h0', { kind: 'timeout' }, 0);
    d.onResult('h0', { kind: 'aborted' }, 0);
    d.onResult('h0', { kind: 'reset' }, 0);
    expect(d.inspect('h0')?.consecutive5xx).toBe(4);
    expect(d.onResult('h0', 599, 0)).toBe('ejected');
  });

  it('is off with a threshold of 0', () => {
    const d = pool(10, { consecutive5xx: 0 });
    expect(repeat(d, 'h0', 500, 50)).toBe('none');
    expect(d.stats().ejectionsDetectedConsecutive5xx).toBe(0);
  });

  it('resets the count at each detection, so a refused host is detected again only after another run', () => {
    const d = pool(4, { maxEjectionPercent: 0 });
    expect(repeat(d, 'h0', 500, 5)).toBe('overflow');
    expect(repeat(d, 'h0', 500, 4)).toBe('none');
    expect(d.onResult('h0', 500, 0)).toBe('overflow');
    expect(d.stats()).toMatchObject({ ejectionsDetectedConsecutive5xx: 2, ejectionsOverflow: 2, ejectionsActive: 0 });
  });

  it('does not detect a host that is already ejected', () => {
    const d = pool(10);
    repeat(d, 'h0', 500, 5);
    repeat(d, 'h0', 500, 20);
    expect(d.stats().ejectionsDetectedConsecutive5xx).toBe(1);
  });
});

describe('consecutive gateway failure', () => {
  it('detects five 502/503/504 or local failures in a row but does not enforce by default (Envoy: 0 %)', () => {
    const d = pool(10, { consecutive5xx: 0 });
    for (const outcome of [502, 503, 504, { kind: 'connect-failure' }, { kind: 'timeout' }] as OutlierOutcome[]) {
      d.onResult('h0', outcome, 0);
    }
    expect(d.isEjected('h0', 0)).toBe(false);
    expect(d.stats()).toMatchObject({ ejectionsDetectedConsecutiveGatewayFailure: 1, ejectionsNotEnforced: 1 });
  });

  it('ejects when enforced, and a 500 breaks the run of gateway failures', () => {
    const d = pool(10, { consecutive5xx: 0, enforcingConsecutiveGatewayFailure: 100 });
    repeat(d, 'h0', 503, 4);
    d.onResult('h0', 500, 0);
    expect(repeat(d, 'h0', 503, 4)).toBe('none');
    expect(d.onResult('h0', 503, 0)).toBe('ejected');
    expect(d.stats().ejectionsEnforcedConsecutiveGatewayFailure).toBe(1);
  });

  it('with both defaults, five 503s are a gateway detection (not enforced) and a 5xx ejection', () => {
    const d = pool(10);
    expect(repeat(d, 'h0', 503, 5)).toBe('ejected');
    expect(d.stats()).toMatchObject({
      ejectionsDetectedConsecutiveGatewayFailure: 1,
      ejectionsNotEnforced: 1,
      ejectionsDetectedConsecutive5xx: 1,
      ejectionsEnforcedConsecutive5xx: 1,
    });
  });
});

describe('enforcing percentages take the draw they are given', () => {
  it.each([
    [0.29, 'ejected'],
    [0, 'ejected'],
    [0.3, 'not-enforced'],
    [0.99, 'not-enforced'],
  ])('at 30 percent, a draw of %s gives %s', (u, verdict) => {
    const d = pool(10, { enforcingConsecutive5xx: 30 });
    expect(repeat(d, 'h0', 500, 5, 0, u)).toBe(verdict);
  });

  it.each([undefined, 1, -0.1, Number.NaN])('throws when a draw is needed and it is %s', (u) => {
    const d = pool(10, { enforcingConsecutive5xx: 30 });
    repeat(d, 'h0', 500, 4);
    expect(() => d.onResult('h0', 500, 0, u)).toThrow(RangeError);
  });

  it('needs no draw at 0 % or 100 %', () => {
    const d = pool(10, { enforcingConsecutiveGatewayFailure: 0, enforcingConsecutive5xx: 100 });
    expect(repeat(d, 'h0', 503, 5)).toBe('ejected');
  });

  it('draws from the sweep random for a success-rate detection', () => {
    const run = (u: number) => {
      const d = successRatePool({ enforcingSuccessRate: 50 });
      return d.sweep(10 * S, always(u)).events;
    };
    expect(run(0.49)).toEqual([{ host: 'h0', reason: 'success-rate', verdict: 'ejected' }]);
    expect(run(0.5)).toEqual([{ host: 'h0', reason: 'success-rate', verdict: 'not-enforced' }]);
  });
});

/** 10 declared hosts; h0..h4 get `volume` results in the first interval at the given success percentages. */
function successRatePool(config: OutlierDetectionConfig = {}, rates = [50, 100, 100, 100, 100], volume = 100) {
  const d = pool(10, { consecutive5xx: 0, consecutiveGatewayFailure: 0, ...config });
  rates.forEach((rate, i) => {
    const successes = Math.round((rate * volume) / 100);
    for (let r = 0; r < volume; r++) d.onResult(`h${i}`, r < successes ? 200 : 500, 5 * S);
  });
  return d;
}

describe('success rate', () => {
  // Envoy's own example (outlier_detection_impl.cc): rates {50, 100, 100, 100, 100}: mean 90, stdev 20, threshold 52.
  it('ejects a host below mean − 1.9 × stdev at the sweep', () => {
    const d = successRatePool();
    expect(d.isEjected('h0', 9 * S)).toBe(false);
    const report = d.sweep(10 * S, RANDOM);
    expect([report.successRateAverage, report.successRateEjectionThreshold]).toEqual([90, 52]);
    expect(report.events).toEqual([{ host: 'h0', reason: 'success-rate', verdict: 'ejected' }]);
    expect(d.isEjected('h0', 10 * S)).toBe(true);
    expect(d.stats()).toMatchObject({ ejectionsDetectedSuccessRate: 1, ejectionsEnforcedSuccessRate: 1 });
  });

  it('reads the factor in thousandths: 3000 puts the threshold at 30, above no host', () => {
    const report = successRatePool({ successRateStdevFactor: 3000 }).sweep(10 * S, RANDOM);
    expect(report.successRateEjectionThreshold).toBe(30);
    expect(report.events).toEqual([]);
  });

  it('skips hosts below the request volume, and the analysis with fewer than the minimum hosts', () => {
    expect(successRatePool({}, [50, 100, 100, 100, 100], 99).sweep(10 * S, RANDOM).successRateAverage).toBeNull();
    expect(successRatePool({}, [50, 100, 100, 100]).sweep(10 * S, RANDOM).successRateAverage).toBeNull();
    // With 4 hosts one outlier is at most √3 ≈ 1.73 stdev below the mean, so the factor is lowered too.
    const lowered = successRatePool({ successRateMinimumHosts: 4, successRateStdevFactor: 1000 }, [50, 100, 100, 100]);
    expect(lowered.sweep(10 * S, RANDOM).events.map((e) => e.host)).toEqual(['h0']);
  });

  it('analyses only the interval that just closed', () => {
    const d = successRatePool({ enforcingFailurePercentage: 100 });
    expect(d.sweep(10 * S, RANDOM).events).toHaveLength(1); // h0 ejected
    expect(d.inspect('h1')).toMatchObject({ requests: 0, lastIntervalRequests: 100 });
    expect(d.sweep(20 * S, RANDOM).events).toEqual([]);
    expect(d.inspect('h1')).toMatchObject({ requests: 0, lastIntervalRequests: 0 });
    // h0 returns at 40 s; the intervals since saw no traffic, so nothing is detected again.
    for (let t = 30; t <= 60; t += 10) expect(d.sweep(t * S, RANDOM).events).toEqual([]);
    expect(d.isEjected('h0', 60 * S)).toBe(false);
  });

  it('ejects a host once when success rate and failure percentage both detect it in one sweep', () => {
    const d = successRatePool({ enforcingFailurePercentage: 100, maxEjectionPercent: 50 }, [0, 100, 100, 100, 100]);
    expect(d.sweep(10 * S, RANDOM).events).toEqual([{ host: 'h0', reason: 'success-rate', verdict: 'ejected' }]);
    expect(d.stats()).toMatchObject({ ejectionsActive: 1, ejectionsDetectedFailurePercentage: 0 });
  });
});

describe('failure percentage', () => {
  /** 10 declared hosts; h0..h4 each get 50 results, `failures[i]` of them 500s. */
  function fpPool(failures: number[], config: OutlierDetectionConfig = {}) {
    const d = pool(10, { consecutive5xx: 0, consecutiveGatewayFailure: 0, maxEjectionPercent: 50, ...config });
    failures.forEach((f, i) => {
      for (let r = 0; r < 50; r++) d.onResult(`h${i}`, r < f ? 500 : 200, S);
    });
    return d;
  }

  it('detects a host failing at least 85 % of its interval, but does not enforce by default (Envoy: 0 %)', () => {
    const d = fpPool([43, 42, 0, 0, 0]); // 86 % and 84 %
    expect(d.sweep(10 * S, RANDOM).events).toEqual([
      { host: 'h0', reason: 'failure-percentage', verdict: 'not-enforced' },
    ]);
    expect(d.isEjected('h0', 10 * S)).toBe(false);
  });

  it('ejects when enforced; exactly the threshold counts (>=)', () => {
    const d = fpPool([45, 0, 0, 0, 0], { enforcingFailurePercentage: 100, failurePercentageThreshold: 90 });
    expect(d.sweep(10 * S, RANDOM).events).toEqual([{ host: 'h0', reason: 'failure-percentage', verdict: 'ejected' }]);
    expect(d.stats()).toMatchObject({ ejectionsDetectedFailurePercentage: 1, ejectionsEnforcedFailurePercentage: 1 });
  });

  it('needs the minimum number of hosts with the request volume', () => {
    const d = fpPool([50, 50, 50, 50], { enforcingFailurePercentage: 100 });
    expect(d.sweep(10 * S, RANDOM).events).toEqual([]);
  });

  it('ejects every failing host the limit allows, then counts overflows (the shared-DB case)', () => {
    const d = fpPool([50, 50, 50, 50, 50], { enforcingFailurePercentage: 100 });
    const verdicts = d.sweep(10 * S, RANDOM).events.map((e) => e.verdict);
    expect(verdicts).toEqual(['ejected', 'ejected', 'ejected', 'ejected', 'ejected']);
    const strict = fpPool([50, 50, 50, 50, 50], { enforcingFailurePercentage: 100, maxEjectionPercent: 20 });
    expect(strict.sweep(10 * S, RANDOM).events.map((e) => e.verdict)).toEqual([
      'ejected',
      'ejected',
      'overflow',
      'overflow',
      'overflow',
    ]);
  });
});

describe('ejection time', () => {
  /** Ejects h0 (five 500s) at `nowMs`. */
  const eject = (d: OutlierDetector, nowMs: number) => expect(repeat(d, 'h0', 500, 5, nowMs)).toBe('ejected');

  it('returns a host at the first sweep after base × times ejected, as Envoy (un-ejection waits for a sweep)', () => {
    const d = pool(10); // interval 10 s, base 30 s
    eject(d, 1 * S);
    sweepUntil(d, 30 * S);
    expect(d.isEjected('h0', 30 * S)).toBe(true); // 29 s served
    sweepUntil(d, 40 * S);
    expect(d.isEjected('h0', 40 * S)).toBe(false);
    expect(d.stats()).toMatchObject({ ejectionsActive: 0, unejectionsTotal: 1 });
  });

  it('grows by the base with each ejection in a row, up to maxEjectionTime', () => {
    const d = pool(10, { interval: '1s' });
    const times: number[] = [];
    let nowMs = 0;
    for (let i = 0; i < 13; i++) {
      eject(d, nowMs); // again at the sweep that returned it: no healthy interval in between
      times.push(d.inspect('h0')?.ejectionTimeMs as number);
      while (d.inspect('h0')?.ejected) {
        nowMs = d.nextWakeMs();
        d.sweep(nowMs, RANDOM);
      }
    }
    expect(times).toEqual([30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 300, 300, 300].map((s) => s * S));
    // Envoy stops the multiplier one step past the cap (11 = 300 s / 30 s + 1).
    expect(d.inspect('h0')?.multiplier).toBe(11);
  });

  it('lowers the multiplier by one for each interval a host stays healthy after its un-ejection', () => {
    const d = pool(10);
    eject(d, 0);
    sweepUntil(d, 30 * S); // back at 30 s, multiplier 1
    eject(d, 30 * S);
    sweepUntil(d, 90 * S); // back at 90 s, multiplier 2
    expect(d.inspect('h0')?.multiplier).toBe(2);
    sweepUntil(d, 100 * S);
    expect(d.inspect('h0')?.multiplier).toBe(1);
    sweepUntil(d, 110 * S);
    expect(d.inspect('h0')?.multiplier).toBe(0);
    eject(d, 110 * S);
    expect(d.inspect('h0')?.ejectionTimeMs).toBe(30 * S);
  });

  it('does not lower the multiplier at the sweep that returns the host', () => {
    const d = pool(10);
    eject(d, 0);
    const report = d.sweep(30 * S, RANDOM);
    expect(report.unejected).toEqual(['h0']);
    expect(d.inspect('h0')?.multiplier).toBe(1);
  });

  it('clears the consecutive counters at un-ejection, so one new error does not eject again', () => {
    const d = pool(10);
    eject(d, 0);
    repeat(d, 'h0', 500, 4, 1 * S); // while ejected: counted, not detected
    sweepUntil(d, 30 * S);
    expect(d.onResult('h0', 500, 31 * S)).toBe('none');
    expect(d.inspect('h0')?.consecutive5xx).toBe(1);
  });
});

describe('maxEjectionPercent (Envoy since #27909: at most floor(percent × hosts / 100) out)', () => {
  // The seed's mesh lesson: a shared DB fails every host; the limit keeps part of the pool serving.
  it.each([
    [4, 50, false, 2],
    [4, 100, false, 4],
    [4, 10, false, 0],
    [4, 10, true, 1],
    [3, 50, false, 1],
    [3, 67, false, 2], // envoyproxy/envoy#27066: 3 hosts at 67 % leave one host serving
    [9, 10, false, 0], // the default 10 % ejects nothing in a pool under 10 hosts
    [10, 10, false, 1],
    [20, 10, false, 2],
    [4, 0, true, 1],
  ])(
    '%d hosts all failing, limit %d percent, alwaysEjectOneHost %s: %d ejected',
    (n, maxEjectionPercent, always1, expected) => {
      const d = pool(n, { maxEjectionPercent, alwaysEjectOneHost: always1 });
      for (const host of hostNames(n)) repeat(d, host, 500, 5);
      expect(d.stats()).toMatchObject({ ejectionsActive: expected, ejectionsOverflow: n - expected });
      expect(d.available(hostNames(n), 0)).toHaveLength(n - expected);
    },
  );

  it('the seed scenario: 50 % keeps two of four hosts serving through a shared-DB outage, 100 % ejects all', () => {
    const hosts = ['member-api-1', 'member-api-2', 'member-api-3', 'member-api-4'];
    const outage = (maxEjectionPercent: number) => {
      const d = new OutlierDetector({ maxEjectionPercent });
      d.addHosts(hosts, 0);
      for (let t = 0; t < 40; t++) d.onResult(hosts[t % 4] as string, 503, t * 10); // round robin
      return d.available(hosts, 400);
    };
    expect(outage(50)).toEqual(['member-api-3', 'member-api-4']);
    expect(outage(100)).toEqual([]);
  });

  it('counts a refused detection as an overflow before its enforcing percentage is drawn, as Envoy', () => {
    // Five 503s are a gateway detection (enforcing 0 %) and a 5xx detection: over the limit, both overflow.
    const d = pool(4, { maxEjectionPercent: 0 });
    expect(repeat(d, 'h0', 503, 5)).toBe('overflow');
    expect(d.stats()).toMatchObject({ ejectionsOverflow: 2, ejectionsNotEnforced: 0 });
  });

  it('counts tracked hosts: declaring the pool is what lets a limit below 100 % eject the first host', () => {
    const d = new OutlierDetector({ maxEjectionPercent: 50 });
    expect(repeat(d, 'a', 500, 5)).toBe('overflow'); // 1 host known: 50 % of 1 is 0
    d.addHosts(['b'], 0);
    expect(repeat(d, 'a', 500, 5)).toBe('ejected');
  });
});

describe('sweeps and waking', () => {
  it('starts the interval clock at the first time it is given and re-arms an interval after each sweep', () => {
    const d = new OutlierDetector();
    expect(d.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
    d.onResult('a', 200, 2500);
    expect(d.nextWakeMs()).toBe(12_500);
    expect(d.sweep(12_000, RANDOM).ran).toBe(false);
    expect(d.nextWakeMs()).toBe(12_500);
    expect(d.sweep(13_000, RANDOM).ran).toBe(true); // late: the next one is an interval after it ran
    expect(d.nextWakeMs()).toBe(23_000);
    expect(d.stats().sweeps).toBe(1);
  });

  it('answers a host as available once the sweep due would return it, even before the driver runs it', () => {
    const d = pool(10);
    repeat(d, 'h0', 500, 5, 1 * S);
    sweepUntil(d, 30 * S);
    expect(d.isEjected('h0', 39_999)).toBe(true);
    expect(d.isEjected('h0', 45 * S)).toBe(false); // sweep due at 40 s not run yet
    expect(d.stats().ejectionsActive).toBe(1);
    d.sweep(45 * S, RANDOM);
    expect(d.stats().ejectionsActive).toBe(0);
  });
});

describe('bounded host map', () => {
  it('forgets the least recently seen host beyond maxHosts; a result refreshes a host', () => {
    const d = new OutlierDetector({ maxHosts: 3 });
    d.addHosts(['a', 'b', 'c'], 0);
    d.onResult('a', 200, 0);
    d.onResult('d', 200, 0);
    expect(d.trackedHosts()).toEqual(['c', 'a', 'd']);
    expect(d.stats()).toMatchObject({ hostsTracked: 3, hostsForgotten: 1 });
  });

  it('keeps an ejected host while a healthy one can be forgotten instead', () => {
    const d = new OutlierDetector({ maxHosts: 3, maxEjectionPercent: 50 });
    d.addHosts(['a', 'b', 'c'], 0);
    repeat(d, 'a', 500, 5);
    d.addHosts(['b', 'c'], 0); // a is now the least recently seen, and ejected
    d.onResult('d', 200, 0);
    expect(d.trackedHosts()).toEqual(['a', 'c', 'd']);
    expect(d.isEjected('a', 0)).toBe(true);
  });

  it('accounts for an ejected host forgotten when every tracked host is ejected', () => {
    const d = new OutlierDetector({ maxHosts: 2, maxEjectionPercent: 100 });
    d.addHosts(['a', 'b'], 0);
    repeat(d, 'a', 500, 5);
    repeat(d, 'b', 500, 5);
    d.onResult('c', 200, 0);
    expect(d.trackedHosts()).toEqual(['b', 'c']);
    expect(d.stats()).toMatchObject({ ejectionsActive: 1, ejectionsForgotten: 1, hostsForgotten: 1 });
  });

  it('removeHost ends an ejection with accounting', () => {
    const d = pool(10);
    repeat(d, 'h0', 500, 5);
    expect(d.removeHost('h0')).toBe(true);
    expect(d.removeHost('h0')).toBe(false);
    expect(d.stats()).toMatchObject({ ejectionsActive: 0, ejectionsForgotten: 1, hostsTracked: 9 });
  });
});

describe('stats', () => {
  it("mirror Envoy's outlier_detection.* names", () => {
    const names = Object.keys(new OutlierDetector().stats());
    const envoy = [
      'ejections_active',
      'ejections_enforced_total',
      'ejections_overflow',
      'ejections_detected_consecutive_5xx',
      'ejections_enforced_consecutive_5xx',
      'ejections_detected_consecutive_gateway_failure',
      'ejections_enforced_consecutive_gateway_failure',
      'ejections_detected_success_rate',
      'ejections_enforced_success_rate',
      'ejections_detected_failure_percentage',
      'ejections_enforced_failure_percentage',
    ];
    const camel = envoy.map((n) => n.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
    expect(names).toEqual(expect.arrayContaining(camel));
  });
});

describe('configuration', () => {
  function issuesOf(input: unknown): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    expect(validateOutlierDetectionConfig(input, 'od', issues)).toBeUndefined();
    return issues;
  }

  // envoy/config/cluster/v3/outlier_detection.proto and outlier_detection_impl.h.
  it.each([
    ['consecutive_5xx', 'consecutive5xx', 5],
    ['consecutive_gateway_failure', 'consecutiveGatewayFailure', 5],
    ['enforcing_consecutive_5xx', 'enforcingConsecutive5xx', 100],
    ['enforcing_consecutive_gateway_failure', 'enforcingConsecutiveGatewayFailure', 0],
    ['interval', 'intervalMs', 10_000],
    ['base_ejection_time', 'baseEjectionTimeMs', 30_000],
    ['max_ejection_time', 'maxEjectionTimeMs', 300_000],
    ['max_ejection_percent', 'maxEjectionPercent', 10],
    ['always_eject_one_host', 'alwaysEjectOneHost', false],
    ['success_rate_minimum_hosts', 'successRateMinimumHosts', 5],
    ['success_rate_request_volume', 'successRateRequestVolume', 100],
    ['success_rate_stdev_factor', 'successRateStdevFactor', 1900],
    ['enforcing_success_rate', 'enforcingSuccessRate', 100],
    ['failure_percentage_threshold', 'failurePercentageThreshold', 85],
    ['failure_percentage_minimum_hosts', 'failurePercentageMinimumHosts', 5],
    ['failure_percentage_request_volume', 'failurePercentageRequestVolume', 50],
    ['enforcing_failure_percentage', 'enforcingFailurePercentage', 0],
  ])("Envoy's %s defaults to %s = %s", (envoy, key, value) => {
    const resolved = new OutlierDetector().config as unknown as Record<string, unknown>;
    expect(resolved[key]).toBe(value);
    expect(Object.values(ENVOY_OUTLIER_FIELDS)).toContain(envoy);
  });

  it('resolves durations, and an unset maxEjectionTime to max(300 s, baseEjectionTime) as Envoy', () => {
    const c = validateOutlierDetectionConfig({ interval: '1s', baseEjectionTime: '400s' }, '', []);
    expect([c?.intervalMs, c?.baseEjectionTimeMs, c?.maxEjectionTimeMs]).toEqual([1000, 400_000, 400_000]);
    expect(DEFAULT_OUTLIER_DETECTION.maxHosts).toBe(1024);
  });

  it('names every problem by its path', () => {
    expect(
      issuesOf({
        consecutive5xx: -1,
        maxEjectionPercent: 101,
        enforcingSuccessRate: 50.5,
        interval: 0,
        baseEjectionTime: '1m',
        maxEjectionTime: '30s',
        alwaysEjectOneHost: 'yes',
        maxHosts: 0,
      }),
    ).toEqual([
      { path: 'od.maxEjectionPercent', message: 'must be an integer percentage from 0 to 100' },
      { path: 'od.enforcingSuccessRate', message: 'must be an integer percentage from 0 to 100' },
      { path: 'od.consecutive5xx', message: 'must be an integer >= 0' },
      { path: 'od.maxHosts', message: 'must be an integer >= 1' },
      { path: 'od.alwaysEjectOneHost', message: 'must be true or false' },
      { path: 'od.interval', message: 'must be longer than 0' },
      { path: 'od.maxEjectionTime', message: 'must be at least baseEjectionTime (60000 ms)' },
    ]);
  });

  it("points a key written Envoy's way to ours, and suggests a near miss", () => {
    expect(issuesOf({ max_ejection_percent: 50, consecutive5xxx: 3 })).toEqual([
      { path: 'od.max_ejection_percent', message: "is Envoy's name; write maxEjectionPercent" },
      { path: 'od.consecutive5xxx', message: 'is not an outlier detection option; did you mean consecutive5xx?' },
    ]);
  });

  it('refuses a config that is not an object, and the constructor throws ConfigError', () => {
    expect(issuesOf(null)).toEqual([{ path: 'od', message: expect.stringContaining('must be an object') }]);
    expect(() => new OutlierDetector({ maxEjectionPercent: 150 })).toThrow(ConfigError);
  });
});
