// execute() under attack: hostile fns, classifiers and options, shared signals, many calls; every call ends once.
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runWithContext } from '../http/context.js';
import { AttemptTimeoutError, SeawallError } from '../http/errors.js';
import { type GiveUpEvent, type RetryEvent, SEAWALL_CHANNELS } from '../http/events.js';
import { ConfigError } from '../policy/config-error.js';
import { RetryPolicy } from '../policy/retry.js';
import type { RetryPolicyConfig } from '../policy/retry-config.js';
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

const subscriptions: (() => void)[] = [];
afterEach(() => {
  for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
});

function listen<E>(name: string, onMessage: (event: E) => void = () => {}): E[] {
  const seen: E[] = [];
  const subscriber = (message: unknown) => {
    seen.push(message as E);
    onMessage(message as E);
  };
  diagnostics.subscribe(name, subscriber);
  subscriptions.push(() => diagnostics.unsubscribe(name, subscriber));
  return seen;
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

describe('signals and load', () => {
  it('thousands of concurrent executes on one long-lived caller signal: no listener left, no MaxListeners warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const executor = createExecutor({ policy: quick({ maxAttempts: 2, perTryTimeout: '5s' }), upstream: 'many' });
    try {
      const calls: Promise<number>[] = [];
      for (let i = 0; i < 5000; i++) {
        calls.push(
          executor.execute(
            async (context) => {
              if (context.attempt === 1 && i % 2 === 0)
                throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
              return i;
            },
            { signal: controller.signal },
          ),
        );
      }
      // 5,000 calls in flight, one listener on the shared signal.
      expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      const values = await Promise.all(calls);
      expect(values).toHaveLength(5000);
      await new Promise((r) => setImmediate(r));
      expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      const stats = executor.stats().policy;
      expect(stats).toMatchObject({ calls: 5000, active: 0, attempts: 7500, retries: 2500 });
      expect(stats.stops.succeeded).toBe(5000);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborting the shared caller signal ends every call in flight exactly once with its reason', async () => {
    const controller = new AbortController();
    const policy = quick({ perTryTimeout: '5s' });
    const ends: string[] = [];
    const calls = Array.from({ length: 500 }, () =>
      execute(policy, deaf, { signal: controller.signal }).then(
        () => ends.push('value'),
        (error: unknown) => ends.push(error === controller.signal.reason ? 'reason' : String(error)),
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('shutdown'));
    await Promise.all(calls);
    expect(ends).toHaveLength(500);
    expect(new Set(ends)).toEqual(new Set(['reason']));
    expect(policy.stats()).toMatchObject({ calls: 500, active: 0, stops: { aborted: 500 } });
  });

  it('inside an inbound request whose client disconnects mid-call: the attempt signal fires, one attempt, aborted', async () => {
    const inbound = new AbortController();
    const policy = quick({ maxAttempts: 3, perTryTimeout: '5s' });
    let attemptSignal: AbortSignal | undefined;
    let calls = 0;
    const call = runWithContext({ deadlineMs: null, fromSeawallHop: true, signal: inbound.signal }, () =>
      execute(policy, (context) => {
        calls++;
        attemptSignal = context.signal;
        return deaf();
      }),
    );
    setTimeout(() => inbound.abort(new Error('client gone')), 10);
    const error = await rejection(call);
    expect(error).toBeInstanceOf(SeawallError);
    expect(error.reason).toBe('aborted');
    expect(calls).toBe(1);
    expect(attemptSignal?.aborted).toBe(true);
    expect(EventEmitter.getEventListeners(inbound.signal, 'abort')).toHaveLength(0);
    expect(policy.stats()).toMatchObject({ active: 0, stops: { aborted: 1 } });
  });
});

describe('events and counters of execute', () => {
  it('every call ends in one outcome and the events add up to policy.stats()', async () => {
    const retries = listen<RetryEvent>(SEAWALL_CHANNELS.retry);
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const policy = quick({ maxAttempts: 3, perTryTimeout: 30 });
    const hookRetries: RetryEvent[] = [];
    const hookGiveUps: GiveUpEvent[] = [];
    const executor = createExecutor({
      policy,
      upstream: 'mix',
      onRetry: (e) => hookRetries.push(e),
      onGiveUp: (e) => hookGiveUps.push(e),
    });
    const controller = new AbortController();
    const outcomes = { success: 0, giveUp: 0, abort: 0 };
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = i % 5;
      calls.push(
        executor
          .execute(
            (context) => {
              if (kind === 0) return i; // success first try
              if (kind === 1 && context.attempt < 2) throw Object.assign(new Error('r'), { code: 'ECONNREFUSED' });
              if (kind === 1) return i; // success after a retry
              if (kind === 2) throw Object.assign(new Error('r'), { code: 'ECONNREFUSED' }); // attempts exhausted
              if (kind === 3) return deaf(); // per-try timeouts, then exhausted (idempotent)
              return deaf(); // aborted by the caller
            },
            { idempotent: true, ...(kind === 4 ? { signal: controller.signal } : {}) },
          )
          .then(
            () => {
              outcomes.success++;
            },
            (error: unknown) => {
              if (error === controller.signal.reason) outcomes.abort++;
              else if (error instanceof SeawallError) outcomes.giveUp++;
              else throw error;
            },
          ),
      );
    }
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await Promise.all(calls);
    const stats = policy.stats();
    expect(outcomes).toEqual({ success: 120, giveUp: 120, abort: 60 });
    expect(stats.calls).toBe(300);
    expect(stats.active).toBe(0);
    expect(stats.stops.succeeded).toBe(outcomes.success);
    expect(stats.stops.aborted).toBe(outcomes.abort);
    expect(stats.retries).toBe(retries.length);
    expect(giveUps).toHaveLength(outcomes.giveUp);
    expect(hookRetries).toEqual(retries);
    expect(hookGiveUps).toEqual(giveUps);
    expect(giveUps.every((e) => e.reason === 'attempts-exhausted' && e.attempts === 3)).toBe(true);
    const ended = Object.values(stats.stops).reduce((a, b) => a + b, 0);
    expect(ended).toBe(stats.calls); // every call ended exactly once
    expect(stats.stops['attempts-exhausted']).toBe(giveUps.length);
    expect(stats.perTryTimeouts).toBe(retries.filter((e) => e.outcome === 'timeout').length + 60); // the 60 deaf calls: 3 timeouts each, the last a give-up
  });

  it('a subscriber that throws or mutates its payload changes neither the call nor what the others see', async () => {
    const seenByHook: RetryEvent[] = [];
    const uncaught: unknown[] = [];
    // Node rethrows a subscriber's error on the next tick as an uncaughtException (docs/events.md): catch it here.
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      listen<RetryEvent>(SEAWALL_CHANNELS.retry, (event) => {
        try {
          (event as { attempt: number }).attempt = 99;
          (event as { upstream: string }).upstream = 'hijacked';
        } catch {
          // a frozen payload refuses the write: that is the point
        }
      });
      listen<RetryEvent>(SEAWALL_CHANNELS.retry, () => {
        throw new Error('subscriber bug');
      });
      const after = listen<RetryEvent>(SEAWALL_CHANNELS.retry);
      let calls = 0;
      const value = await createExecutor({
        policy: quick({ maxAttempts: 3 }),
        onRetry: (e) => seenByHook.push(e),
      }).execute(() => {
        if (++calls < 3) throw Object.assign(new Error('r'), { code: 'ECONNREFUSED' });
        return 'done';
      });
      await new Promise((r) => setImmediate(r));
      expect(value).toBe('done');
      expect(after.map((e) => [e.attempt, e.upstream])).toEqual([
        [1, 'execute'],
        [2, 'execute'],
      ]);
      expect(seenByHook.map((e) => [e.attempt, e.upstream])).toEqual([
        [1, 'execute'],
        [2, 'execute'],
      ]);
      expect(uncaught.map((e) => (e as Error).message)).toEqual(['subscriber bug', 'subscriber bug']);
    } finally {
      process.off('uncaughtException', onUncaught);
      for (const listener of listeners) process.on('uncaughtException', listener);
    }
  });

  it('payloads are plain data: no signal, no controller, no policy object inside', async () => {
    const retries = listen<RetryEvent>(SEAWALL_CHANNELS.retry);
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    await rejection(
      execute(quick({ maxAttempts: 2 }), () => {
        throw Object.assign(new Error('r'), { code: 'ECONNREFUSED' });
      }),
    );
    for (const event of [...retries, ...giveUps]) {
      for (const [key, value] of Object.entries(event)) {
        if (key === 'error') continue;
        expect(value === null || ['string', 'number', 'boolean'].includes(typeof value), key).toBe(true);
      }
    }
  });
});

describe('process', () => {
  it('a process that only used execute (retries, a give-up, an abort mid-backoff) exits on its own', async () => {
    const script = fileURLToPath(new URL('../../test/http/execute-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    // Exits within ~1 s when idle (0.5 s measured; more with both cores busy); a timer left behind would hold it for
    // the 20 s backoff or the 20 s per-try timeout. Killed after 12 s.
    const kill = setTimeout(() => child.kill(), 12_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(kill);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^done /);
    const done = JSON.parse(stdout.slice('done '.length));
    expect(done.stops).toMatchObject({ succeeded: 1, 'attempts-exhausted': 1 });
    expect(done.slow).toMatchObject({ retries: 1, stops: { aborted: 1 } }); // it was sleeping when aborted
    expect(code, 'the child exited by itself (null: killed after 12 s)').toBe(0);
  }, 20_000);
});
