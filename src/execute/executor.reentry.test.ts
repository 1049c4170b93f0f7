// execute() re-entered from inside: fn, a hook or a subscriber that aborts the call, throws oddities, or calls again.
import { createHook } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { SeawallError } from '../driver/errors.js';
import { SEAWALL_CHANNELS } from '../driver/events.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { createExecutor, execute } from './executor.js';

const BACKOFF_MS = 4321; // a delay only the backoff timers of these tests use

function refused(): Error {
  return Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
}

/** Live Timeout resources whose delay is BACKOFF_MS. */
function watchBackoffTimers() {
  const live = new Map<number, { hasRef(): boolean }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === BACKOFF_MS) {
        live.set(id, resource as { hasRef(): boolean });
      }
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return { live, stop: () => hook.disable() };
}

async function settleSoon(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
}

const unsubscribes: (() => void)[] = [];
afterEach(() => {
  for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
});

describe('re-entry', () => {
  it('fn that aborts its own caller signal synchronously: the call rejects with the reason, fn runs once', async () => {
    const controller = new AbortController();
    const policy = new RetryPolicy({ maxAttempts: 3, budget: false });
    let calls = 0;
    const call = execute(
      policy,
      () => {
        calls++;
        controller.abort(new Error('from inside'));
        throw refused();
      },
      { signal: controller.signal },
    );
    await expect(call).rejects.toThrow('from inside');
    expect(calls).toBe(1);
    expect(policy.stats()).toMatchObject({ active: 0, stops: { aborted: 1 } });
  });

  it('an onRetry hook that aborts the call leaves no backoff timer behind (it would hold the process 4.3 s)', async () => {
    const timers = watchBackoffTimers();
    try {
      const controller = new AbortController();
      const policy = new RetryPolicy({
        maxAttempts: 3,
        budget: false,
        backoff: { kind: 'constant', delay: BACKOFF_MS },
      });
      const executor = createExecutor({ policy, onRetry: () => controller.abort(new Error('stop retrying')) });
      const started = Date.now();
      await expect(executor.execute(() => Promise.reject(refused()), { signal: controller.signal })).rejects.toThrow(
        'stop retrying',
      );
      expect(Date.now() - started).toBeLessThan(1000);
      await settleSoon();
      expect([...timers.live.values()].filter((t) => t.hasRef())).toEqual([]);
      expect(policy.stats()).toMatchObject({ active: 0, stops: { aborted: 1 } });
    } finally {
      timers.stop();
    }
  });

  it('a seawall:retry subscriber that aborts the call leaves no backoff timer behind either', async () => {
    const timers = watchBackoffTimers();
    const controller = new AbortController();
    const onRetry = () => controller.abort(new Error('subscriber stop'));
    diagnostics.subscribe(SEAWALL_CHANNELS.retry, onRetry);
    unsubscribes.push(() => diagnostics.unsubscribe(SEAWALL_CHANNELS.retry, onRetry));
    try {
      const policy = new RetryPolicy({
        maxAttempts: 3,
        budget: false,
        backoff: { kind: 'constant', delay: BACKOFF_MS },
      });
      await expect(execute(policy, () => Promise.reject(refused()), { signal: controller.signal })).rejects.toThrow(
        'subscriber stop',
      );
      await settleSoon();
      expect([...timers.live.values()].filter((t) => t.hasRef())).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it('a hook that throws something String() cannot convert still leaves the call alone', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      let calls = 0;
      const executor = createExecutor({
        policy: new RetryPolicy({ maxAttempts: 3, budget: false, backoff: { kind: 'constant', delay: 1 } }),
        onRetry: () => {
          throw Object.create(null); // String() of it throws: no toString, no Symbol.toPrimitive
        },
        onGiveUp: () => {
          throw {
            toString() {
              throw new Error('toString bomb');
            },
          };
        },
      });
      const value = await executor.execute(() => {
        if (++calls < 3) throw refused();
        return 'done';
      });
      expect(value).toBe('done');
      const error = await executor.execute(() => Promise.reject(refused())).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SeawallError);
      expect((error as SeawallError).reason).toBe('attempts-exhausted');
      await settleSoon();
      const ours = warnings.filter((w) => (w as { code?: string }).code === 'SEAWALL_HOOK_FAILED');
      expect(ours.map((w) => w.message.split(' (')[0])).toEqual([
        'seawall: the onRetry hook threw',
        'seawall: the onGiveUp hook threw',
      ]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a hook that starts another execute on the same executor: both calls end, counters add up', async () => {
    const policy = new RetryPolicy({ maxAttempts: 2, budget: false, backoff: { kind: 'constant', delay: 1 } });
    const inner: Promise<unknown>[] = [];
    const executor = createExecutor({
      policy,
      onRetry: () => {
        if (inner.length < 3) inner.push(executor.execute(() => 'inner'));
      },
    });
    let calls = 0;
    const value = await executor.execute(() => {
      if (++calls === 1) throw refused();
      return 'outer';
    });
    expect(value).toBe('outer');
    expect(await Promise.all(inner)).toEqual(['inner']);
    expect(policy.stats()).toMatchObject({ calls: 2, active: 0, retries: 1, stops: { succeeded: 2 } });
  });
});
