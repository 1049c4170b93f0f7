// execute() and createExecutor: the attempt loop for non-HTTP work, its classifier, signals, stop reasons and options.
import { describe, expect, it, vi } from 'vitest';
import { runWithContext } from '../driver/context.js';
import { AttemptTimeoutError, SeawallError } from '../driver/errors.js';
import { ConfigError } from '../policy/core/config-error.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import type { RetryPolicyConfig } from '../policy/retry/retry-config.js';
import { defaultClassify, verdictOutcome } from './classify.js';
import { type AttemptContext, createExecutor, execute } from './executor.js';

/** Tiny waits and no budget, so each test isolates one mechanism. */
function quick(config: RetryPolicyConfig = {}): RetryPolicy {
  return new RetryPolicy({ backoff: { kind: 'full-jitter', base: 1, cap: 5 }, budget: false, ...config });
}

function coded(code: string): Error {
  return Object.assign(new Error(`${code} 127.0.0.1:5432`), { code });
}

async function rejection(promise: Promise<unknown>): Promise<SeawallError> {
  try {
    await promise;
  } catch (error) {
    return error as SeawallError;
  }
  throw new Error('expected a rejection');
}

/** An attempt that never ends by itself: it rejects when its signal fires, as a well-behaved fn does. */
function hang(context: AttemptContext): Promise<never> {
  return new Promise((_, reject) => {
    context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
  });
}

