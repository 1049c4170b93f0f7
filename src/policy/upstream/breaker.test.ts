// Unit tests for CircuitBreaker: every transition, the bugs other libraries shipped, bounded memory, config validation.
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { Outcome } from '../core/types.js';
import {
  type BreakerPermit,
  breakerReportOf,
  CircuitBreaker,
  type CircuitBreakerConfig,
  validateCircuitBreakerConfig,
} from './breaker.js';

/** A permit, failing the test if the breaker refused. */
function admit(b: CircuitBreaker, nowMs: number): BreakerPermit {
  const v = b.tryAcquire(nowMs);
  if (!v.allowed) throw new Error(`expected a permit at ${nowMs}, got ${v.reason}`);
  return v;
}

/** A breaker that opens on `failureThreshold` consecutive failures only. */
function consecutive(failureThreshold: number, more: CircuitBreakerConfig = {}): CircuitBreaker {
  return new CircuitBreaker({ failureThreshold, failureRate: false, breakDuration: 1000, ...more });
}

/** Opens `b` (consecutive only, threshold 1) at `nowMs`. */
function openAt(b: CircuitBreaker, nowMs: number): void {
  b.onFailure(admit(b, nowMs), nowMs);
  expect(b.state(nowMs)).toBe('open');
}

describe('opening on consecutive failures', () => {
  it('opens at failureThreshold consecutive failures, not one before', () => {
    const b = consecutive(3);
    for (let i = 0; i < 2; i++) b.onFailure(admit(b, 10), 10);
    expect(b.state(10)).toBe('closed');
    b.onFailure(admit(b, 20), 20);
    expect(b.state(20)).toBe('open');
    expect(b.stats()).toMatchObject({ opened: 1, consecutiveFailures: 0 });
  });

  it('starts the count again after a success', () => {
    const b = consecutive(3);
    for (const ok of [false, false, true, false, false]) {
      const p = admit(b, 0);
      if (ok) b.onSuccess(p, 0);
      else b.onFailure(p, 0);
    }
    expect(b.state(0)).toBe('closed');
    b.onFailure(admit(b, 0), 0);
    expect(b.state(0)).toBe('open');
  });

  it('ignores cancelled calls: they are not outcomes', () => {
    const b = consecutive(2);
    b.onFailure(admit(b, 0), 0);
    b.onCancel(admit(b, 0));
    expect(b.stats().consecutiveFailures).toBe(1);
    b.onFailure(admit(b, 0), 0);
    expect(b.state(0)).toBe('open');
  });
});

describe('opening on the failure rate', () => {
  const rate = (window: CircuitBreakerConfig['failureRate']) =>
    new CircuitBreaker({ failureThreshold: false, failureRate: window, breakDuration: 1000 });
  const run = (b: CircuitBreaker, outcomes: string, nowMs = 0) => {
    for (const o of outcomes) {
      const p = admit(b, nowMs);
      if (o === 'F') b.onFailure(p, nowMs);
      else b.onSuccess(p, nowMs);
    }
  };

  it('waits until the window holds minimumCalls', () => {
    const b = rate({ percent: 50, minimumCalls: 10, window: { kind: 'count', size: 10 } });
    run(b, 'FFFFFFFFF');
    expect(b.state(0)).toBe('closed');
    run(b, 'F');
    expect(b.state(0)).toBe('open');
  });

  it('opens when failures reach exactly percent of the window (resilience4j: equal or greater)', () => {
    const b = rate({ percent: 50, minimumCalls: 10, window: { kind: 'count', size: 10 } });
    run(b, 'SFSFSFSFSF');
    expect(b.state(0)).toBe('open');
  });

  it('stays closed just under percent', () => {
    const b = rate({ percent: 50, minimumCalls: 10, window: { kind: 'count', size: 10 } });
    run(b, 'SSFSSFSSFF');
    expect([b.state(0), b.stats().windowFailures]).toEqual(['closed', 4]);
  });

  it('a count window holds only the last `size` calls', () => {
    const b = rate({ percent: 75, minimumCalls: 4, window: { kind: 'count', size: 4 } });
    run(b, 'SSSSSS');
    run(b, 'FFF'); // last 4: S F F F = 75 %; all 9 calls: 33 %
    expect(b.state(0)).toBe('open');
  });

  it('a time window forgets outcomes older than its duration', () => {
    const b = rate({ percent: 75, minimumCalls: 3, window: { kind: 'time', duration: '1s', buckets: 10 } });
    run(b, 'SSSSSS', 0);
    run(b, 'FFF', 1500); // the successes at 0 left the window at 1000
    expect(b.state(1500)).toBe('open');
  });

  it('a time window keeps outcomes younger than its duration', () => {
    const b = rate({ percent: 75, minimumCalls: 3, window: { kind: 'time', duration: '1s', buckets: 10 } });
    run(b, 'SSSSSS', 0);
    run(b, 'FFF', 850);
    expect([b.state(850), b.stats().windowCalls]).toEqual(['closed', 9]);
  });

  it('starts a fresh window when the circuit closes', () => {
    const b = new CircuitBreaker({
      failureThreshold: false,
      failureRate: { percent: 50, minimumCalls: 4, window: { kind: 'count', size: 4 } },
      breakDuration: 100,
    });
    run(b, 'SSFF');
    expect(b.state(0)).toBe('open');
    b.onSuccess(admit(b, 100), 100);
    expect(b.state(100)).toBe('closed');
    run(b, 'F', 100); // with the old window kept: S F F F → open again
    expect([b.state(100), b.stats().windowCalls]).toEqual(['closed', 1]);
  });
});

