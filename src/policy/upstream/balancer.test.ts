// Tests for Balancer: round-robin and p2c choice, avoidance of the failed endpoint, panic threshold, config checks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import {
  Balancer,
  DEFAULT_PANIC_THRESHOLD,
  type EjectionSource,
  MAX_BALANCER_ENDPOINTS,
  NO_ENDPOINT,
  resolveLoadBalancerConfig,
} from './balancer.js';
import { OutlierDetector } from './outlier.js';

/** Ejections as a plain set the test controls. */
function ejectedSet(keys: Iterable<string> = []): EjectionSource & { out: Set<string> } {
  const out = new Set(keys);
  return { out, isEjected: (host) => out.has(host) };
}

const HOSTS = ['a', 'b', 'c', 'd'];

describe('Balancer config', () => {
  it('defaults to round-robin with Envoy’s 50 % panic threshold', () => {
    expect(resolveLoadBalancerConfig(undefined)).toEqual({ kind: 'round-robin', panicThreshold: 50 });
    expect(DEFAULT_PANIC_THRESHOLD).toBe(50);
    expect(resolveLoadBalancerConfig('p2c')).toEqual({ kind: 'p2c', panicThreshold: 50 });
    expect(resolveLoadBalancerConfig({ kind: 'p2c', panicThreshold: 0 })).toEqual({ kind: 'p2c', panicThreshold: 0 });
    expect(resolveLoadBalancerConfig({ panicThreshold: 100 })).toEqual({ kind: 'round-robin', panicThreshold: 100 });
  });

  it('lists every problem with its key', () => {
    let error: unknown;
    try {
      resolveLoadBalancerConfig({ kind: 'random', panicThreshold: Number.NaN, choiceCount: 3 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['choiceCount', 'kind', 'panicThreshold']);
    expect(() => resolveLoadBalancerConfig({ panicThreshold: '50' })).toThrow(/panicThreshold/);
    expect(() => resolveLoadBalancerConfig({ panicThreshold: 101 })).toThrow(/panicThreshold/);
    expect(() => resolveLoadBalancerConfig({ panicThreshold: -1 })).toThrow(/panicThreshold/);
    expect(() => resolveLoadBalancerConfig(7)).toThrow(/round-robin, p2c/);
    expect(() => resolveLoadBalancerConfig([])).toThrow(/round-robin, p2c/);
  });

  it('refuses empty, duplicated and oversized endpoint lists', () => {
    expect(() => new Balancer([])).toThrow(RangeError);
    expect(() => new Balancer(['a', 'a'])).toThrow(/distinct/);
    expect(() => new Balancer(Array.from({ length: MAX_BALANCER_ENDPOINTS + 1 }, (_, i) => `h${i}`))).toThrow(
      /at most/,
    );
    expect(() => new Balancer(['a'], { kind: 'nope' as 'p2c' })).toThrow(ConfigError);
  });
});

describe('Balancer round-robin', () => {
  it('takes each endpoint in turn', () => {
    const b = new Balancer(HOSTS);
    const picks = Array.from({ length: 8 }, () => b.pick(0, -1, 0, 0));
    expect(picks).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
    expect(b.stats()).toEqual({ picks: 8, panics: 0, noEndpoint: 0, avoidedPrevious: 0 });
  });

  it('skips ejected endpoints and keeps the cycle', () => {
    const ejections = ejectedSet(['b']);
    const b = new Balancer(HOSTS, {}, ejections);
    expect(Array.from({ length: 6 }, () => b.pick(0, -1, 0, 0))).toEqual([0, 2, 3, 0, 2, 3]);
    ejections.out.clear();
    expect(b.pick(0, -1, 0, 0)).toBe(0);
    expect(b.pick(0, -1, 0, 0)).toBe(1);
  });

  it('sends a retry to another endpoint than the one that failed', () => {
    const b = new Balancer(['a', 'b']);
    expect(b.pick(0, -1, 0, 0)).toBe(0); // cursor now at b
    expect(b.pick(0, 1, 0, 0)).toBe(0); // b failed: a again rather than b
    expect(b.stats().avoidedPrevious).toBe(1);
  });

  it('retries on the failed endpoint when it is the only one usable', () => {
    const b = new Balancer(['a', 'b'], { panicThreshold: 0 }, ejectedSet(['b']));
    expect(b.pick(0, 0, 0, 0)).toBe(0);
    expect(b.stats().avoidedPrevious).toBe(0);
    const single = new Balancer(['only']);
    expect(single.pick(0, 0, 0, 0)).toBe(0);
  });

  it('ignores an out-of-range previous endpoint', () => {
    const b = new Balancer(['a', 'b']);
    expect(b.pick(0, 7, 0, 0)).toBe(0);
    expect(b.stats().avoidedPrevious).toBe(0);
  });
});

describe('Balancer panic threshold', () => {
  it('uses every endpoint once fewer than the threshold are available (Envoy panic mode)', () => {
    const b = new Balancer(HOSTS, {}, ejectedSet(['a', 'b', 'c'])); // 25 % available < 50 %
    expect(Array.from({ length: 4 }, () => b.pick(0, -1, 0, 0))).toEqual([0, 1, 2, 3]);
    expect(b.stats().panics).toBe(4);
  });

  it('does not panic at exactly the threshold', () => {
    const b = new Balancer(HOSTS, {}, ejectedSet(['a', 'b'])); // 50 % available, not below 50 %
    expect(Array.from({ length: 4 }, () => b.pick(0, -1, 0, 0))).toEqual([2, 3, 2, 3]);
    expect(b.stats().panics).toBe(0);
  });

  it('answers NO_ENDPOINT with every endpoint ejected and panic off', () => {
    const b = new Balancer(HOSTS, { panicThreshold: 0 }, ejectedSet(HOSTS));
    expect(b.pick(0, -1, 0, 0)).toBe(NO_ENDPOINT);
    expect(b.stats()).toEqual({ picks: 0, panics: 0, noEndpoint: 1, avoidedPrevious: 0 });
  });

  it('follows an OutlierDetector: a host failing 5 times in a row is left out', () => {
    const detector = new OutlierDetector({ maxEjectionPercent: 50 });
    detector.addHosts(HOSTS, 0);
    const b = new Balancer(HOSTS, { panicThreshold: 0 }, detector);
    for (let i = 0; i < 5; i++) detector.onResult('c', 503, 1000);
    expect(detector.isEjected('c', 1000)).toBe(true);
    const seen = new Set(Array.from({ length: 9 }, () => b.pick(1000, -1, 0, 0)));
    expect([...seen].sort()).toEqual([0, 1, 3]);
  });
});

describe('Balancer power of two choices', () => {
  it('sends to the less loaded of the two drawn endpoints', () => {
    const b = new Balancer(HOSTS, { kind: 'p2c' });
    b.started(0);
    b.started(0);
    b.started(2);
    // u1 → index 0 (a), u2 → index 3 (d): d has fewer in flight.
    expect(b.pick(0, -1, 0, 0.8)).toBe(3);
    // a (2 in flight) against c (1 in flight): c.
    expect(b.pick(0, -1, 0.1, 0.5)).toBe(2);
    b.ended(0);
    b.ended(0);
    expect(b.load(0)).toBe(0);
    // a (0) against c (1): a.
    expect(b.pick(0, -1, 0.1, 0.5)).toBe(0);
  });

  it('keeps the first draw on a tie (Envoy: strictly fewer replaces the candidate)', () => {
    const b = new Balancer(['a', 'b'], { kind: 'p2c' });
    expect(b.pick(0, -1, 0.9, 0.9)).toBe(1);
    expect(b.pick(0, -1, 0.1, 0.1)).toBe(0);
  });

  it('avoids the failed endpoint and skips ejected ones', () => {
    const b = new Balancer(HOSTS, { kind: 'p2c', panicThreshold: 0 }, ejectedSet(['a']));
    for (let k = 0; k < 50; k++) {
      const u1 = ((k * 7919) % 1000) / 1000;
      const u2 = ((k * 104729) % 1000) / 1000;
      const i = b.pick(0, 1, u1, u2);
      expect([2, 3]).toContain(i);
    }
  });

  it('refuses draws outside [0, 1)', () => {
    const b = new Balancer(HOSTS, { kind: 'p2c' });
    expect(() => b.pick(0, -1, 1, 0)).toThrow(RangeError);
    expect(() => b.pick(0, -1, Number.NaN, 0)).toThrow(RangeError);
    expect(() => b.pick(0, -1, 0, -0.1)).toThrow(RangeError);
  });

  it('ended() never drives a count below zero and ignores unknown indices', () => {
    const b = new Balancer(['a', 'b'], { kind: 'p2c' });
    b.ended(0);
    b.ended(5);
    b.started(-1);
    expect(b.load(0)).toBe(0);
    expect(b.load(5)).toBe(0);
  });
});

describe('Balancer properties', () => {
  const op = fc.record({
    ejected: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    previous: fc.integer({ min: -1, max: 5 }),
    u1: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    u2: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    done: fc.integer({ min: -1, max: 5 }),
  });
  const config = fc.record({
    kind: fc.constantFrom('round-robin' as const, 'p2c' as const),
    panicThreshold: fc.constantFrom(0, 25, 50, 100),
  });

  it('picks a usable endpoint, avoids the failed one when it can, and panics exactly below the threshold', () => {
    let panicked = 0;
    let none = 0;
    let avoided = 0;
    fc.assert(
      fc.property(config, fc.array(op, { minLength: 50, maxLength: 100, size: 'max' }), (cfg, ops) => {
        const hosts = ['a', 'b', 'c', 'd', 'e', 'f'];
        const ejections = ejectedSet();
        const b = new Balancer(hosts, cfg, ejections);
        for (const o of ops) {
          ejections.out = new Set(hosts.filter((_, i) => o.ejected[i]));
          Object.assign(ejections, { isEjected: (h: string) => ejections.out.has(h) });
          const available = hosts.filter((h) => !ejections.out.has(h)).length;
          const panic = available * 100 < cfg.panicThreshold * hosts.length;
          const before = b.stats();
          const i = b.pick(0, o.previous, o.u1, o.u2);
          const after = b.stats();
          expect(after.panics - before.panics).toBe(panic ? 1 : 0);
          if (panic) panicked++;
          if (!panic && available === 0) {
            none++;
            expect(i).toBe(NO_ENDPOINT);
            continue;
          }
          expect(i).toBeGreaterThanOrEqual(0);
          if (!panic) expect(o.ejected[i]).toBe(false);
          const usable = panic ? hosts.length : available;
          const previousUsable = o.previous >= 0 && (panic || !o.ejected[o.previous]);
          if (previousUsable && usable > 1) {
            expect(i).not.toBe(o.previous);
            avoided++;
          }
          b.started(i);
          if (o.done >= 0) b.ended(o.done);
          expect(after.picks - before.picks).toBe(1);
        }
      }),
      { numRuns: 200 },
    );
    // The generator reaches the states the property is about.
    expect(panicked).toBeGreaterThan(0);
    expect(none).toBeGreaterThan(0);
    expect(avoided).toBeGreaterThan(0);
  });

  it('round-robin over a fixed usable set visits each endpoint once per cycle', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 8 }), (mask) => {
        const hosts = mask.map((_, i) => `h${i}`);
        const out = hosts.filter((_, i) => mask[i]);
        const usable = hosts.length - out.length;
        fc.pre(usable > 0);
        const b = new Balancer(hosts, { panicThreshold: 0 }, ejectedSet(out));
        const picks = Array.from({ length: usable * 3 }, () => b.pick(0, -1, 0, 0));
        for (let c = 0; c < 3; c++) {
          const cycle = picks.slice(c * usable, (c + 1) * usable);
          expect(new Set(cycle).size).toBe(usable);
        }
      }),
    );
  });
});
