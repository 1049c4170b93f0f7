// execute(): an Outcome verdict of a wrong shape ends the call once, with a TypeError naming the field; never pending, never unhandled.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SeawallError } from '../driver/errors.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { execute } from './executor.js';

function quick(): RetryPolicy {
  return new RetryPolicy({ backoff: { kind: 'full-jitter', base: 1, cap: 5 }, budget: false, maxAttempts: 3 });
}

/** Rejections nobody handled while the test ran (the defect raised one per bad verdict). */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** The call's rejection, or a failure when it is still pending after `ms` (the defect left it pending forever). */
async function rejectionWithin(promise: Promise<unknown>, ms: number): Promise<Error> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, pending]);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('still pending')) throw error;
    return error as Error;
  } finally {
    clearTimeout(timer);
  }
  throw new Error('expected a rejection');
}

/** Lets every pending rejection be reported (unhandledRejection fires after the microtask queue drains). */
const settleRejections = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('Outcome verdicts are checked where they enter (issue #25 item 1)', () => {
  it.each([
    ['retryAfterMs', { kind: 'response', status: 503, retryAfterMs: 100 }],
    ['retryAfter', { kind: 'response', status: 503, retryAfter: 2 }],
    ['pushbackMs', { kind: 'response', status: 503, pushbackMs: { ms: 5 } }],
    ['retryAfterMs', { kind: 'response', status: 503, retryAfterMs: ['100', 7] }],
    ['claim', { kind: 'response', status: 503, claim: 'mine' }],
    ['stage', { kind: 'reset', stage: 'later' }],
    ['stage', { kind: 'timeout', stage: 'after-request' }],
  ])('a verdict with a bad %s ends the call as not-retryable with a TypeError naming it', async (field, verdict) => {
    const policy = quick();
    let calls = 0;
    const work = () => {
      calls++;
      return 1;
    };
    const error = (await rejectionWithin(
      execute(policy, work, { classify: () => verdict as never }),
      1000,
    )) as SeawallError;
    expect(error.name).toBe('SeawallError');
    expect(error.reason).toBe('not-retryable');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(String((error.cause as Error).message)).toContain(`execute classifier returned`);
    expect(String((error.cause as Error).message)).toContain(`its ${field} must be`);
    expect(calls).toBe(1);
    await settleRejections();
    expect(unhandled).toEqual([]);
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, attempts: 1, stops: { 'not-retryable': 1 } });
  });

  it('a well-formed Outcome verdict is used as given (a header string in retryAfterMs is a wait)', async () => {
    const policy = quick();
    let calls = 0;
    const started = Date.now();
    const value = await execute(policy, () => ++calls, {
      classify: (attempted) =>
        !attempted.thrown && attempted.value === 1 ? { kind: 'response', status: 503, retryAfterMs: '60' } : 'success',
    });
    expect(value).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });
});

describe('nothing thrown deciding an outcome escapes the attempt loop (issue #25 item 1)', () => {
  it('a header list whose iteration throws inside the policy still ends the call once, with a TypeError', async () => {
    // Passes the check (an array of strings) but throws when the policy reads it: the loop's last line holds.
    const hostile = ['100'];
    Object.defineProperty(hostile, Symbol.iterator, {
      value: () => {
        throw new Error('iteration refused');
      },
    });
    const policy = quick();
    const error = await rejectionWithin(
      execute(policy, () => 1, {
        classify: () => ({ kind: 'response', status: 503, retryAfterMs: hostile }),
      }),
      1000,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('could not be read: iteration refused');
    await settleRejections();
    expect(unhandled).toEqual([]);
    // Ended in the policy (as aborted): nothing stays active, the retry slot it had taken is released.
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, stops: { aborted: 1 } });
    expect(await execute(policy, () => 3)).toBe(3); // the policy is still usable
  });
});