describe('open, half-open and back', () => {
  it("rejects 'open' until the break has passed and half-opens exactly then", () => {
    const b = consecutive(1);
    openAt(b, 100);
    expect(b.nextWakeMs()).toBe(1100);
    expect(b.tryAcquire(1099)).toEqual({ allowed: false, reason: 'open' });
    expect(b.state(1099)).toBe('open');
    expect(b.state(1100)).toBe('half-open');
    expect(b.nextWakeMs()).toBe(Infinity);
    expect(b.stats()).toMatchObject({ rejectedOpen: 1, halfOpened: 1 });
  });

  it('admits at most halfOpenMaxProbes at once, never everyone (opossum #119)', () => {
    const b = consecutive(1, { halfOpenMaxProbes: 2 });
    openAt(b, 0);
    const probes = [admit(b, 1000), admit(b, 1000)];
    expect(probes.map((p) => p.probe)).toEqual([true, true]);
    expect(b.tryAcquire(1001)).toEqual({ allowed: false, reason: 'half-open-full' });
    expect(b.stats()).toMatchObject({ probes: 2, probesInFlight: 2, rejectedHalfOpenFull: 1 });
  });

  it('frees the slot of a probe that is cancelled', () => {
    const b = consecutive(1);
    openAt(b, 0);
    expect(b.onCancel(admit(b, 1000))).toBe('counted');
    expect(admit(b, 1001).probe).toBe(true);
  });

  it('closes only after successesToClose probe successes', () => {
    const b = consecutive(1, { successesToClose: 3 });
    openAt(b, 0);
    for (let i = 0; i < 2; i++) b.onSuccess(admit(b, 1000), 1000);
    expect(b.state(1000)).toBe('half-open');
    b.onSuccess(admit(b, 1000), 1000);
    expect(b.state(1000)).toBe('closed');
    expect(b.stats()).toMatchObject({ closedAfterProbes: 1, probeSuccesses: 3 });
  });

  it('re-opens on a probe failure, whatever successes came before', () => {
    const b = consecutive(1, { successesToClose: 3 });
    openAt(b, 0);
    b.onSuccess(admit(b, 1000), 1000);
    b.onFailure(admit(b, 1010), 1010);
    expect([b.state(1010), b.nextWakeMs()]).toEqual(['open', 2010]);
    expect(b.stats()).toMatchObject({ opened: 2, reopened: 1 });
  });

  it('grows the break with each re-open up to maxBreakDuration, and a close resets it', () => {
    const b = consecutive(1, { breakDuration: 100, breakDurationMultiplier: 2, maxBreakDuration: 350 });
    let t = 0;
    openAt(b, t);
    const breaks = [b.stats().breakDurationMs];
    for (let i = 0; i < 3; i++) {
      t = b.nextWakeMs();
      b.onFailure(admit(b, t), t);
      breaks.push(b.nextWakeMs() - t);
    }
    expect(breaks).toEqual([100, 200, 350, 350]);
    t = b.nextWakeMs();
    b.onSuccess(admit(b, t), t);
    openAt(b, t);
    expect(b.nextWakeMs() - t).toBe(100);
  });
});

