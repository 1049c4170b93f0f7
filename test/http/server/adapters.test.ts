// The same behaviours through Express (shed), Fastify (seawallFastify) and Hono (seawallHono) on real servers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContext } from '../../../src/driver/context.js';
import { type SeawallFastifyDecorations, seawallFastify } from '../../../src/http/server/adapters/fastify.js';
import { seawallHono } from '../../../src/http/server/adapters/hono.js';
import { CLAIM_HEADER, type ServerStats } from '../../../src/http/server/core.js';
import { shed } from '../../../src/http/server/node.js';
import type { ShedOptions } from '../../../src/http/server/options.js';
import { encodeAbsoluteDeadline } from '../../../src/policy/hop/deadline.js';
import { deferred, expectBalanced, listen, open, pipelined, send, sleep, waitFor } from './server-helpers.js';

// How a user types app.seawall (documented in docs/server.md).
declare module 'fastify' {
  interface FastifyInstance extends SeawallFastifyDecorations {}
}

/** Shared routes: /ctx (GET, POST json) reports the context; /hold waits for the test or the signal; /boom throws. */
interface Probe {
  holds: (() => void)[];
  aborts: string[];
  calls: string[];
  /** Routes that started for a request whose connection was already closed. */
  deadStarts: number;
}

async function ctxBody(): Promise<string> {
  await sleep(2);
  const ctx = currentContext();
  return JSON.stringify({ deadlineMs: ctx?.deadlineMs ?? null, hop: ctx?.fromSeawallHop ?? null });
}

function hold(probe: Probe): Promise<string> {
  const signal = currentContext()?.signal as AbortSignal;
  const done = deferred<string>();
  probe.holds.push(() => done.resolve('held'));
  signal.addEventListener('abort', () => {
    probe.aborts.push((signal.reason as Error).name);
    done.resolve('aborted');
  });
  return done.promise;
}

interface Started {
  port: number;
  stats(): ServerStats;
  close(): Promise<void>;
}

type Framework = (options: ShedOptions, probe: Probe) => Promise<Started>;

const frameworks: Record<string, Framework> = {
  express: async (options, probe) => {
    const app = express();
    const middleware = shed(options);
    app.use(middleware);
    app.use(express.json());
    app.use((req, _res, next) => {
      probe.calls.push(req.path);
      if (req.socket.destroyed) probe.deadStarts++;
      next();
    });
    app.get('/ctx', async (_req, res) => {
      res.type('json').send(await ctxBody());
    });
    app.post('/ctx', async (req, res) => {
      res.type('json').send(JSON.stringify({ ...JSON.parse(await ctxBody()), echo: req.body }));
    });
    app.get('/hold', async (_req, res) => {
      res.send(await hold(probe));
    });
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    // Express 5 logs errors from its default handler; a quiet one keeps test output clean.
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send('failed');
    });
    const server = await listen(http.createServer(app));
    return { port: server.port, stats: () => middleware.stats(), close: server.close };
  },
  fastify: async (options, probe) => {
    const app = Fastify();
    await app.register(seawallFastify, options);
    app.addHook('preHandler', async (req) => {
      probe.calls.push(req.url);
      if (req.raw.socket.destroyed) probe.deadStarts++;
    });
    app.get('/ctx', async (_req, reply) => reply.type('application/json').send(await ctxBody()));
    app.post('/ctx', async (req, reply) =>
      reply.type('application/json').send(JSON.stringify({ ...JSON.parse(await ctxBody()), echo: req.body })),
    );
    app.get('/hold', async () => hold(probe));
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      port: (app.server.address() as AddressInfo).port,
      stats: () => app.seawall.stats(),
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
      },
    };
  },
  hono: async (options, probe) => {
    const app = new Hono();
    const middleware = seawallHono(options);
    app.use(middleware);
    app.use(async (c, next) => {
      probe.calls.push(c.req.path);
      if ((c.env as { incoming?: http.IncomingMessage }).incoming?.socket.destroyed) probe.deadStarts++;
      await next();
    });
    app.get('/ctx', async (c) => c.body(await ctxBody(), 200, { 'content-type': 'application/json' }));
    app.post('/ctx', async (c) => {
      const echo = await c.req.json();
      return c.body(JSON.stringify({ ...JSON.parse(await ctxBody()), echo }), 200, {
        'content-type': 'application/json',
      });
    });
    app.get('/hold', async (c) => c.text(await hold(probe)));
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    app.onError((_err, c) => c.text('failed', 500));
    const server = await listen(getRequestListener(app.fetch) as http.RequestListener);
    return { port: server.port, stats: () => middleware.stats(), close: server.close };
  },
};

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((c) => c()));
  closers = [];
});

