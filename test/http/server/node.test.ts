// seawallHandler on real node:http servers: admission, queue limit, drop-expired, claims, deadlines, context, stats.
import { afterEach, describe, expect, it } from 'vitest';
import { currentContext } from '../../../src/driver/context.js';
import { CLAIM_HEADER } from '../../../src/http/server/core.js';
import { encodeAbsoluteDeadline } from '../../../src/policy/hop/deadline.js';
import { parseRetryAfter, serverWait } from '../../../src/policy/hop/retry-after.js';
import { within } from '../../support/loopback.js';
import {
  closeAll,
  deferred,
  expectBalanced,
  gatedHandler,
  open,
  send,
  serve,
  sleep,
  waitFor,
} from './server-helpers.js';

afterEach(closeAll);

describe('seawallHandler admission', () => {
  it('runs at most `workers` handlers at once and queues the rest in arrival order', async () => {
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 2 });
    const replies = [1, 2, 3, 4, 5].map((i) => send(port, { path: `/${i}` }));
    await waitFor(() => stats().queued === 3, 3000, 'three queued');
    expect(g.seen).toHaveLength(2);
    while (g.seen.length < 5 || g.holds.length > 0) {
      await waitFor(() => g.holds.length > 0);
      g.releaseOne();
    }
    expect((await Promise.all(replies)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(g.peak()).toBe(2);
    expect(g.seen.slice(2)).toEqual(['/3', '/4', '/5']);
  });

  it('queue limit alone: a request that finds the queue full gets 503 + Retry-After at once, handler untouched', async () => {
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, {
      workers: 1,
      queueLimit: 1,
      retryAfter: '200ms',
      dropExpired: false,
    });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    const second = send(port, { path: '/second' });
    await waitFor(() => stats().queued === 1);
    // The worker is held until the test releases it: an answer that waited for it would never come (~5 ms otherwise).
    const third = await within(send(port, { path: '/third' }), 1000, 'the 503 while the worker and queue are full');
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('1'); // RFC 9110 whole seconds, rounded up
    expect(third.headers['retry-after-ms']).toBe('200'); // the exact wait, which Seawall's client prefers
    expect(third.headers[CLAIM_HEADER]).toBe('1');
    expect(g.seen).toEqual(['/first']);
    g.releaseOne();
    await waitFor(() => g.holds.length === 1);
    g.releaseOne();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(g.seen).toEqual(['/first', '/second']);
    expect(stats().shed).toBe(1);
    expectBalanced(stats());
  });

  it('drop-expired alone: a request whose deadline passed while queued gets 504 without running the handler', async () => {
    const g = gatedHandler();
    // Unbounded queue: only the deadline check can keep /late from running.
    const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: Infinity, dropExpired: true });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    const late = send(port, { path: '/late', headers: { 'grpc-timeout': '60m' } });
    await waitFor(() => stats().queued === 1);
    await sleep(120);
    g.releaseOne();
    const reply = await late;
    expect(reply.status).toBe(504);
    expect(reply.headers[CLAIM_HEADER]).toBe('1');
    expect((await first).status).toBe(200);
    expect(g.seen).toEqual(['/first']);
    expect(stats().dropped).toBe(1);
    expectBalanced(stats());
  });

  it('with dropExpired off the same late request runs (the previous test depends on the mechanism)', async () => {
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1, dropExpired: false });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    const late = send(port, { path: '/late', headers: { 'grpc-timeout': '60m' } });
    await waitFor(() => stats().queued === 1);
    await sleep(120);
    g.releaseOne();
    await waitFor(() => g.holds.length === 1);
    g.releaseOne();
    expect((await late).status).toBe(200);
    expect((await first).status).toBe(200);
    expect(g.seen).toEqual(['/first', '/late']);
  });

  it('answers 504 on arrival when the deadline has already passed, without running the handler', async () => {
    let calls = 0;
    const { port, stats } = await serve(
      (_req, res) => {
        calls++;
        res.end();
      },
      { workers: 4 },
    );
    const reply = await send(port, { headers: { 'x-request-deadline': encodeAbsoluteDeadline(Date.now() - 1000) } });
    expect(reply.status).toBe(504);
    expect(reply.headers[CLAIM_HEADER]).toBe('1');
    expect(calls).toBe(0);
    expect(stats().droppedOnArrival).toBe(1);
  });

  it('adaptive LIFO serves the newest waiting request once the line is stale; FIFO serves the oldest', async () => {
    for (const discipline of ['fifo', 'adaptive-lifo'] as const) {
      const g = gatedHandler();
      const { port, stats } = await serve(g.handler, { workers: 1, discipline, lifoAfter: '20ms' });
      const replies = [send(port, { path: '/0' })];
      await waitFor(() => stats().running === 1);
      for (const i of [1, 2, 3]) {
        replies.push(send(port, { path: `/${i}` }));
        await waitFor(() => stats().queued === i);
      }
      await sleep(50);
      g.releaseOne();
      await waitFor(() => g.seen.length === 2);
      expect(g.seen[1]).toBe(discipline === 'fifo' ? '/1' : '/3');
      while (g.holds.length > 0) {
        g.releaseOne();
        await sleep(10);
      }
      await Promise.all(replies);
    }
  });

  it('update() raising workers starts queued requests at once', async () => {
    const g = gatedHandler();
    const { port, stats, listener } = await serve(g.handler, { workers: 1 });
    const replies = [send(port), send(port), send(port)];
    await waitFor(() => stats().queued === 2);
    listener.update({ workers: 3 });
    expect(stats().running).toBe(3);
    while (g.holds.length > 0) g.releaseOne();
    await Promise.all(replies);
  });
});

