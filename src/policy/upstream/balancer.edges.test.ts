// Tests written for the survivors of the balancer's mutation run (reports/mutation-12): each pins a behaviour a mutant
// changed unseen.
import { describe, expect, it } from 'vitest';
import type { ConfigIssue } from '../core/config-error.js';
import {
  Balancer,
  type EjectionSource,
  MAX_BALANCER_ENDPOINTS,
  NO_ENDPOINT,
  resolveLoadBalancerConfig,
  validateLoadBalancerConfig,
} from './balancer.js';

/** Ejects a fixed set of hosts. */
function ejected(...hosts: string[]): EjectionSource {
  return { isEjected: (host) => hosts.includes(host) };
}

/**
 * Runs one p2c pick per cell of an even grid of draws: u1 and u2 each at the middle of each of `count` equal bins
 * (Envoy draws with replacement, so the diagonal, both draws on one endpoint, is a cell too). Answers how many picks
 * each endpoint won.
 */
function winsOverGrid(b: Balancer, count: number, previous: number): number[] {
  const wins = b.endpoints.map(() => 0);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < count; j++) {
      const chosen = b.pick(0, previous, (i + 0.5) / count, (j + 0.5) / count);
      wins[chosen] = (wins[chosen] as number) + 1;
    }
  }
  return wins;
}

describe('load-balancer config', () => {
  it('reads a null config (an empty YAML key) as the defaults', () => {
    expect(resolveLoadBalancerConfig(null)).toEqual({ kind: 'round-robin', panicThreshold: 50 });
    expect(new Balancer(['a', 'b'], null as never).config).toEqual({ kind: 'round-robin', panicThreshold: 50 });
  });

  it('names the kinds it knows and the panic threshold’s range in its messages', () => {
    const issues: ConfigIssue[] = [];
    expect(validateLoadBalancerConfig({ kind: 'random', panicThreshold: 150 }, 'lb', issues)).toBeUndefined();
    expect(issues).toEqual([
      { path: 'lb.kind', message: 'must be one of round-robin, p2c' },
      { path: 'lb.panicThreshold', message: 'must be a percentage from 0 to 100' },
    ]);
  });
});

describe('the endpoint list', () => {
  it('says why an empty list is refused', () => {
    expect(() => new Balancer([])).toThrow(new RangeError('a balancer needs endpoints'));
  });

  it('accepts exactly MAX_BALANCER_ENDPOINTS endpoints and uses the last one', () => {
    const hosts = Array.from({ length: MAX_BALANCER_ENDPOINTS }, (_, i) => `h${i}`);
    const b = new Balancer(hosts);
    expect(b.endpoints).toHaveLength(10_000);
    let last = NO_ENDPOINT;
    for (let i = 0; i < MAX_BALANCER_ENDPOINTS; i++) last = b.pick(0, -1, 0, 0);
    expect(last).toBe(MAX_BALANCER_ENDPOINTS - 1);
  });
});

describe('no endpoint', () => {
  it('is answered as -1, which names no endpoint and which started() and ended() ignore', () => {
    expect(NO_ENDPOINT).toBe(-1);
    const b = new Balancer(['a', 'b'], { panicThreshold: 0 }, ejected('a', 'b'));
    expect(b.pick(0, -1, 0, 0)).toBe(-1);
    b.started(-1);
    b.ended(-1);
    expect([b.load(0), b.load(1)]).toEqual([0, 0]);
  });
});

describe('power of two choices', () => {
  it('draws every ordered pair of endpoints (both draws on one included) equally often; the less loaded wins', () => {
    const b = new Balancer(['a', 'b', 'c', 'd'], { kind: 'p2c' });
    // Loads 0, 3, 2, 1: a is the least loaded, then d, then c, then b.
    for (const [index, load] of [0, 3, 2, 1].entries()) for (let k = 0; k < load; k++) b.started(index);
    // The grid gives each of the 16 ordered pairs once: an endpoint wins the pair drawing it twice, and the 2 pairs it
    // forms with each more loaded one (Envoy's unweightedHostPick: b, the busiest, still wins when drawn twice).
    expect(winsOverGrid(b, 4, -1)).toEqual([7, 1, 3, 5]);
  });

  it('a retry whose failed endpoint is ejected still draws from every usable endpoint alike', () => {
    const b = new Balancer(['a', 'b', 'c', 'd'], { kind: 'p2c' }, ejected('a'));
    // Equal loads: the first draw wins, so each of b, c and d wins the 3 cells of its u1 bin.
    expect(winsOverGrid(b, 3, 0)).toEqual([0, 3, 3, 3]);
  });

  it('refuses a bad draw even when only one endpoint is usable, or none', () => {
    const one = new Balancer(['a', 'b'], { kind: 'p2c', panicThreshold: 0 }, ejected('b'));
    expect(one.pick(0, -1, 0.5, 0.5)).toBe(0);
    expect(() => one.pick(0, -1, 0.5, 1)).toThrow(new RangeError('a draw must be in [0, 1), got 1'));
    expect(() => one.pick(0, -1, Number.NaN, 0.5)).toThrow(new RangeError('a draw must be in [0, 1), got NaN'));
    const none = new Balancer(['a'], { kind: 'p2c', panicThreshold: 0 }, ejected('a'));
    expect(() => none.pick(0, -1, 0, -0.5)).toThrow(new RangeError('a draw must be in [0, 1), got -0.5'));
  });

  it('round-robin never reads the draws', () => {
    const b = new Balancer(['a', 'b']);
    expect([b.pick(0, -1, Number.NaN, 7), b.pick(0, -1, 1, -1)]).toEqual([0, 1]);
  });
});