describe('execute', () => {
  it('resolves with the value of the first attempt that succeeds, handing fn its attempt facts', async () => {
    const seen: AttemptContext[] = [];
    const before = Date.now();
    const value = await execute(quick({ perTryTimeout: '1s', deadline: { patience: '5s' } }), (context) => {
      seen.push(context);
      return 42;
    });
    expect(value).toBe(42);
    expect(seen).toHaveLength(1);
    const [first] = seen as [AttemptContext];
    expect(first.attempt).toBe(1);
    expect(first.signal.aborted).toBe(false);
    expect(first.timeoutMs).toBe(1000);
    expect(first.deadlineMs).toBeGreaterThanOrEqual(before + 4000);
  });

  it('retries a connect failure (ECONNREFUSED) for non-idempotent work: nothing was done', async () => {
    let calls = 0;
    const value = await execute(quick({ maxAttempts: 3 }), () => {
      calls++;
      if (calls === 1) throw coded('ECONNREFUSED');
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(calls).toBe(2);
  });

  it('retries a reset (ECONNRESET) only when the work is idempotent', async () => {
    const policy = quick({ maxAttempts: 3 });
    let calls = 0;
    const once = () => {
      calls++;
      if (calls === 1) return Promise.reject(coded('ECONNRESET'));
      return Promise.resolve('ok');
    };
    const error = await rejection(execute(policy, once));
    expect(error).toBeInstanceOf(SeawallError);
    expect(error.reason).toBe('unsafe-to-retry');
    expect(error.attempts).toBe(1);
    calls = 0;
    expect(await execute(policy, once, { idempotent: true })).toBe('ok');
    expect(calls).toBe(2);
  });

  it('does not retry an error it cannot read; the SeawallError carries it as cause', async () => {
    const boom = new Error('syntax error at or near "SELEC"');
    let calls = 0;
    const error = await rejection(
      execute(
        quick({ maxAttempts: 3 }),
        () => {
          calls++;
          throw boom;
        },
        { idempotent: true },
      ),
    );
    expect(calls).toBe(1);
    expect(error.reason).toBe('not-retryable');
    expect(error.cause).toBe(boom);
    expect(error.lastError).toBe(boom);
    expect(error.lastStatus).toBeNull();
    expect(error.code).toBe('SEAWALL_CALL_FAILED');
  });

  it('gives up after maxAttempts with attempts-exhausted and the last error as cause', async () => {
    const errors = [coded('ECONNREFUSED'), coded('ECONNREFUSED'), coded('ECONNREFUSED')];
    let calls = 0;
    const error = await rejection(
      execute(quick({ maxAttempts: 3 }), () => {
        throw errors[calls++];
      }),
    );
    expect(error.reason).toBe('attempts-exhausted');
    expect(error.attempts).toBe(3);
    expect(error.cause).toBe(errors[2]);
    expect(error.message).toContain('execute execute:');
  });

  it('aborts the attempt signal at the per-try timeout and retries idempotent work', async () => {
    const signals: AbortSignal[] = [];
    const value = await execute(
      quick({ maxAttempts: 3, perTryTimeout: 60 }),
      (context) => {
        signals.push(context.signal);
        return context.attempt === 1 ? hang(context) : 'second';
      },
      { idempotent: true },
    );
    expect(value).toBe('second');
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toBeInstanceOf(AttemptTimeoutError);
    expect(signals[1]?.aborted).toBe(false);
  });

  it('does not retry a timed-out attempt of non-idempotent work (it may have run)', async () => {
    let calls = 0;
    const error = await rejection(
      execute(quick({ maxAttempts: 3, perTryTimeout: 40 }), (context) => {
        calls++;
        return hang(context);
      }),
    );
    expect(calls).toBe(1);
    expect(error.reason).toBe('unsafe-to-retry');
    expect(error.cause).toBeInstanceOf(AttemptTimeoutError);
  });

  it('stops when the deadline runs out, the signal of the attempt in flight aborted', async () => {
    const signals: AbortSignal[] = [];
    const started = Date.now();
    const error = await rejection(
      execute(
        quick({ maxAttempts: 5, perTryTimeout: '1s' }),
        (context) => {
          signals.push(context.signal);
          return hang(context);
        },
        { idempotent: true, timeout: 120 },
      ),
    );
    expect(['deadline-would-pass', 'deadline-exceeded']).toContain(error.reason);
    expect(Date.now() - started).toBeLessThan(900);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it('stops on the retry budget (budget-exhausted) once it is spent', async () => {
    const policy = new RetryPolicy({
      maxAttempts: 3,
      backoff: { kind: 'full-jitter', base: 1, cap: 2 },
      budget: { kind: 'token-bucket', maxTokens: 2, tokenRatio: 0.1 },
    });
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++) {
      const error = await rejection(
        execute(policy, () => {
          throw coded('ECONNREFUSED');
        }),
      );
      reasons.push(error.reason);
    }
    expect(reasons).toContain('budget-exhausted');
  });

  it('rejects with the caller signal reason when the caller aborts, and aborts the attempt signal', async () => {
    const controller = new AbortController();
    let attemptSignal: AbortSignal | undefined;
    const call = execute(
      quick(),
      (context) => {
        attemptSignal = context.signal;
        setTimeout(() => controller.abort(new Error('user left')), 10);
        return hang(context);
      },
      { signal: controller.signal },
    );
    await expect(call).rejects.toThrow('user left');
    expect(attemptSignal?.aborted).toBe(true);
  });

  it('inside a request from another Seawall hop, retries (not a service call) unless oneLayer: true; obeys the inbound signal', async () => {
    const policy = quick({ maxAttempts: 3 });
    let calls = 0;
    const refused = () => {
      calls++;
      throw coded('ECONNREFUSED');
    };
    const error = await rejection(
      runWithContext({ deadlineMs: null, fromSeawallHop: true }, () => execute(policy, refused)),
    );
    expect(calls).toBe(3);
    expect(error.reason).toBe('attempts-exhausted');
    calls = 0;
    const oneLayer = await rejection(
      runWithContext({ deadlineMs: null, fromSeawallHop: true }, () => execute(policy, refused, { oneLayer: true })),
    );
    expect(calls).toBe(1);
    expect(oneLayer.reason).toBe('one-layer');

    const inbound = new AbortController();
    let attemptSignal: AbortSignal | undefined;
    const aborted = rejection(
      runWithContext({ deadlineMs: null, fromSeawallHop: false, signal: inbound.signal }, () =>
        execute(policy, (context) => {
          attemptSignal = context.signal;
          return hang(context);
        }),
      ),
    );
    setTimeout(() => inbound.abort(new Error('client gone')), 10);
    expect((await aborted).reason).toBe('aborted');
    expect(attemptSignal?.aborted).toBe(true);
  });
});

describe('executor settings', () => {
  it('the kill switch (SEAWALL_DISABLE_RETRIES in env) makes one attempt; without it the same work is retried', async () => {
    const refused = () => {
      throw coded('ECONNREFUSED');
    };
    const off = createExecutor({ policy: quick({ maxAttempts: 3 }), env: { SEAWALL_DISABLE_RETRIES: '1' } });
    expect((await rejection(off.execute(refused))).attempts).toBe(1);
    const on = createExecutor({ policy: quick({ maxAttempts: 3 }), env: {} });
    expect((await rejection(on.execute(refused))).attempts).toBe(3);
  });

  it('onRetry and onGiveUp hear execute, with the executor upstream and no status', async () => {
    const heard: string[] = [];
    const executor = createExecutor({
      policy: quick({ maxAttempts: 2 }),
      upstream: 'queue',
      onRetry: (event) => heard.push(`retry ${event.upstream} ${event.attempt} ${event.outcome} ${event.status}`),
      onGiveUp: (event) => heard.push(`give-up ${event.reason} ${event.attempts}`),
    });
    await rejection(
      executor.execute(() => {
        throw coded('ECONNREFUSED');
      }),
    );
    expect(heard).toEqual(['retry queue 1 connect-failure null', 'give-up attempts-exhausted 2']);
  });
});

describe('the classifier', () => {
  it('maps the default cases: value success, connect codes, resets, ETIMEDOUT, other errors', () => {
    expect(defaultClassify({ thrown: false, value: 1 })).toBe('success');
    expect(defaultClassify({ thrown: true, error: coded('ENOTFOUND') })).toEqual({ kind: 'connect-failure' });
    expect(defaultClassify({ thrown: true, error: coded('EPIPE') })).toEqual({ kind: 'reset', stage: 'after-request' });
    expect(defaultClassify({ thrown: true, error: coded('ETIMEDOUT') })).toEqual({ kind: 'timeout' });
    expect(defaultClassify({ thrown: true, error: new Error('x') })).toEqual({ kind: 'local-error' });
  });

  it("'retry' retries any work and 'fail' stops at once", async () => {
    const failing = new Error('40001 could not serialize access');
    let calls = 0;
    const executor = createExecutor({
      policy: quick({ maxAttempts: 3 }),
      upstream: 'member-db',
      classify: (attempted) => (attempted.thrown && attempted.error === failing ? 'retry' : undefined),
    });
    const value = await executor.execute(() => {
      calls++;
      if (calls < 3) throw failing;
      return 'committed';
    });
    expect(value).toBe('committed');
    expect(calls).toBe(3);
    calls = 0;
    const error = await rejection(
      executor.execute(
        () => {
          calls++;
          throw failing;
        },
        { classify: () => 'fail' },
      ),
    );
    expect(calls).toBe(1);
    expect(error.reason).toBe('not-retryable');
    expect(error.message).toContain('execute member-db:');
  });

  it('waits at least retryAfterMs before the next attempt, and refuses waits over maxRetryAfter', async () => {
    const at: number[] = [];
    const executor = createExecutor({ policy: quick({ maxAttempts: 2, maxRetryAfter: '1s' }) });
    await executor.execute(
      () => {
        at.push(Date.now());
        return at.length === 1 ? 'busy' : 'done';
      },
      { classify: (a) => (!a.thrown && a.value === 'busy' ? { retryAfterMs: 150 } : 'success') },
    );
    expect(at).toHaveLength(2);
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(145);
    const error = await rejection(executor.execute(() => 'busy', { classify: () => ({ retryAfterMs: 5000 }) }));
    expect(error.reason).toBe('server-pushback');
    expect(error.cause).toBe('busy');
  });

  it('a returned value the classifier does not accept is retried, and is the cause when the call gives up', async () => {
    let calls = 0;
    const error = await rejection(
      execute(
        quick({ maxAttempts: 2 }),
        () => {
          calls++;
          return { published: false };
        },
        { classify: (a) => (!a.thrown && !a.value.published ? 'retry' : 'success') },
      ),
    );
    expect(calls).toBe(2);
    expect(error.reason).toBe('attempts-exhausted');
    expect(error.cause).toEqual({ published: false });
  });

  it("'success' on a thrown error resolves with undefined", async () => {
    const value = await execute(
      quick(),
      () => {
        throw coded('23505');
      },
      { classify: () => 'success' },
    );
    expect(value).toBeUndefined();
  });

  it('a classifier that throws or answers nonsense ends the call as not-retryable, naming the problem', async () => {
    const thrown = new Error('classifier bug');
    const first = await rejection(
      execute(quick(), () => 1, {
        classify: () => {
          throw thrown;
        },
      }),
    );
    expect(first.reason).toBe('not-retryable');
    expect(first.cause).toBe(thrown);
    const second = await rejection(execute(quick(), () => 1, { classify: () => 'retyr' as never }));
    expect(second.reason).toBe('not-retryable');
    expect(String((second.cause as Error).message)).toContain('"retyr"');
    expect(() => verdictOutcome({ kind: 'response', status: 42 })).toThrow(TypeError);
    expect(() => verdictOutcome({ retryAfterMs: Number.NaN })).toThrow(TypeError);
  });
});

describe('execute options', () => {
  it.each([
    [{ timeout: Number.NaN }, 'options.timeout'],
    [{ maxAttempts: '3' }, 'options.maxAttempts'],
    [{ perTryTimeout: -5 }, 'options.perTryTimeout'],
    [{ deadlineMs: 'soon' }, 'options.deadlineMs'],
    [{ idempotent: 'yes' }, 'options.idempotent'],
    [{ signal: {} }, 'options.signal'],
    [{ classify: 'retry' }, 'options.classify'],
    [{ bufferResponse: true }, 'options.bufferResponse'],
  ])('rejects %j with a ConfigError naming %s, before any attempt', async (options, path) => {
    const fn = vi.fn(() => 1);
    const error = await rejection(execute(quick(), fn, options as never));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as unknown as ConfigError).issues.map((i) => i.path)).toContain(path);
    expect(fn).not.toHaveBeenCalled();
  });

  it('createExecutor names every bad option at once', () => {
    let error: unknown;
    try {
      createExecutor({ policy: { maxAttempts: 0 }, classify: 3, onRetry: 'log', upstrem: 'x' } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['classify', 'upstrem']));
    expect(() => createExecutor({ policy: quick(), onRetry: 'log' as never })).toThrow(/onRetry/);
    expect(() => createExecutor({ policy: { maxAttempts: 0 } })).toThrow(/policy\.maxAttempts/);
  });

  it('rejects a fn that is not a function, and a policy that is not one', async () => {
    await expect(execute(quick(), 3 as never)).rejects.toThrow(TypeError);
    await expect(execute({} as never, () => 1)).rejects.toThrow(/RetryPolicy/);
  });
});
