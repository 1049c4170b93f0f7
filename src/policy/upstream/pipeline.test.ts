// GuardPipeline: the one admission order (breaker -> pick -> limits -> retry slot), what follows an outcome, wake times.
import { describe, expect, it } from 'vitest';
import { LoadShedder } from '../admission/shed.js';
import { createRandom, type Random } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import { RetryPolicy } from '../retry/retry.js';
import { Balancer } from './balancer.js';
import { CircuitBreaker } from './breaker.js';
import { ConcurrencyBreaker, type ConcurrencyBreakerConfig } from './concurrency.js';
import type { GuardHold } from './hold.js';
import { OutlierDetector } from './outlier.js';
import { GuardPipeline, type GuardTime, RETRY_REFUSED, RETRY_STOPPED } from './pipeline.js';

const FAILED: Outcome = { kind: 'response', status: 503 };
const OK: Outcome = { kind: 'response', status: 200 };
const ENDPOINTS = ['a', 'b', 'c'];

/** The time as the pipeline takes it (GuardTime). */
const at = (nowMs: number): GuardTime => ({ nowMs });

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

/** A p2c draw stream that counts its draws. */
function countingDraws(): Random & { draws: number } {
  const inner = createRandom(7);
  const r = {
    draws: 0,
    next() {
      r.draws++;
      return inner.next();
    },
    nextUint32: () => inner.nextUint32(),
    fork: (name: string) => inner.fork(name),
  };
  return r as unknown as Random & { draws: number };
}

interface Setup {
  breaker?: CircuitBreaker | null;
  limits?: ConcurrencyBreakerConfig | null;
  outlier?: OutlierDetector | null;
  panicThreshold?: number;
}

function pipeline(s: Setup = {}) {
  const outlier = s.outlier ?? null;
  const balancer = new Balancer(ENDPOINTS, { kind: 'p2c', panicThreshold: s.panicThreshold ?? 50 }, outlier);
  const draws = countingDraws();
  const limits = s.limits == null ? null : new ConcurrencyBreaker(s.limits);
  outlier?.addHosts(ENDPOINTS, 0);
  const p = new GuardPipeline({
    breaker: s.breaker ?? null,
    limits,
    balancer,
    outlier,
    pickDraws: draws,
    outlierDraws: createRandom(3),
  });
  return { p, balancer, draws, limits };
}

/** A breaker opened at `atMs` by one failure (breakDuration 1 s). */
function openBreaker(atMs: number): CircuitBreaker {
  const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 1000 });
  const permit = breaker.tryAcquire(atMs);
  if (!permit.allowed) throw new Error('closed breaker refused');
  breaker.onFailure(permit, atMs);
  return breaker;
}

describe('GuardPipeline admission order: breaker -> endpoint pick -> limits', () => {
  it('asks an open breaker first: the balancer is not asked (no pick, no draw) and no limit slot is taken', () => {
    const { p, balancer, draws, limits } = pipeline({ breaker: openBreaker(0), limits: { maxRequests: 10 } });
    const h = hold();
    for (let attempt = 1; attempt <= 3; attempt++) expect(p.admit(h, at(10), attempt, null)).toBe(false);
    expect(h.refusal).toBe('breaker-open');
    expect(balancer.stats().picks).toBe(0);
    expect(draws.draws).toBe(0);
    expect(limits?.stats().requestsTotal).toBe(0);
    expect(p.refused['breaker-open']).toBe(3);
    expect([p.attempts, p.retries]).toEqual([0, 0]);
  });

  it('picks before the limits: with every endpoint ejected the limits are never asked, the breaker permit is handed back', () => {
    const outlier = new OutlierDetector({ consecutive5xx: 1, maxEjectionPercent: 100, interval: 10_000 });
    const breaker = new CircuitBreaker({ failureThreshold: 100, failureRate: false });
    const { p, limits } = pipeline({ breaker, outlier, limits: { maxRequests: 10 }, panicThreshold: 0 });
    for (const host of ENDPOINTS) outlier.onResult(host, FAILED, 0, 0);
    const h = hold();
    expect(p.admit(h, at(1), 1, null)).toBe(false);
    expect(h.refusal).toBe('no-healthy-endpoint');
    expect(limits?.stats().requestsTotal).toBe(0);
    expect(breaker.stats()).toMatchObject({ cancelled: 1, inFlight: 0 });
  });

  it('refused by the limits after the pick: the breaker permit is cancelled and the balancer counts nothing in flight', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5, failureRate: false });
    const { p, balancer } = pipeline({ breaker, limits: { maxRequests: 0 } });
    const h = hold();
    expect(p.admit(h, at(1), 1, null)).toBe(false);
    expect(h.refusal).toBe('max-requests');
    expect(balancer.stats().picks).toBe(1);
    expect(ENDPOINTS.map((_, i) => balancer.load(i))).toEqual([0, 0, 0]);
    expect(breaker.stats()).toMatchObject({ cancelled: 1, inFlight: 0 });
    expect(h.breakerPermit).toBeNull();
  });

  it('admits through all three, counts the attempt and the retry, and a retry avoids the endpoint that failed', () => {
    const { p, balancer } = pipeline({ breaker: new CircuitBreaker(), limits: { maxRequests: 10 } });
    const h = hold();
    expect(p.admit(h, at(1), 1, null)).toBe(true);
    const first = h.endpoint;
    expect(balancer.load(first)).toBe(1);
    p.attemptEnded(h, FAILED, at(2));
    expect(p.admit(h, at(3), 2, null)).toBe(true);
    expect(h.endpoint).not.toBe(first);
    expect([p.attempts, p.retries]).toEqual([2, 1]);
    expect(balancer.stats().avoidedPrevious).toBe(1);
  });
});