describe('seawallHandler claims', () => {
  it('claims handler 5xx, leaves 2xx/4xx unmarked, and respects a claim header the handler set', async () => {
    const { port } = await serve(
      (req, res) => {
        if (req.url === '/500') res.writeHead(500).end();
        else if (req.url === '/503-implicit') {
          res.statusCode = 503;
          res.end();
        } else if (req.url === '/passthrough') {
          res.setHeader(CLAIM_HEADER, '0'); // a downstream's error passed on: not ours
          res.writeHead(502).end();
        } else if (req.url === '/404') res.writeHead(404).end();
        else res.end('ok');
      },
      { workers: 2 },
    );
    const claim = async (path: string) => (await send(port, { path })).headers[CLAIM_HEADER];
    expect(await claim('/500')).toBe('1');
    expect(await claim('/503-implicit')).toBe('1');
    expect(await claim('/passthrough')).toBe('0');
    expect(await claim('/404')).toBeUndefined();
    expect(await claim('/')).toBeUndefined();
  });

  it("sends hints the policy's own reader reads back as the configured wait, and an RFC 9110 Retry-After", async () => {
    const { port } = await serve(() => {}, { workers: 1, queueLimit: 0, retryAfter: '1.5s' });
    open(port).req.end();
    await sleep(30);
    const reply = await send(port);
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('2');
    expect(parseRetryAfter(reply.headers['retry-after'], Date.now())).toEqual({
      ok: true,
      delayMs: 2000,
      bounded: false,
    });
    expect(serverWait(reply.headers['retry-after'], reply.headers['retry-after-ms'], Date.now())).toEqual({
      ok: true,
      delayMs: 1500,
      bounded: false,
    });
  });
});

