// Server events and execute under an unlucky operator: subscribers that throw or mutate, a client that leaves mid-call.
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AttemptContext, execute } from '../../../src/execute/index.js';
import { type CancelEvent, type DropEvent, SEAWALL_CHANNELS, type ShedEvent } from '../../../src/http/index.js';
import { encodeAbsoluteDeadline } from '../../../src/policy/hop/deadline.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { closeAll, expectBalanced, gatedHandler, open, send, serve, sleep, waitFor } from '../server/server-helpers.js';

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

describe('server events under pipelining and absurd deadlines', () => {
  it('one event per shed, drop and cancel, matching the counters, when pipelines die and deadlines are nonsense', async () => {
    const sheds: ShedEvent[] = [];
    const drops: DropEvent[] = [];
    const cancels: CancelEvent[] = [];
    subscribe(SEAWALL_CHANNELS.shed, (m) => sheds.push(m as ShedEvent));
    subscribe(SEAWALL_CHANNELS.drop, (m) => drops.push(m as DropEvent));
    subscribe(SEAWALL_CHANNELS.cancel, (m) => cancels.push(m as CancelEvent));
    // Holds everything except /ok; the queue has room for 2 behind 2 workers, so pipelines shed, queue and die.
    const { port, stats } = await serve(
      (req, res) => {
        if (req.url === '/ok') res.end('ok');
      },
      { workers: 2, queueLimit: 2, name: 'member-api' },
    );
    const past = encodeAbsoluteDeadline(Date.now() - 5_000);
    const absurd = ['NaN', '1e400', '-1', '99999999999999999999999', ' ', past, `${past}, ${past}`];
    const request = (path: string, deadline?: string) =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${deadline === undefined ? '' : `x-request-deadline: ${deadline}\r\n`}\r\n`;
    const pipeline = async (lines: string[], closeAfterMs: number) => {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.write(lines.join(''));
      await sleep(closeAfterMs);
      socket.destroy();
    };
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          pipeline([request('/hold'), request('/hold', absurd[(round + i) % absurd.length]), request('/hold')], 15),
        ),
      );
      await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'every slot released');
    }
    await sleep(5);
    const s = stats();
    expectBalanced(s);
    // The states this test is for were reached: sheds, queued and running requests whose client left, nonsense headers.
    expect(s.shed).toBeGreaterThan(0);
    expect(s.cancelled).toBeGreaterThan(0);
    expect(s.cancelledRunning).toBeGreaterThan(0);
    expect(s.malformedHeaders).toBeGreaterThan(0);
    expect(sheds).toHaveLength(s.shed);
    expect(drops).toHaveLength(s.droppedOnArrival + s.dropped);
    expect(drops.filter((d) => d.stage === 'arrival')).toHaveLength(s.droppedOnArrival);
    expect(cancels.filter((c) => c.stage === 'queued')).toHaveLength(s.cancelled);
    expect(cancels.filter((c) => c.stage === 'running')).toHaveLength(s.cancelledRunning);
    // A request whose deadline passed was dropped, never shed nor run: the past deadline was read as one.
    expect(s.droppedOnArrival).toBeGreaterThan(0);
    for (const event of [...sheds, ...drops, ...cancels]) expect(event.service).toBe('member-api');
    expect((await send(port, { path: '/ok' })).body).toBe('ok');
  });
});