describe('reports that arrive late or twice (bugs reported against other breakers)', () => {
  it('a failure from a call admitted before the circuit opened does not restart the break (opossum #385)', () => {
    const b = consecutive(2);
    const [p1, p2, late] = [admit(b, 0), admit(b, 0), admit(b, 0)];
    b.onFailure(p1, 10);
    b.onFailure(p2, 20);
    expect(b.nextWakeMs()).toBe(1020);
    expect(b.onFailure(late, 500)).toBe('stale');
    expect(b.nextWakeMs()).toBe(1020);
    expect(b.state(1020)).toBe('half-open');
    expect(b.stats()).toMatchObject({ opened: 1, failures: 3, staleReports: 1 });
  });

  it('a success from a call admitted while closed neither closes a half-open circuit nor frees its slot (Polly #217)', () => {
    const b = consecutive(1);
    const [p, overhang] = [admit(b, 0), admit(b, 0)];
    b.onFailure(p, 0);
    admit(b, 1000); // the one probe
    expect(b.onSuccess(overhang, 1001)).toBe('stale');
    expect(b.state(1001)).toBe('half-open');
    expect(b.tryAcquire(1001)).toEqual({ allowed: false, reason: 'half-open-full' });
  });

  it('a probe of an earlier half-open neither closes the next one nor frees its slots (denoland/std #7306)', () => {
    const b = consecutive(1, { halfOpenMaxProbes: 2 });
    openAt(b, 0);
    const [q1, q2] = [admit(b, 1000), admit(b, 1000)];
    b.onFailure(q1, 1000); // re-open: q2 belongs to the half-open that ended
    admit(b, 2000);
    expect(b.onSuccess(q2, 2000)).toBe('stale');
    expect(b.state(2000)).toBe('half-open');
    admit(b, 2000);
    expect(b.tryAcquire(2000)).toEqual({ allowed: false, reason: 'half-open-full' });
  });

  it('a stale cancel frees no slot of the current half-open', () => {
    const b = consecutive(1);
    const [p, overhang] = [admit(b, 0), admit(b, 0)];
    b.onFailure(p, 0);
    admit(b, 1000);
    expect(b.onCancel(overhang)).toBe('stale');
    expect(b.tryAcquire(1000)).toEqual({ allowed: false, reason: 'half-open-full' });
  });

  it('a permit reported twice counts once', () => {
    const b = consecutive(2);
    const p = admit(b, 0);
    expect(b.onFailure(p, 0)).toBe('counted');
    expect(b.onFailure(p, 0)).toBe('duplicate');
    expect(b.onSuccess(p, 0)).toBe('duplicate');
    expect(b.state(0)).toBe('closed');
    expect(b.stats()).toMatchObject({ failures: 1, successes: 0, duplicateReports: 2, consecutiveFailures: 1 });
  });

  it('a probe reported twice frees one slot only', () => {
    const b = consecutive(1, { halfOpenMaxProbes: 2, successesToClose: 5 });
    openAt(b, 0);
    const q = admit(b, 1000);
    admit(b, 1000);
    b.onCancel(q);
    b.onCancel(q);
    admit(b, 1000);
    expect(b.tryAcquire(1000)).toEqual({ allowed: false, reason: 'half-open-full' });
  });

  it('refuses a permit it did not issue', () => {
    const other = consecutive(1);
    expect(() => consecutive(1).onSuccess(admit(other, 0), 0)).toThrow(/did not issue/);
  });
});

