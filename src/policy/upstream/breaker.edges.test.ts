// Tests written for the survivors of the breaker's mutation run (issue #12): each pins a behaviour a mutant changed unseen.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import {
  BREAKER_TRANSITIONS,
  type BreakerPermit,
  CircuitBreaker,
  type CircuitBreakerConfig,
  validateCircuitBreakerConfig,
} from './breaker.js';

function admit(b: CircuitBreaker, nowMs: number): BreakerPermit {
  const v = b.tryAcquire(nowMs);
  if (!v.allowed) throw new Error(`expected a permit at ${nowMs}, got ${v.reason}`);
  return v;
}

/** Reports one call per letter (F: failure, S: success), all at `nowMs`. */
function run(b: CircuitBreaker, outcomes: string, nowMs: number): void {
  for (const o of outcomes) {
    const p = admit(b, nowMs);
    if (o === 'F') b.onFailure(p, nowMs);
    else b.onSuccess(p, nowMs);
  }
}

/** Opens on the rate only: `percent` over at least `minimumCalls` calls of a 1s window in 10 buckets of 100 ms. */
function timeWindowed(percent: number, minimumCalls: number, more: CircuitBreakerConfig = {}): CircuitBreaker {
  return new CircuitBreaker({
    failureThreshold: false,
    failureRate: { percent, minimumCalls, window: { kind: 'time', duration: '1s', buckets: 10 } },
    breakDuration: 5000,
    ...more,
  });
}

function issuesOf(input: unknown, path = ''): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  validateCircuitBreakerConfig(input, path, issues);
  return issues;
}

describe('the time window and the clock the driver gives', () => {
  it('a report whose clock reads earlier than one already seen counts in the newest bucket and forgets nothing', () => {
    const b = timeWindowed(50, 4);
    run(b, 'F', 500);
    run(b, 'F', 900);
    run(b, 'S', 100); // a clock stepping back: counted, and the failures at 500 and 900 stay in the window
    expect([b.state(900), b.stats().windowCalls, b.stats().windowFailures]).toEqual(['closed', 3, 2]);
    run(b, 'F', 950); // 3 failures of 4 calls
    expect(b.state(950)).toBe('open');
  });

  it('a clock reading that is not finite neither half-opens a closed circuit nor moves its window', () => {
    const b = timeWindowed(75, 3);
    expect([b.state(Number.POSITIVE_INFINITY), b.state(Number.NaN), b.state(Number.NEGATIVE_INFINITY)]).toEqual([
      'closed',
      'closed',
      'closed',
    ]);
    run(b, 'SSSSSS', 0);
    b.state(Number.POSITIVE_INFINITY);
    expect(b.stats()).toMatchObject({ state: 'closed', generation: 0, windowCalls: 6 });
    run(b, 'FFF', 1500); // the successes at 0 left the window at 1000, as with a clock that never read Infinity
    expect([b.state(1500), b.stats().opened]).toEqual(['open', 1]);
  });

  it('a failure reported with a clock that is not finite opens for the break from the last clock reading', () => {
    const b = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 1000 });
    const p = admit(b, 100);
    b.onCancel(admit(b, 100)); // a cancel reads no clock
    expect(b.onFailure(p, Number.NaN)).toBe('counted');
    expect([b.state(1099), b.nextWakeMs()]).toEqual(['open', 1100]);
    expect(b.state(1100)).toBe('half-open');
  });

  it('the window gauges drop old calls as time passes while closed, without a new call', () => {
    const b = timeWindowed(100, 100);
    run(b, 'SFS', 0);
    expect(b.stats()).toMatchObject({ windowCalls: 3, windowFailures: 1 });
    expect(b.state(1500)).toBe('closed');
    expect(b.stats()).toMatchObject({ windowCalls: 0, windowFailures: 0 });
  });

  it('while open, a time window keeps the calls that opened the circuit (as a count window does) until it closes', () => {
    const b = timeWindowed(50, 4);
    run(b, 'SSFF', 0);
    expect(b.state(2500)).toBe('open'); // the window's 1s has long passed
    expect(b.stats()).toMatchObject({ windowCalls: 4, windowFailures: 2 });
    expect(b.state(5000)).toBe('half-open');
    expect(b.state(7000)).toBe('half-open');
    expect(b.stats()).toMatchObject({ windowCalls: 4, windowFailures: 2 });
    b.onSuccess(admit(b, 7000), 7000);
    expect(b.stats()).toMatchObject({ state: 'closed', windowCalls: 0, windowFailures: 0 });
  });
});

describe('stats and memory', () => {
  it('counts a failed probe in probeFailures and a successful one in probeSuccesses', () => {
    const b = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 100, successesToClose: 2 });
    run(b, 'F', 0);
    run(b, 'SF', 100);
    expect(b.stats()).toMatchObject({ probes: 2, probeSuccesses: 1, probeFailures: 1, reopened: 1, probesInFlight: 0 });
  });

  it('a probe failure leaves the next half-open all its probe slots', () => {
    const b = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 100, halfOpenMaxProbes: 2 });
    run(b, 'F', 0);
    const q = admit(b, 100);
    b.onFailure(admit(b, 100), 100); // re-opens while q is still out
    expect(b.onSuccess(q, 150)).toBe('stale');
    const [first, second] = [admit(b, 200), admit(b, 200)];
    expect([first.probe, second.probe, b.tryAcquire(200)]).toEqual([
      true,
      true,
      { allowed: false, reason: 'half-open-full' },
    ]);
  });

  it('holds no window memory when the failure rate is off, and at most 16 bytes a bucket at the largest windows allowed', () => {
    expect(new CircuitBreaker({ failureRate: false }).windowBytes).toBe(0);
    const byCalls = new CircuitBreaker({ failureRate: { window: { kind: 'count', size: 10_000 } } });
    const byTime = new CircuitBreaker({ failureRate: { window: { kind: 'time', duration: '1s', buckets: 1000 } } });
    expect([byCalls.windowBytes, byTime.windowBytes]).toEqual([0, 0]); // grown on use (issue #25)
    for (let t = 0; t < 10_000; t++) {
      byCalls.onSuccess(admit(byCalls, t), t);
      byTime.onSuccess(admit(byTime, t), t);
    }
    expect([byCalls.windowBytes, byTime.windowBytes]).toEqual([160_000, 16_000]);
  });
});

