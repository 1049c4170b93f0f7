// GuardPipeline with an adaptive throttle: asked first, counts sent attempts (first and retries alike), hears each end once.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import type { Outcome } from '../core/types.js';
import { RetryPolicy } from '../retry/retry.js';
import { CircuitBreaker } from './breaker.js';
import type { GuardHold } from './hold.js';
import { GuardPipeline, type GuardTime } from './pipeline.js';
import { AdaptiveThrottle } from './throttle.js';

const SHED: Outcome = { kind: 'response', status: 503 };
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

function setup(breaker: CircuitBreaker | null = null) {
  const throttle = new AdaptiveThrottle({ kind: 'adaptive', k: 2, window: '10s', minRequests: 4 });
  const p = new GuardPipeline({
    breaker,
    limits: null,
    balancer: null,
    outlier: null,
    pickDraws: null,
    outlierDraws: null,
    throttle,
    throttleDraws: createRandom(5),
  });
  const policy = new RetryPolicy({ budget: false, maxAttempts: 3, backoff: 'none', retryOn: [503] }, {});
  return { p, throttle, policy };
}

describe('GuardPipeline and the adaptive throttle', () => {
  it('first attempts and retries draw on one window: retries of shed attempts are throttled too', () => {
    const { p, throttle, policy } = setup();
    let refusedRetries = 0;
    let refusedFirst = 0;
    for (let i = 0; i < 50; i++) {
      const h = hold();
      const call = policy.start(i);
      for (;;) {
        call.beginAttemptMs(i);
        if (!p.admit(h, at(i), call.attempts, null)) {
          if (call.attempts > 1) refusedRetries++;
          else refusedFirst++;
          p.afterOutcome(h, call, { kind: 'shed-locally' }, at(i), i);
          break;
        }
        if (p.afterOutcome(h, call, SHED, at(i), i) < 0) break;
      }
      p.callEnded(h, at(i));
    }
    const s = throttle.stats(50);
    expect(refusedRetries).toBeGreaterThan(0);
    expect(refusedFirst).toBeGreaterThan(0);
    expect(s.throttled).toBe(refusedFirst + refusedRetries);
    expect(p.refused.throttled).toBe(s.throttled);
    // Every attempt sent was counted once, and heard of once: all rejections, no accept.
    expect(s.sent).toBe(p.attempts);
    expect(s.rejected).toBe(p.attempts);
    expect(s.accepts).toBe(0);
  });

  it('is asked before the breaker: a throttled attempt takes no breaker permit', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1000, failureRate: false });
    const { p, throttle, policy } = setup(breaker);
    for (let i = 0; i < 20; i++) {
      const h = hold();
      const call = policy.start(0);
      call.beginAttemptMs(0);
      if (p.admit(h, at(0), 1, null)) p.attemptEnded(h, SHED, at(0));
      p.callEnded(h, at(0));
    }
    const throttled = throttle.stats(0).throttled;
    expect(throttled).toBeGreaterThan(0);
    expect(breaker.stats()).toMatchObject({ inFlight: 0, failures: 20 - throttled });
  });

  it('an attempt aborted with the call, after it was sent, is heard of once (as an accept: no overload answer)', () => {
    const { p, throttle, policy } = setup();
    const h = hold();
    const call = policy.start(0);
    call.beginAttemptMs(0);
    expect(p.admit(h, at(0), 1, null)).toBe(true);
    p.callEnded(h, at(1));
    p.callEnded(h, at(2));
    expect(throttle.stats(2)).toMatchObject({ requests: 1, accepts: 1, sent: 1 });
  });
});
