// GuardPipeline with a pool view: pending only without a free connection (Envoy's conn pool), attempts counted when sent.
import { describe, expect, it } from 'vitest';
import { Balancer } from './balancer.js';
import { ConcurrencyBreaker } from './concurrency.js';
import type { GuardHold } from './hold.js';
import { GuardPipeline, type PoolView } from './pipeline.js';

const NOW = { nowMs: 0 };

function hold(): GuardHold {
  return {
    endpoint: -1,
    breakerPermit: null,
    slot: null,
    retrySlot: null,
    started: false,
    retried: false,
    unsent: false,
    throttleCounted: false,
    refusal: null,
  };
}

/** A pool view with `free` connected connections free: each admitted attempt that takes one uses it up. */
function poolWith(free: number): PoolView & { asked: (string | null)[] } {
  const view = {
    asked: [] as (string | null)[],
    connectionFree(origin: string | null): boolean {
      view.asked.push(origin);
      if (free === 0) return false;
      free--;
      return true;
    },
  };
  return view;
}

function guards(limits: ConcurrencyBreaker, endpoints: string[] = []): GuardPipeline {
  const balancer = endpoints.length === 0 ? null : new Balancer(endpoints, { kind: 'round-robin' }, null);
  return new GuardPipeline({ breaker: null, limits, balancer, outlier: null, pickDraws: null, outlierDraws: null });
}

describe('GuardPipeline: pending means pending', () => {
  it('admits 50 attempts onto 50 free connections with maxPendingRequests 10: request slots, none pending', () => {
    const limits = new ConcurrencyBreaker({ maxPendingRequests: 10 });
    const p = guards(limits);
    const pool = poolWith(50);
    const holds = Array.from({ length: 50 }, hold);
    expect(holds.map((h) => p.admit(h, NOW, 1, pool))).toEqual(Array(50).fill(true));
    expect(limits.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 50, pendingOverflow: 0 });
    // Admitted is not sent: nothing counts in upstream_rq_total until the driver reports the request on its connection.
    expect(p.attempts).toBe(0);
    for (const h of holds) expect(p.sent(h)).toBe(true);
    expect(p.attempts).toBe(50);
  });

  it('still limits pending when no connection is free: the 11th waiting attempt is refused max-pending', () => {
    const limits = new ConcurrencyBreaker({ maxPendingRequests: 10 });
    const p = guards(limits);
    const pool = poolWith(2);
    const admitted = Array.from({ length: 12 }, () => p.admit(hold(), NOW, 1, pool));
    expect(admitted).toEqual(Array(12).fill(true));
    const h = hold();
    expect(p.admit(h, NOW, 1, pool)).toBe(false);
    expect(h.refusal).toBe('max-pending');
    expect(limits.stats()).toMatchObject({ pendingRequests: 10, activeRequests: 2, pendingOverflow: 1 });
  });

  it('asks the pool about the endpoint the balancer picked, or the request origin (null) without a balancer', () => {
    const pool = poolWith(5);
    const p = guards(new ConcurrencyBreaker(), ['http://a:1', 'http://b:2']);
    p.admit(hold(), NOW, 1, pool);
    p.admit(hold(), NOW, 1, pool);
    guards(new ConcurrencyBreaker()).admit(hold(), NOW, 1, pool);
    expect(pool.asked).toEqual(['http://a:1', 'http://b:2', null]);
  });

  it('counts an attempt (and a retry) once, when sent; one ended before it was sent counts nothing', () => {
    const limits = new ConcurrencyBreaker();
    const p = guards(limits);
    const pool = poolWith(0);
    const never = hold();
    expect(p.admit(never, NOW, 1, pool)).toBe(true);
    p.attemptEnded(never, { kind: 'aborted' }, NOW); // e.g. a per-try timeout while it waited for a connection
    expect(p.sent(never)).toBe(true); // a late onConnect of the ended attempt: nothing to count
    const retry = hold();
    expect(p.admit(retry, NOW, 2, pool)).toBe(true);
    expect(p.sent(retry)).toBe(true);
    expect(p.sent(retry)).toBe(true); // twice: counted once
    expect([p.attempts, p.retries]).toEqual([1, 1]);
    expect(limits.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1, pendingCancelled: 1 });
  });

  it('a pending attempt refused at max-requests when it gets its connection is not counted as sent', () => {
    const limits = new ConcurrencyBreaker({ maxRequests: 1 });
    const p = guards(limits);
    const first = hold();
    expect(p.admit(first, NOW, 1, poolWith(1))).toBe(true);
    const waiting = hold();
    expect(p.admit(waiting, NOW, 1, poolWith(0))).toBe(true);
    expect(p.sent(first)).toBe(true);
    expect(p.sent(waiting)).toBe(false);
    expect(waiting.refusal).toBe('max-requests');
    expect(p.attempts).toBe(1);
    expect(limits.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1, activeOverflow: 1 });
  });

  it('without a pool view (simulator, fetch) an admitted attempt takes a request slot and counts as sent at once', () => {
    const limits = new ConcurrencyBreaker({ maxPendingRequests: 0 });
    const p = guards(limits);
    const h = hold();
    expect(p.admit(h, NOW, 1, null)).toBe(true);
    expect(p.attempts).toBe(1);
    expect(h.unsent).toBe(false);
    expect(limits.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1 });
  });
});