describe('the transition table', () => {
  it('says in words what every row does, and names the setting behind each conditional transition', () => {
    for (const [state, events] of Object.entries(BREAKER_TRANSITIONS)) {
      for (const [event, { to, rule }] of Object.entries(events)) {
        expect(rule.length, `${state} ${event}`).toBeGreaterThan(5);
        if (to.length === 0) expect(rule, `${state} ${event}`).toMatch(/^cannot happen/);
      }
    }
    expect(BREAKER_TRANSITIONS.closed.failure.rule).toMatch(/failureThreshold.*percent.*minimumCalls/);
    expect(BREAKER_TRANSITIONS['half-open'].acquire.rule).toMatch(/halfOpenMaxProbes.*'half-open-full'/);
    expect(BREAKER_TRANSITIONS['half-open'].success.rule).toMatch(/successesToClose/);
    expect(BREAKER_TRANSITIONS['half-open'].failure.rule).toMatch(/breakDurationMultiplier.*maxBreakDuration/);
    expect(BREAKER_TRANSITIONS.open.time.rule).toMatch(/nextWakeMs/);
  });
});

describe('validateCircuitBreakerConfig at its bounds, with the path and message of each refusal', () => {
  it('the constructor throws a ConfigError listing exactly the problems found, at their root-level paths', () => {
    let thrown: unknown;
    try {
      new CircuitBreaker({ failureThreshold: 0, successesToClose: 0 });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).issues).toEqual([
      { path: 'failureThreshold', message: 'must be an integer ≥ 1, or false' },
      { path: 'successesToClose', message: 'must be an integer ≥ 1' },
    ]);
    expect(() => new CircuitBreaker(null as never)).toThrow(
      '(root): must be an object such as { failureThreshold: 5, breakDuration: "5s" }',
    );
  });

  it('refuses a config that is not an object at its own path', () => {
    for (const input of [null, [], 'fast', 5]) {
      expect(issuesOf(input, 'edges.bff.breaker')).toEqual([
        {
          path: 'edges.bff.breaker',
          message: 'must be an object such as { failureThreshold: 5, breakDuration: "5s" }',
        },
      ]);
    }
  });

  it('ignores a key, known or not, whose value is undefined (as a spread of optional settings leaves them)', () => {
    expect(issuesOf({ failureTreshold: undefined, failureRate: { percnt: undefined } })).toEqual([]);
    expect(issuesOf({ failureRate: { window: { kind: 'count', buckets: undefined } } })).toEqual([]);
  });

  it('accepts the largest window size and bucket count, and refuses one more with the range in the message', () => {
    const window = (w: unknown) => validateCircuitBreakerConfig({ failureRate: { window: w } }, '', [])?.failureRate;
    expect(window({ kind: 'count', size: 10_000 })?.window).toEqual({ kind: 'count', size: 10_000 });
    expect(window({ kind: 'time', duration: '1s', buckets: 1000 })?.window).toEqual({
      kind: 'time',
      durationMs: 1000,
      buckets: 1000,
    });
    expect(issuesOf({ failureRate: { window: { kind: 'time', duration: '2s', buckets: 1001 } } })).toEqual([
      { path: 'failureRate.window.buckets', message: 'must be an integer from 1 to 1000' },
    ]);
  });

  it('resolves a time window to its kind, milliseconds and buckets', () => {
    const c = validateCircuitBreakerConfig(
      { failureRate: { window: { kind: 'time', duration: '2s', buckets: 4 } } },
      '',
      [],
    );
    expect(c?.failureRate?.window).toEqual({ kind: 'time', durationMs: 2000, buckets: 4 });
  });

  it('refuses a window kind that is not a string, even one that prints as a kind', () => {
    expect(issuesOf({ failureRate: { window: { kind: ['count'], size: 5 } } })).toEqual([
      { path: 'failureRate.window.kind', message: 'must be "count" or "time"' },
    ]);
  });

  it('refuses a percent or a break multiplier given as a string of digits', () => {
    expect(issuesOf({ failureRate: { percent: '50' } })).toEqual([
      { path: 'failureRate.percent', message: 'must be a number in (0, 100]' },
    ]);
    expect(issuesOf({ breakDurationMultiplier: '2' })).toEqual([
      { path: 'breakDurationMultiplier', message: 'must be a number in [1, 100]' },
    ]);
  });

  it('accepts a break multiplier of exactly 100 and refuses just over', () => {
    expect(validateCircuitBreakerConfig({ breakDurationMultiplier: 100 }, '', [])?.breakDurationMultiplier).toBe(100);
    expect(issuesOf({ breakDurationMultiplier: 100.5 })).toEqual([
      { path: 'breakDurationMultiplier', message: 'must be a number in [1, 100]' },
    ]);
  });

  it('an unreadable maxBreakDuration is one issue at its path, not also "must be at least breakDuration"', () => {
    expect(issuesOf({ maxBreakDuration: 'soon' }, 'b')).toEqual([
      { path: 'b.maxBreakDuration', message: 'must be a duration like 800ms or 2s, got "soon"' },
    ]);
  });
});
