// The one-layer rule: a call inside a request from another Seawall hop makes one attempt unless oneLayer is false.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../core/random.js';
import type { Outcome, RequestTraits } from '../core/types.js';
import { RetryPolicy } from './retry.js';

const unavailable: Outcome = { kind: 'response', status: 503 };

/** Attempts a call makes against an upstream that always answers 503, and how it stopped. */
function runAgainst503(policy: RetryPolicy, traits: RequestTraits): { attempts: number; stop: string } {
  const call = policy.start(0, traits);
  let now = 0;
  for (let i = 0; i < 1000; i++) {
    const attempt = call.beginAttempt(now);
    if ('stop' in attempt) return { attempts: call.attempts, stop: attempt.stop };
    const decision = call.onOutcome(unavailable, now);
    if ('stop' in decision) return { attempts: call.attempts, stop: decision.stop };
    now += decision.retryAfterMs;
  }
  throw new Error('the call made 1,000 attempts without stopping');
}

function policy(maxAttempts = 4): RetryPolicy {
  return new RetryPolicy({ budget: false, maxAttempts, backoff: 'none' }, { random: createRandom(1) });
}

describe('one layer of retries', () => {
  it('makes a single attempt inside a Seawall hop, and the full number outside one', () => {
    // The stop names the rule, not maxAttempts (4 here): issue #26.
    expect(runAgainst503(policy(), { fromSeawallHop: true })).toEqual({ attempts: 1, stop: 'one-layer' });
    expect(runAgainst503(policy(), { fromSeawallHop: false })).toEqual({ attempts: 4, stop: 'attempts-exhausted' });
    expect(runAgainst503(policy(), {})).toEqual({ attempts: 4, stop: 'attempts-exhausted' });
  });

  it('ends attempts-exhausted, not one-layer, when the policy or the call allows one attempt anyway', () => {
    expect(runAgainst503(policy(1), { fromSeawallHop: true })).toEqual({ attempts: 1, stop: 'attempts-exhausted' });
    expect(runAgainst503(policy(), { fromSeawallHop: true, maxAttempts: 1 })).toEqual({
      attempts: 1,
      stop: 'attempts-exhausted',
    });
  });

  it('lets the call retry when oneLayer is false, and applies the rule when it is true or unset', () => {
    expect(runAgainst503(policy(), { fromSeawallHop: true, oneLayer: false }).attempts).toBe(4);
    expect(runAgainst503(policy(), { fromSeawallHop: true, oneLayer: true }).attempts).toBe(1);
    expect(runAgainst503(policy(), { fromSeawallHop: false, oneLayer: true }).attempts).toBe(4);
  });

  it('wins over a per-call maxAttempts, which can only lower attempts anyway', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 10 }), (cap, perCall) => {
        const hop = runAgainst503(policy(cap), { fromSeawallHop: true, maxAttempts: perCall });
        const plain = runAgainst503(policy(cap), { maxAttempts: perCall });
        expect(hop.attempts).toBe(1);
        expect(plain.attempts).toBe(Math.min(cap, perCall));
      }),
    );
  });

  it('reports the cap it applies', () => {
    expect(policy().start(0, { fromSeawallHop: true }).maxAttempts).toBe(1);
    expect(policy().start(0, { fromSeawallHop: true, oneLayer: false }).maxAttempts).toBe(4);
  });
});
