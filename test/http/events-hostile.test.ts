// Server events and execute under an unlucky operator: subscribers that throw or mutate, a client that leaves mid-call.
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AttemptContext,
  type CancelEvent,
  execute,
  SEAWALL_CHANNELS,
  type ShedEvent,
} from '../../src/http/index.js';
import { RetryPolicy } from '../../src/policy/index.js';
import { closeAll, expectBalanced, gatedHandler, open, send, serve, sleep, waitFor } from './server-helpers.js';

const subscriptions: (() => void)[] = [];
afterEach(async () => {
  for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
  await closeAll();
});

function subscribe(name: string, onMessage: (message: unknown) => void): void {
  diagnostics.subscribe(name, onMessage);
  subscriptions.push(() => diagnostics.unsubscribe(name, onMessage));
}

/** Collects Node's rethrows of subscriber errors (an uncaughtException on the next tick) instead of failing the run. */
function catchUncaught(): { errors: unknown[]; restore: () => void } {
  const errors: unknown[] = [];
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const onUncaught = (error: unknown) => errors.push(error);
  process.on('uncaughtException', onUncaught);
  return {
    errors,
    restore: () => {
      process.off('uncaughtException', onUncaught);
      for (const listener of listeners) process.on('uncaughtException', listener);
    },
  };
}

describe('server events under hostile subscribers', () => {
  it('a shed subscriber that throws and one that writes into the payload change neither the 503 nor the counters, and crash nothing', async () => {
    const uncaught = catchUncaught();
    try {
      subscribe(SEAWALL_CHANNELS.shed, () => {
        throw new Error('subscriber bug');
      });
      subscribe(SEAWALL_CHANNELS.shed, (message) => {
        (message as { retryAfterMs: number }).retryAfterMs = -1; // must not throw (strict code)
      });
      const seen: ShedEvent[] = [];
      subscribe(SEAWALL_CHANNELS.shed, (message) => seen.push(message as ShedEvent));
      const g = gatedHandler();
      const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: 0, name: 'member-api' });
      const first = send(port, { path: '/first' });
      await waitFor(() => stats().running === 1);
      const refused = await send(port, { path: '/second' });
      expect(refused.status).toBe(503);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.retryAfterMs).toBe(-1); // one shared object per occurrence; the answer is not changed:
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      g.releaseOne();
      expect((await first).status).toBe(200);
      await sleep(5);
      expect(uncaught.errors.map((e) => (e as Error).message)).toEqual(['subscriber bug']);
      expect(stats().shed).toBe(1);
      expectBalanced(stats());
    } finally {
      uncaught.restore();
    }
  });

  it('execute inside a request whose client leaves mid-call: one cancel event, the attempt signal fires, no retry', async () => {
    const cancels: CancelEvent[] = [];
    subscribe(SEAWALL_CHANNELS.cancel, (message) => cancels.push(message as CancelEvent));
    const policy = new RetryPolicy({ maxAttempts: 3, perTryTimeout: '5s', budget: false });
    const contexts: AttemptContext[] = [];
    let settled: unknown = 'pending';
    const { port, stats } = await serve(
      (_req, res) =>
        execute(policy, (context) => {
          contexts.push(context);
          return new Promise<never>(() => {}); // deaf: only the signal can end it
        }).then(
          () => res.end('ok'),
          (error: unknown) => {
            settled = error;
            if (!res.destroyed) res.end();
          },
        ),
      { workers: 4, queueLimit: 4 },
    );
    const client = open(port, { path: '/slow' });
    client.req.end();
    client.reply.catch(() => {});
    await waitFor(() => contexts.length === 1, 3000, 'the first attempt');
    client.req.destroy();
    await waitFor(() => settled !== 'pending', 3000, 'execute to end after the client left');
    expect((settled as { reason?: string }).reason).toBe('aborted');
    expect(contexts).toHaveLength(1);
    expect(contexts[0]?.signal.aborted).toBe(true);
    expect(cancels.map((e) => e.stage)).toEqual(['running']);
    expect(policy.stats()).toMatchObject({ calls: 1, active: 0, attempts: 1, retries: 0, stops: { aborted: 1 } });
    await waitFor(() => stats().running === 0, 3000, 'the worker to be freed');
    expect(stats().cancelledRunning).toBe(1);
  });
});