describe('sans-I/O', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sets no timer and reads no clock: only the given nowMs moves it', () => {
    vi.useFakeTimers({ now: 0 });
    const b = consecutive(1);
    openAt(b, 5_000_000);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000_000);
    expect(b.state(5_000_999)).toBe('open');
    expect(b.nextWakeMs()).toBe(5_001_000);
    expect(b.state(5_001_000)).toBe('half-open');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('needs no wake while closed or half-open', () => {
    const b = consecutive(1);
    expect(b.nextWakeMs()).toBe(Infinity);
    openAt(b, 0);
    b.state(1000);
    expect(b.nextWakeMs()).toBe(Infinity);
  });
});

describe('memory', () => {
  it('keeps a fixed number of buckets whatever the traffic', () => {
    const b = new CircuitBreaker({
      failureThreshold: false,
      failureRate: { percent: 100, minimumCalls: 1, window: { kind: 'time', duration: '1s', buckets: 10 } },
    });
    expect(b.windowBytes).toBe(0); // nothing until the first call (issue #25)
    for (let t = 0; t <= 200_000; t++) b.onSuccess(admit(b, t), t);
    expect(b.windowBytes).toBe(160);
    // Only the 10 newest 100 ms buckets count: the current one (1 call so far) and 9 full ones.
    expect(b.stats().windowCalls).toBe(901);
  });

  it('holds no memory per call (the heap does not grow with 2 million calls)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const b = new CircuitBreaker({ failureRate: { window: { kind: 'time', duration: '1h', buckets: 10 } } });
    const c = new CircuitBreaker({ failureRate: { window: { kind: 'count', size: 100 } } });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let t = 0; t < 2_000_000; t++) {
      b.onSuccess(admit(b, t), t);
      c.onSuccess(admit(c, t), t);
    }
    gc();
    // A breaker keeping one number per call would hold 2 × 16 MB more.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8_000_000);
    expect([b.stats().windowCalls, c.stats().windowCalls]).toEqual([2_000_000, 100]);
  });
});

