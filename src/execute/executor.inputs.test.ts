// execute() under attack: hostile fns (deaf, late, throwing oddities), classifiers and options; every call ends once.
import { describe, expect, it } from 'vitest';
import { AttemptTimeoutError, SeawallError } from '../driver/errors.js';
import { ConfigError } from '../policy/core/config-error.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import type { RetryPolicyConfig } from '../policy/retry/retry-config.js';
import { createExecutor, execute } from './executor.js';

function quick(config: RetryPolicyConfig = {}): RetryPolicy {
  return new RetryPolicy({ backoff: { kind: 'full-jitter', base: 1, cap: 5 }, budget: false, ...config });
}

async function rejection(promise: Promise<unknown>): Promise<SeawallError> {
  try {
    await promise;
  } catch (error) {
    return error as SeawallError;
  }
  throw new Error('expected a rejection');
}

/** A fn that never settles and never looks at its signal. */
const deaf = (): Promise<never> => new Promise<never>(() => {});

describe('hostile fns', () => {
  it('a signal aborted before execute starts: fn never runs, the call rejects with its reason, the policy ends it', async () => {
    const policy = quick();
    const reason = new Error('gone before');
    let calls = 0;
    const error = await rejection(
      execute(
        policy,
        () => {
          calls++;
          return 1;
        },
        { signal: AbortSignal.abort(reason) },
      ),
    );
    expect(error).toBe(reason);
    expect(calls).toBe(0);
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, attempts: 0, stops: { aborted: 1 } });
  });

  it('a fn that returns a non-promise resolves with it; a thenable is followed', async () => {
    expect(await execute(quick(), () => 'plain')).toBe('plain');
    expect(await execute(quick(), () => null)).toBeNull();
    // biome-ignore lint/suspicious/noThenProperty: the attack is a thenable
    const thenable = { then: (resolve: (v: number) => void) => resolve(7) };
    expect(await execute(quick(), () => thenable as unknown as Promise<number>)).toBe(7);
  });

  it('a thenable whose then throws is a thrown attempt, not a crash', async () => {
    const bad = {
      // biome-ignore lint/suspicious/noThenProperty: the attack is a thenable
      get then() {
        throw new Error('then getter');
      },
    };
    const error = await rejection(execute(quick(), () => bad as unknown as Promise<number>));
    expect(error.reason).toBe('not-retryable');
    expect((error.cause as Error).message).toBe('then getter');
  });

  it('a fn that throws synchronously something that is not an Error (undefined, null, a string) ends the call', async () => {
    for (const thrown of [undefined, null, 'str', 0]) {
      const error = await rejection(
        execute(quick(), () => {
          throw thrown;
        }),
      );
      expect(error).toBeInstanceOf(SeawallError);
      expect(error.reason).toBe('not-retryable');
    }
  });

  it('a fn that never settles and ignores its signal: the per-try timeout ends each attempt, the deadline the call', async () => {
    const policy = quick({ maxAttempts: 10, perTryTimeout: 40, deadline: { patience: 150 } });
    let calls = 0;
    const started = Date.now();
    const error = await rejection(
      execute(
        policy,
        () => {
          calls++;
          return deaf();
        },
        { idempotent: true },
      ),
    );
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(SeawallError);
    expect(['deadline-exceeded', 'deadline-would-pass']).toContain(error.reason);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(elapsed).toBeLessThan(1000);
    expect(error.cause).toBeInstanceOf(AttemptTimeoutError);
    expect(policy.stats().active).toBe(0);
  });

  it('a deaf fn without a per-try timeout is ended by the deadline alone', async () => {
    const started = Date.now();
    const idempotent = await rejection(execute(quick({ deadline: { patience: 60 } }), deaf, { idempotent: true }));
    expect(['deadline-exceeded', 'deadline-would-pass']).toContain(idempotent.reason);
    // Not idempotent: the attempt timed out at the deadline and may have run; the policy names that first.
    const unsafe = await rejection(execute(quick({ deadline: { patience: 60 } }), deaf));
    expect(unsafe.reason).toBe('unsafe-to-retry');
    expect(unsafe.cause).toBeInstanceOf(AttemptTimeoutError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a deadline 40 days out (beyond setTimeout) does not time the attempt out at once', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const policy = new RetryPolicy({ budget: false, deadline: false });
      const days40 = Date.now() + 40 * 24 * 3600 * 1000;
      const value = await execute(policy, () => new Promise((resolve) => setTimeout(() => resolve('ok'), 30)), {
        deadlineMs: days40,
      });
      expect(value).toBe('ok');
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a result that arrives after its per-try timeout is ignored: exactly one outcome, from the next attempt', async () => {
    const policy = quick({ maxAttempts: 3, perTryTimeout: 30 });
    let calls = 0;
    const settled: unknown[] = [];
    const call = execute(
      policy,
      (context) => {
        const attempt = ++calls;
        // Attempt 1 resolves after its timeout fired (and ignores the signal); attempt 2 fails fast for good.
        if (attempt === 1) return new Promise((resolve) => setTimeout(() => resolve('late'), 60));
        return Promise.resolve(`on time ${context.attempt}`);
      },
      { idempotent: true },
    );
    call.then(
      (v) => settled.push(v),
      (e) => settled.push(e),
    );
    expect(await call).toBe('on time 2');
    await new Promise((r) => setTimeout(r, 80)); // the late 'late' has arrived by now
    expect(settled).toEqual(['on time 2']);
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, attempts: 2, perTryTimeouts: 1 });
  });

  it('a late rejection after the call ended does not surface as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const error = await rejection(
        execute(
          quick({ perTryTimeout: 20 }),
          () => new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 40)),
        ),
      );
      expect(error.reason).toBe('unsafe-to-retry');
      await new Promise((r) => setTimeout(r, 80));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('hostile classifiers', () => {
  it.each([
    [{ retryAfterMs: Number.NaN }],
    [{ retryAfterMs: -1 }],
    [{ retryAfterMs: Number.POSITIVE_INFINITY }],
    [{ retryAfterMs: '5' }],
    [{ kind: 'nope' }],
    [{ kind: 'response', status: Number.NaN }],
    [42],
    ['SUCCESS'],
    [[]],
  ])('a classifier answering %j ends the call as not-retryable with a TypeError cause, once', async (verdict) => {
    const policy = quick({ maxAttempts: 3 });
    let calls = 0;
    const error = await rejection(
      execute(
        policy,
        () => {
          calls++;
          return 1;
        },
        { classify: () => verdict as never },
      ),
    );
    expect(error.reason).toBe('not-retryable');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
    expect(policy.stats()).toMatchObject({ active: 0, stops: { 'not-retryable': 1 } });
  });

  it('a classifier answering null lets the default decide, as undefined does', async () => {
    expect(await execute(quick(), () => 5, { classify: () => null as never })).toBe(5);
  });

  it('a classifier asking a wait of 1e12 ms does not hang the call: maxRetryAfter or the deadline stops it', async () => {
    const started = Date.now();
    const error = await rejection(
      execute(quick({ maxAttempts: 3 }), () => 1, { classify: () => ({ retryAfterMs: 1e12 }) }),
    );
    expect(error).toBeInstanceOf(SeawallError);
    expect(error.reason).toBe('server-pushback');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a classifier that throws a non-Error still ends the call as not-retryable with it as cause', async () => {
    const error = await rejection(
      execute(quick(), () => 1, {
        classify: () => {
          throw 'oops';
        },
      }),
    );
    expect(error.reason).toBe('not-retryable');
    expect(error.cause).toBe('oops');
  });

  it('a classifier that throws on the timeout of a deaf fn is not asked: a timeout is a timeout', async () => {
    let asked = 0;
    const error = await rejection(
      execute(quick({ maxAttempts: 2, perTryTimeout: 20 }), deaf, {
        idempotent: true,
        classify: () => {
          asked++;
          throw new Error('never');
        },
      }),
    );
    expect(error.reason).toBe('attempts-exhausted');
    expect(asked).toBe(0);
  });
});

