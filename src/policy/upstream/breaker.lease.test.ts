// The half-open probe's lease (issue #25): a probe out longer than probeLease is a failed probe, so a hung one frees the breaker.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import { type BreakerPermit, CircuitBreaker, type CircuitBreakerConfig } from './breaker.js';

function admit(b: CircuitBreaker, nowMs: number): BreakerPermit {
  const v = b.tryAcquire(nowMs);
  if (!v.allowed) throw new Error(`expected a permit at ${nowMs}, got ${v.reason}`);
  return v;
}

/** Opens on one failure at 0; breaks 1 s, so it half-opens at 1000. */
function openedAt0(more: CircuitBreakerConfig = {}): CircuitBreaker {
  const b = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 1000, ...more });
  b.onFailure(admit(b, 0), 0);
  return b;
}

describe('probe lease', () => {
  it('re-opens when a probe is not reported within its lease (the break by default), so later calls get a probe', () => {
    const b = openedAt0();
    expect(b.config.probeLeaseMs).toBe(1000);
    const hung = admit(b, 1000);
    expect(hung.probe).toBe(true);
    expect(b.nextWakeMs()).toBe(2000); // the lease's end
    expect(b.tryAcquire(1999)).toEqual({ allowed: false, reason: 'half-open-full' });
    // At the lease's end the probe counts as failed: open for another break, from the lease's end.
    expect(b.tryAcquire(2000)).toEqual({ allowed: false, reason: 'open' });
    expect(b.stats()).toMatchObject({ state: 'open', reopened: 1, probesExpired: 1, probesInFlight: 0, inFlight: 1 });
    expect(b.nextWakeMs()).toBe(3000);
    const next = admit(b, 3000);
    expect(next.probe).toBe(true);
    expect(b.onSuccess(next, 3010)).toBe('counted');
    expect(b.state(3010)).toBe('closed');
    // The hung probe answering at last changes nothing: its generation is gone.
    expect(b.onSuccess(hung, 3020)).toBe('stale');
    expect(b.stats()).toMatchObject({ state: 'closed', inFlight: 0, staleReports: 1, probeSuccesses: 1 });
  });

  it('takes probeLease when given, and counts the expiry from the lease end however late it is seen', () => {
    const b = openedAt0({ probeLease: 250, breakDurationMultiplier: 2 });
    admit(b, 1000);
    // Seen only at 1250 + 2000 (the grown break): the circuit has half-opened again already.
    expect(b.state(3250)).toBe('half-open');
    expect(b.stats()).toMatchObject({ reopened: 1, probesExpired: 1, breakDurationMs: 2000, halfOpened: 2 });
    expect(admit(b, 3250).probe).toBe(true);
  });

  it('ends with its probe: a probe reported in time, or cancelled, leaves no lease behind', () => {
    const b = openedAt0({ halfOpenMaxProbes: 2, successesToClose: 2, probeLease: 500 });
    const first = admit(b, 1000);
    const second = admit(b, 1200);
    expect(b.nextWakeMs()).toBe(1500);
    b.onSuccess(first, 1100);
    expect(b.nextWakeMs()).toBe(1700);
    expect(b.state(1600)).toBe('half-open');
    b.onCancel(second);
    expect(b.nextWakeMs()).toBe(Infinity);
    expect(b.state(5000)).toBe('half-open');
    expect(b.stats()).toMatchObject({ probesExpired: 0, reopened: 0 });
  });

  it('expires a probe that reports after its lease: the report is stale and the circuit re-opened', () => {
    const b = openedAt0();
    const late = admit(b, 1000);
    expect(b.onSuccess(late, 2500)).toBe('stale');
    expect(b.stats()).toMatchObject({ state: 'open', probesExpired: 1, probeSuccesses: 0, closedAfterProbes: 0 });
  });

  it('never expires calls admitted while closed (no lease outside half-open)', () => {
    const b = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 10 });
    const slow = admit(b, 0);
    expect(b.state(1_000_000)).toBe('closed');
    expect(b.onSuccess(slow, 1_000_000)).toBe('counted');
  });

  it('refuses a lease that is not a positive duration, by its path', () => {
    for (const probeLease of [0, -1, 'soon', Number.POSITIVE_INFINITY]) {
      expect(() => new CircuitBreaker({ probeLease } as unknown as CircuitBreakerConfig)).toThrow(ConfigError);
      try {
        new CircuitBreaker({ probeLease } as unknown as CircuitBreakerConfig);
      } catch (error) {
        expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['probeLease']);
      }
    }
    expect(new CircuitBreaker({ probeLease: '30s' }).config.probeLeaseMs).toBe(30_000);
  });
});