describe.each(Object.keys(frameworks))('%s adapter', (name) => {
  async function start(options: Partial<ShedOptions> = {}) {
    const probe: Probe = { holds: [], aborts: [], calls: [], deadStarts: 0 };
    const started = await (frameworks[name] as Framework)({ workers: 1, meter: false, ...options }, probe);
    closers.push(started.close);
    return { ...started, probe };
  }

  it('puts the deadline and hop into currentContext(), also after body parsing', async () => {
    const { port } = await start();
    const deadline = Date.now() + 30_000;
    const headers = { 'x-request-deadline': encodeAbsoluteDeadline(deadline), 'x-seawall-attempt': '2' };
    const get = JSON.parse((await send(port, { path: '/ctx', headers })).body);
    expect(get).toEqual({ deadlineMs: deadline, hop: true });
    const post = await send(port, {
      path: '/ctx',
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(JSON.parse(post.body)).toEqual({ deadlineMs: deadline, hop: true, echo: { a: 1 } });
  });

  it('sheds with 503 + Retry-After + claim when the queue is full, without running the route', async () => {
    const { port, probe, stats } = await start({ queueLimit: 0, retryAfter: '250ms' });
    const held = send(port, { path: '/hold' });
    await waitFor(() => probe.holds.length === 1);
    const reply = await send(port, { path: '/ctx' });
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1'); // RFC 9110 whole seconds, the same in every adapter
    expect(reply.headers['retry-after-ms']).toBe('250');
    expect(reply.headers[CLAIM_HEADER]).toBe('1');
    expect(probe.calls).toEqual(['/hold']);
    (probe.holds[0] as () => void)();
    expect((await held).body).toBe('held');
    await waitFor(() => stats().running === 0);
    expect(stats().shed).toBe(1);
  });

  it('answers 504 (claimed) for a deadline that passed before arrival or while queued', async () => {
    const { port, probe, stats } = await start();
    const past = await send(port, { path: '/ctx', headers: { 'grpc-timeout': '0m' } });
    expect(past.status).toBe(504);
    expect(past.headers[CLAIM_HEADER]).toBe('1');
    const held = send(port, { path: '/hold' });
    await waitFor(() => probe.holds.length === 1);
    const late = send(port, { path: '/ctx', headers: { 'grpc-timeout': '40m' } });
    await waitFor(() => stats().queued === 1);
    await sleep(80);
    (probe.holds[0] as () => void)();
    expect((await late).status).toBe(504);
    await held;
    expect(probe.calls).toEqual(['/hold']);
    expect(stats()).toMatchObject({ droppedOnArrival: 1, dropped: 1 });
  });

  it('fires the signal and frees the slot when the client goes away mid-handler', async () => {
    const { port, probe, stats } = await start();
    const gone = open(port, { path: '/hold' });
    gone.req.end();
    await waitFor(() => probe.holds.length === 1);
    gone.req.destroy();
    await waitFor(() => probe.aborts.length === 1);
    expect(probe.aborts).toEqual(['AbortError']);
    await waitFor(() => stats().running === 0);
    expect(stats().cancelledRunning).toBe(1);
    expect((await send(port, { path: '/ctx' })).status).toBe(200);
  });

  it('cancels a queued request whose client went away', async () => {
    const { port, probe, stats } = await start();
    const held = send(port, { path: '/hold' });
    await waitFor(() => probe.holds.length === 1);
    const gone = open(port, { path: '/ctx' });
    gone.req.end();
    await waitFor(() => stats().queued === 1);
    gone.req.destroy();
    await waitFor(() => stats().cancelled === 1);
    (probe.holds[0] as () => void)();
    await held;
    await sleep(20);
    expect(probe.calls).toEqual(['/hold']);
    expect(stats().running).toBe(0);
  });

  // Issue #9 item 1: node never emits 'close' on the response of a later request of a pipeline whose connection dies.
  it('releases every slot of pipelined requests whose connections die, and serves a normal request after', async () => {
    const { port, probe, stats } = await start({ workers: 4, queueLimit: 8 });
    for (let round = 0; round < 5; round++) {
      await Promise.all([0, 1, 2, 3].map(() => pipelined(port, ['/hold', '/hold'], 10)));
    }
    await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'every slot released');
    expectBalanced(stats());
    expect((await send(port, { path: '/ctx' })).status).toBe(200);
    expect(probe.holds.length).toBeGreaterThanOrEqual(4);
    expect(probe.deadStarts).toBe(0); // a queued request of a dead connection never reaches its route
  });

  it('claims a 500 from a failing route and releases its slot', async () => {
    const { port, stats } = await start();
    const reply = await send(port, { path: '/boom' });
    expect(reply.status).toBe(500);
    expect(reply.headers[CLAIM_HEADER]).toBe('1');
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(1);
    expect(stats().handler5xx).toBe(1);
  });
});