describe('hostile options', () => {
  it.each([
    [{ timeout: 'soon' }, 'options.timeout'],
    [{ timeout: -1 }, 'options.timeout'],
    [{ timeout: Number.POSITIVE_INFINITY }, 'options.timeout'],
    [{ deadlineMs: Number.NaN }, 'options.deadlineMs'],
    [{ maxAttempts: -1 }, 'options.maxAttempts'],
    [{ maxAttempts: Number.NaN }, 'options.maxAttempts'],
    [{ perTryTimeout: 'fast' }, 'options.perTryTimeout'],
    [{ oneLayer: 'no' }, 'options.oneLayer'],
    [{ upstream: 5 }, 'options.upstream'],
    [{ retryOn: 'all' }, 'options.retryOn'],
    [{ signal: null }, 'options.signal'],
    [{ signal: { aborted: false, addEventListener() {} } }, 'options.signal'], // no removeEventListener: it hung
    [{ __proto__x: 1 }, 'options.__proto__x'],
  ])('rejects %j naming %s, fn not called', async (options, path) => {
    let calls = 0;
    const error = await rejection(
      execute(
        quick(),
        () => {
          calls++;
          return 1;
        },
        options as never,
      ),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as unknown as ConfigError).issues.map((i) => i.path)).toContain(path);
    expect(calls).toBe(0);
  });

  it.each([[null], ['2s'], [3], [[]]])('rejects options %j that are not an object', async (options) => {
    const error = await rejection(execute(quick(), () => 1, options as never));
    expect(error).toBeInstanceOf(ConfigError);
  });

  it('an options object that was checked once and then made bad is still refused', async () => {
    const options: Record<string, unknown> = { timeout: '1s' };
    expect(await execute(quick(), () => 1, options)).toBe(1);
    options.maxAttempts = 'many';
    const error = await rejection(execute(quick(), () => 1, options));
    expect(error).toBeInstanceOf(ConfigError);
  });

  it.each([
    [{ policy: quick(), upstream: 5 }],
    [{ policy: quick(), oneLayer: 'yes' }],
    [{ policy: quick(), unrefBackoff: 1 }],
    [{ policy: quick(), retriesDisabled: 'true' }],
    [{ policy: quick(), env: 'prod' }],
    [{ policy: quick(), onGiveUp: 3 }],
    [{ policy: 'retry' }],
    [{}],
    [null],
    ['policy'],
  ])('createExecutor(%j) throws a ConfigError', (options) => {
    expect(() => createExecutor(options as never)).toThrow(ConfigError);
  });
});