describe('validateCircuitBreakerConfig', () => {
  it('fills in the documented defaults', () => {
    expect(validateCircuitBreakerConfig({}, '', [])).toEqual({
      failureThreshold: 5,
      failureRate: { percent: 50, minimumCalls: 20, window: { kind: 'time', durationMs: 10_000, buckets: 10 } },
      breakDurationMs: 5000,
      breakDurationMultiplier: 1,
      maxBreakDurationMs: 50_000,
      halfOpenMaxProbes: 1,
      successesToClose: 1,
      probeLeaseMs: 5000,
    });
    expect(new CircuitBreaker().config).toEqual(validateCircuitBreakerConfig(undefined, '', []));
  });

  it('accepts every option, durations as strings, and turns a trigger off with false', () => {
    const c = validateCircuitBreakerConfig(
      {
        failureThreshold: false,
        failureRate: { percent: 25, minimumCalls: 4, window: { kind: 'count', size: 8 } },
        breakDuration: '2s',
        breakDurationMultiplier: 1.5,
        maxBreakDuration: '1m',
        halfOpenMaxProbes: 3,
        successesToClose: 2,
      },
      'x',
      [],
    );
    expect(c).toMatchObject({ failureThreshold: Infinity, breakDurationMs: 2000, maxBreakDurationMs: 60_000 });
    expect(c?.failureRate?.window).toEqual({ kind: 'count', size: 8 });
    expect(validateCircuitBreakerConfig({ failureRate: false }, '', [])?.failureRate).toBeNull();
  });

  it.each<[unknown, string, string]>([
    [{ failureThreshold: 0 }, 'failureThreshold', 'must be an integer ≥ 1, or false'],
    [{ failureThreshold: 2.5 }, 'failureThreshold', 'must be an integer ≥ 1, or false'],
    [{ failureThreshold: true }, 'failureThreshold', 'must be an integer ≥ 1, or false'],
    [{ failureRate: 50 }, 'failureRate', 'must be an object such as { percent: 50, minimumCalls: 20 }, or false'],
    [{ failureRate: { percent: 0 } }, 'failureRate.percent', 'must be a number in (0, 100]'],
    [{ failureRate: { percent: 101 } }, 'failureRate.percent', 'must be a number in (0, 100]'],
    [{ failureRate: { minimumCalls: 0 } }, 'failureRate.minimumCalls', 'must be an integer ≥ 1'],
    [{ failureRate: { window: 'time' } }, 'failureRate.window', expect.stringMatching(/^must be an object/)],
    [{ failureRate: { window: { kind: 'sliding' } } }, 'failureRate.window.kind', 'must be "count" or "time"'],
    [
      { failureRate: { window: { kind: 'count', size: 0 } } },
      'failureRate.window.size',
      'must be an integer from 1 to 10000',
    ],
    [{ failureRate: { window: { kind: 'count', size: 10_001 } } }, 'failureRate.window.size', expect.any(String)],
    [{ failureRate: { window: { kind: 'time', buckets: 0 } } }, 'failureRate.window.buckets', expect.any(String)],
    [
      { failureRate: { window: { kind: 'time', duration: '5ms' } } },
      'failureRate.window.duration',
      'must be at least 1ms per bucket',
    ],
    [
      { failureRate: { window: { kind: 'time', duration: 'soon' } } },
      'failureRate.window.duration',
      expect.any(String),
    ],
    [{ failureRate: { window: { kind: 'count', buckets: 3 } } }, 'failureRate.window.buckets', 'unknown key'],
    [{ breakDuration: 0 }, 'breakDuration', 'must be longer than 0'],
    [{ breakDuration: '-1s' }, 'breakDuration', expect.any(String)],
    [{ breakDurationMultiplier: 0.5 }, 'breakDurationMultiplier', 'must be a number in [1, 100]'],
    [{ breakDuration: '10s', maxBreakDuration: '5s' }, 'maxBreakDuration', 'must be at least breakDuration'],
    [{ halfOpenMaxProbes: 0 }, 'halfOpenMaxProbes', 'must be an integer ≥ 1'],
    [{ successesToClose: 1.5 }, 'successesToClose', 'must be an integer ≥ 1'],
    [{ failureTreshold: 3 }, 'failureTreshold', 'unknown key; did you mean failureThreshold?'],
    [{ failureThreshold: false, failureRate: false }, '', expect.stringMatching(/never opens/)],
  ])('rejects %j at its path', (input, path, message) => {
    const issues: ConfigIssue[] = [];
    expect(validateCircuitBreakerConfig(input, '', issues)).toBeUndefined();
    expect(issues).toEqual([{ path, message }]);
  });

  it('prefixes paths and reports every problem at once', () => {
    const issues: ConfigIssue[] = [];
    validateCircuitBreakerConfig({ failureThreshold: 0, halfOpenMaxProbes: 0 }, 'edges.bff.breaker', issues);
    expect(issues.map((i) => i.path)).toEqual([
      'edges.bff.breaker.failureThreshold',
      'edges.bff.breaker.halfOpenMaxProbes',
    ]);
    expect(validateCircuitBreakerConfig(null, 'b', [])).toBeUndefined();
  });

  it('throws one ConfigError from the constructor', () => {
    expect(() => new CircuitBreaker({ failureThreshold: 0, successesToClose: 0 })).toThrow(ConfigError);
    expect(() => new CircuitBreaker({ failureThreshold: 0 })).toThrow('failureThreshold: must be an integer ≥ 1');
  });
});

describe('breakerReportOf', () => {
  it.each<[Outcome, string]>([
    [{ kind: 'response', status: 200 }, 'success'],
    [{ kind: 'response', status: 404 }, 'success'],
    [{ kind: 'response', status: 429 }, 'success'],
    [{ kind: 'response', status: 499 }, 'success'],
    [{ kind: 'response', status: 500 }, 'failure'],
    [{ kind: 'response', status: 503 }, 'failure'],
    [{ kind: 'connect-failure' }, 'failure'],
    [{ kind: 'reset' }, 'failure'],
    [{ kind: 'timeout' }, 'failure'],
    [{ kind: 'aborted' }, 'cancel'],
    [{ kind: 'shed-locally' }, 'cancel'],
    [{ kind: 'local-error' }, 'cancel'],
  ])('reports %j as %s', (outcome, report) => {
    expect(breakerReportOf(outcome)).toBe(report);
  });
});