describe('GuardPipeline after an outcome', () => {
  function retryCall(maxAttempts = 3) {
    const policy = new RetryPolicy(
      { budget: false, maxAttempts, backoff: 'none', retryOn: [503] },
      { random: createRandom(1) },
    );
    const call = policy.start(0);
    return call;
  }

  it('reports the end to the breaker, the detector and the balancer, frees the slot, then takes a retry slot', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5, failureRate: false });
    const outlier = new OutlierDetector({ consecutive5xx: 1, maxEjectionPercent: 100 });
    const { p, balancer, limits } = pipeline({ breaker, outlier, limits: { maxRequests: 10, maxRetries: 1 } });
    const h = hold();
    const call = retryCall();
    call.beginAttemptMs(0);
    expect(p.admit(h, at(0), call.attempts, null)).toBe(true);
    const host = ENDPOINTS[h.endpoint] as string;
    expect(p.afterOutcome(h, call, FAILED, at(5), 5)).toBe(0); // retry now (no backoff)
    expect(breaker.stats()).toMatchObject({ failures: 1, inFlight: 0 });
    expect(outlier.isEjected(host, 5)).toBe(true);
    expect(balancer.load(h.endpoint)).toBe(0);
    expect(limits?.stats()).toMatchObject({ activeRequests: 0, activeRetries: 1 });
    // The retry's attempt ends: its max_retries slot goes with it.
    call.beginAttemptMs(5);
    expect(p.admit(h, at(5), call.attempts, null)).toBe(true);
    expect(p.afterOutcome(h, call, OK, at(6), 6)).toBe(RETRY_STOPPED);
    expect(call.stopReason).toBe('succeeded');
    expect(limits?.stats()).toMatchObject({ activeRequests: 0, activeRetries: 0, doubleReleases: 0 });
  });

  it('a retry over max_retries is refused: the call ends budget-exhausted, counted as a max-retries refusal', () => {
    const { p, limits } = pipeline({ limits: { maxRetries: 0 } });
    const h = hold();
    const call = retryCall();
    call.beginAttemptMs(0);
    expect(p.admit(h, at(0), call.attempts, null)).toBe(true);
    expect(p.afterOutcome(h, call, FAILED, at(1), 1)).toBe(RETRY_REFUSED);
    expect(call.stopReason).toBe('budget-exhausted');
    expect(h.refusal).toBe('max-retries');
    expect(p.refused['max-retries']).toBe(1);
    expect(limits?.stats().activeRetries).toBe(0);
  });

  it('a refused attempt reports nothing to the detector or balancer, and the call ending twice releases once', () => {
    const outlier = new OutlierDetector({ consecutive5xx: 1 });
    const { p, balancer } = pipeline({ breaker: openBreaker(0), outlier });
    const h = hold();
    expect(p.admit(h, at(1), 1, null)).toBe(false);
    p.attemptEnded(h, { kind: 'shed-locally' }, at(1));
    p.callEnded(h, at(1));
    p.callEnded(h, at(1));
    expect(outlier.stats().ejectionsActive).toBe(0);
    expect(ENDPOINTS.map((_, i) => balancer.load(i))).toEqual([0, 0, 0]);
  });
});

describe('GuardPipeline wake times (poll_timeout)', () => {
  it('wakes for the detector sweep, and earlier for the end of an open breaker break', () => {
    const outlier = new OutlierDetector({ interval: 10_000 });
    const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: 1000 });
    const { p } = pipeline({ breaker, outlier });
    expect(p.nextWakeAt(0)).toBe(10_000);
    const h = hold();
    expect(p.admit(h, at(100), 1, null)).toBe(true);
    p.attemptEnded(h, FAILED, at(200)); // opens the breaker until 1200
    expect(breaker.state(200)).toBe('open');
    expect(p.nextWakeAt(200)).toBe(1200);
    p.wake(1200);
    expect(breaker.state(1200)).toBe('half-open');
    expect(p.nextWakeAt(1200)).toBe(10_000);
    p.wake(9_999);
    expect(outlier.stats().sweeps).toBe(0);
    p.wake(10_000);
    expect(outlier.stats().sweeps).toBe(1);
    expect(p.nextWakeAt(10_000)).toBe(20_000);
  });

  it('never needs waking without a detector or an open breaker', () => {
    expect(pipeline({ breaker: new CircuitBreaker() }).p.nextWakeAt(0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('LoadShedder.nextWakeMs', () => {
  it('is the deadline of the oldest queued request with dropExpired, else Infinity', () => {
    const s = new LoadShedder<string>({ workers: 1, queueLimit: 10, dropExpired: true });
    expect(s.admit(0, null, 'busy').verdict).toBe('run');
    expect(s.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
    s.admit(1, 500, 'old');
    s.admit(2, 300, 'young');
    expect(s.nextWakeMs()).toBe(500);
    s.onFinish();
    expect(s.take(10)).toBe('old');
    expect(s.nextWakeMs()).toBe(300);
    const keep = new LoadShedder<string>({ workers: 1, queueLimit: 10, dropExpired: false });
    keep.admit(0, null, 'busy');
    keep.admit(0, 100, 'x');
    expect(keep.queued).toBe(1);
    expect(keep.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
  });
});