describe('seawallHandler deadlines and context', () => {
  it('puts the deadline and hop into currentContext(), across awaits', async () => {
    const seen = deferred<unknown>();
    const { port } = await serve(
      async (_req, res) => {
        await sleep(5);
        const ctx = currentContext();
        seen.resolve({ deadlineMs: ctx?.deadlineMs, hop: ctx?.fromSeawallHop });
        res.end();
      },
      { workers: 1 },
    );
    const before = Date.now();
    await send(port, { headers: { 'grpc-timeout': '2S', 'x-seawall-attempt': '1' } });
    const ctx = (await seen.promise) as { deadlineMs: number; hop: boolean };
    expect(ctx.hop).toBe(true);
    expect(ctx.deadlineMs).toBeGreaterThanOrEqual(before + 2000);
    expect(ctx.deadlineMs).toBeLessThanOrEqual(Date.now() + 2000);
  });

  it('gives a request resumed from the queue its own context', async () => {
    const g = gatedHandler();
    const deadlines: (number | null | undefined)[] = [];
    const { port, stats } = await serve(
      (req, res) => {
        deadlines.push(currentContext()?.deadlineMs);
        g.handler(req, res);
      },
      { workers: 1 },
    );
    const a = send(port);
    await waitFor(() => stats().running === 1);
    const deadline = Date.now() + 60_000;
    const b = send(port, { headers: { 'x-request-deadline': encodeAbsoluteDeadline(deadline) } });
    await waitFor(() => stats().queued === 1);
    g.releaseOne();
    await waitFor(() => g.holds.length === 1);
    g.releaseOne();
    await Promise.all([a, b]);
    expect(deadlines).toEqual([null, deadline]);
  });

  it('caps a deadline beyond maxDeadline and counts it', async () => {
    const seen = deferred<number | null | undefined>();
    const { port, stats } = await serve(
      (_req, res) => {
        seen.resolve(currentContext()?.deadlineMs);
        res.end();
      },
      { workers: 1, maxDeadline: '2s' },
    );
    await send(port, { headers: { 'grpc-timeout': '10H' } });
    expect(((await seen.promise) as number) - Date.now()).toBeLessThanOrEqual(2000);
    expect(stats().cappedDeadlines).toBe(1);
  });

  it('treats malformed deadline headers as absent and counts them', async () => {
    const deadlines: (number | null | undefined)[] = [];
    const { port, stats } = await serve(
      (_req, res) => {
        deadlines.push(currentContext()?.deadlineMs);
        res.end();
      },
      { workers: 1 },
    );
    const cases: Record<string, string>[] = [
      { 'grpc-timeout': '-5m' },
      { 'x-request-deadline': 'NaN' },
      { 'x-request-deadline': '-1' },
    ];
    for (const headers of cases) {
      expect((await send(port, { headers })).status).toBe(200);
    }
    expect(deadlines).toEqual([null, null, null]);
    expect(stats().malformedHeaders).toBe(3);
  });

  it('trustDeadline false ignores a stranger’s deadline and hop headers (and counts them)', async () => {
    const seen: unknown[] = [];
    const { port, stats } = await serve(
      (_req, res) => {
        seen.push({ deadline: currentContext()?.deadlineMs, hop: currentContext()?.fromSeawallHop });
        res.end();
      },
      { workers: 1, trustDeadline: false },
    );
    const past = encodeAbsoluteDeadline(Date.now() - 1000);
    const reply = await send(port, { headers: { 'x-request-deadline': past, 'x-seawall-attempt': '1' } });
    expect(reply.status).toBe(200); // not dropped: the header does not count
    expect(seen).toEqual([{ deadline: null, hop: false }]);
    expect(stats().untrustedHeaders).toBe(1);
  });

  it('a trustDeadline predicate decides per request (here: by a header the mesh sets)', async () => {
    const { port } = await serve((_req, res) => res.end(), {
      workers: 1,
      trustDeadline: ({ headers, remoteAddress }) =>
        remoteAddress === '127.0.0.1' && (headers as Record<string, unknown>)['x-mesh'] === 'yes',
    });
    const past = encodeAbsoluteDeadline(Date.now() - 1000);
    expect((await send(port, { headers: { 'x-request-deadline': past } })).status).toBe(200);
    expect((await send(port, { headers: { 'x-request-deadline': past, 'x-mesh': 'yes' } })).status).toBe(504);
  });
});

describe('seawallHandler stats', () => {
  it('counters add up after a mixed run (run, queue, shed, drop, cancel)', async () => {
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: 2 });
    const a = send(port);
    await waitFor(() => stats().running === 1);
    const late = send(port, { headers: { 'grpc-timeout': '30m' } });
    const gone = open(port);
    gone.req.end();
    await waitFor(() => stats().queued === 2);
    const shedReply = await send(port);
    const arrivedLate = await send(port, { headers: { 'x-request-deadline': '1.000' } });
    gone.req.destroy();
    await waitFor(() => stats().cancelled === 1);
    await sleep(50);
    g.releaseOne();
    expect((await a).status).toBe(200);
    expect((await late).status).toBe(504);
    expect(shedReply.status).toBe(503);
    expect(arrivedLate.status).toBe(504);
    await waitFor(() => stats().running === 0);
    const s = stats();
    expect(s).toMatchObject({
      offered: 5,
      started: 1,
      completed: 1,
      shed: 1,
      droppedOnArrival: 1,
      dropped: 1,
      cancelled: 1,
      queued: 0,
      running: 0,
    });
    expectBalanced(s);
    expect(s.queueWait.count).toBe(2); // the immediate start (0 ms) and the drop at dequeue
  });
});
