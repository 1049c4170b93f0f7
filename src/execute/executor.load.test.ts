// execute() under load and watch: shared signals, thousands of calls, events that add up to the counters, process exit.
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runWithContext } from '../driver/context.js';
import { SeawallError } from '../driver/errors.js';
import { type BudgetRefusedEvent, type GiveUpEvent, type RetryEvent, SEAWALL_CHANNELS } from '../driver/events.js';
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

  it('inside an inbound request whose deadline has passed: fn never runs, the call ends deadline-exceeded', async () => {
    const policy = quick({ maxAttempts: 3 });
    let calls = 0;
    const error = await rejection(
      runWithContext({ deadlineMs: Date.now() - 5, fromSeawallHop: true }, () =>
        execute(policy, () => {
          calls++;
          return 1;
        }),
      ),
    );
    expect(error.reason).toBe('deadline-exceeded');
    expect(calls).toBe(0);
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, attempts: 0 });
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

  it('budget refusals: one seawall:budget-refused and one give-up per refused call, equal to the policy counters', async () => {
    const refusedEvents = listen<BudgetRefusedEvent>(SEAWALL_CHANNELS.budgetRefused);
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const policy = new RetryPolicy({
      maxAttempts: 3,
      backoff: { kind: 'constant', delay: 1 },
      budget: { kind: 'token-bucket', maxTokens: 4, tokenRatio: 0.1 },
    });
    const executor = createExecutor({ policy, upstream: 'tight' });
    const errors = await Promise.all(
      Array.from({ length: 40 }, () =>
        executor.execute(() => Promise.reject(Object.assign(new Error('r'), { code: 'ECONNREFUSED' }))).catch((e) => e),
      ),
    );
    const stats = policy.stats();
    const budgetStops = errors.filter((e) => (e as SeawallError).reason === 'budget-exhausted').length;
    expect(budgetStops).toBeGreaterThan(0);
    expect(stats.stops['budget-exhausted']).toBe(budgetStops);
    expect(refusedEvents).toHaveLength(budgetStops);
    expect(stats.retryOverflow).toBe(budgetStops);
    expect(giveUps).toHaveLength(40); // every call gave up: on the budget, or out of attempts
    expect(giveUps.filter((e) => e.reason === 'budget-exhausted')).toHaveLength(budgetStops);
    expect(refusedEvents.every((e) => e.upstream === 'tight' && e.refusal === null)).toBe(true);
  });

  it('a subscriber that throws or writes into its payload changes neither the call nor what the hook sees', async () => {
    const seenByHook: RetryEvent[] = [];
    const uncaught: unknown[] = [];
    // Node rethrows a subscriber's error on the next tick as an uncaughtException (docs/events.md): catch it here.
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      listen<RetryEvent>(SEAWALL_CHANNELS.retry, (event) => {
        // An annotating subscriber (strict code): the write must not throw, so it cannot crash the process.
        (event as { attempt: number }).attempt = 99;
        (event as { upstream: string }).upstream = 'hijacked';
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
      // Subscribers share one object per occurrence (Node's convention): a later one sees the annotation ...
      expect(after.map((e) => [e.attempt, e.upstream])).toEqual([
        [99, 'hijacked'],
        [99, 'hijacked'],
      ]);
      // ... the hook has its own, and the call went on as if nobody had written anything.
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
    const script = fileURLToPath(new URL('../../test/execute/execute-child.ts', import.meta.url));
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
