// The claim of a handler's 5xx in every adapter (Express via shed, Fastify, Hono): the service's own error is claimed,
// an answer relaying a failed downstream call is marked as the call said, and the handler's own marking wins.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { seawallFastify } from '../../src/http/adapters/fastify.js';
import { seawallHono } from '../../src/http/adapters/hono.js';
import { createFetch, seawallHandler, shed } from '../../src/http/index.js';
import type { RetryCondition } from '../../src/policy/classify.js';
import { CLAIM_HEADER, CRITERIA_MET_HEADER } from '../../src/policy/hop.js';
import { quick } from './client-setup.js';
import { listen, send } from './server-helpers.js';

const RETRY_5XX: RetryCondition[] = ['5xx', 'connect-failure', 'reset', 'timeout'];

/** What a route answers: a status and headers, or it throws (the framework's error handler answers 500). */
type Route = () => Promise<{ status: number; headers?: Record<string, string> }>;
type Routes = Record<string, Route>;

/**
 * The routes every adapter serves. `failing`: a downstream Seawall service answering 503 (claimed by its middleware);
 * `healthy`: one answering 200.
 */
function routes(failing: string, healthy: string): Routes {
  const base = { telemetry: false } as const;
  const threeTries = createFetch({ ...base, policy: quick({ maxAttempts: 3, retryOn: RETRY_5XX }) });
  const oneTry = createFetch({ ...base, policy: quick({ maxAttempts: 1, retryOn: RETRY_5XX }) });
  const throwing = createFetch({ ...base, policy: quick({ maxAttempts: 2 }), rejectOnGiveUp: true });
  const relay = async (fetch: typeof threeTries, url: string) => {
    const response = await fetch(url);
    await response.arrayBuffer();
    return { status: response.status };
  };
  return {
    // Relays the downstream's 503 after this hop's own retries: unclaimed.
    '/relay': () => relay(threeTries, failing),
    // Relays it after a single attempt (no retries here): unclaimed, with the at-least-once flag.
    '/relay-once': () => relay(oneTry, failing),
    // Lets the SeawallError escape: the framework's 500 relays the failure.
    '/throw': async () => relay(throwing, failing),
    // Its own error, no downstream call: claimed.
    '/own': async () => ({ status: 500 }),
    // Its own error after a downstream call that succeeded: still claimed.
    '/own-after-success': async () => {
      await relay(threeTries, healthy);
      return { status: 500 };
    },
    // A failed downstream call, but the handler marks its 500 itself: its marking wins.
    '/marked': async () => {
      await relay(threeTries, failing);
      return { status: 500, headers: { [CLAIM_HEADER]: '1' } };
    },
  };
}

interface Started {
  port: number;
  close(): Promise<void>;
}

const frameworks: Record<string, (routes: Routes) => Promise<Started>> = {
  express: async (table) => {
    const app = express();
    app.use(shed({ workers: 8, meter: false }));
    for (const [path, route] of Object.entries(table)) {
      app.get(path, async (_req, res) => {
        const { status, headers } = await route();
        res
          .status(status)
          .set(headers ?? {})
          .end();
      });
    }
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send('failed');
    });
    return listen(http.createServer(app));
  },
  fastify: async (table) => {
    const app = Fastify();
    await app.register(seawallFastify, { workers: 8, meter: false });
    for (const [path, route] of Object.entries(table)) {
      app.get(path, async (_req, reply) => {
        const { status, headers } = await route();
        return reply
          .code(status)
          .headers(headers ?? {})
          .send();
      });
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      port: (app.server.address() as AddressInfo).port,
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
      },
    };
  },
  hono: async (table) => {
    const app = new Hono();
    app.use(seawallHono({ workers: 8, meter: false }));
    for (const [path, route] of Object.entries(table)) {
      app.get(path, async (c) => {
        const { status, headers } = await route();
        return c.body(null, status as 500, headers);
      });
    }
    app.onError((_err, c) => c.text('failed', 500));
    return listen(getRequestListener(app.fetch) as http.RequestListener);
  },
};

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function downstream(status: number): Promise<{ origin: string; hits: () => number }> {
  let hits = 0;
  const handler = seawallHandler((_req, res) => res.writeHead(status).end(), { workers: 8, meter: false });
  const running = await listen((req, res) => {
    hits++;
    handler(req, res);
  });
  closers.push(running.close);
  return { origin: `http://127.0.0.1:${running.port}/`, hits: () => hits };
}

describe.each(Object.keys(frameworks))('%s adapter: claims of a handler 5xx', (name) => {
  async function start() {
    const failing = await downstream(503);
    const healthy = await downstream(200);
    const started = await (frameworks[name] as (routes: Routes) => Promise<Started>)(
      routes(failing.origin, healthy.origin),
    );
    closers.push(started.close);
    const marks = async (path: string) => {
      const reply = await send(started.port, { path });
      return {
        status: reply.status,
        claimed: reply.headers[CLAIM_HEADER],
        criteriaMet: reply.headers[CRITERIA_MET_HEADER],
      };
    };
    return { marks, failing };
  }

  it('marks a relayed 5xx unclaimed (0), with the at-least-once flag when this hop made one attempt', async () => {
    const { marks, failing } = await start();
    expect(await marks('/relay')).toEqual({ status: 503, claimed: '0', criteriaMet: undefined });
    expect(failing.hits()).toBe(3);
    expect(await marks('/relay-once')).toEqual({ status: 503, claimed: '0', criteriaMet: '1' });
    expect(failing.hits()).toBe(4);
  });

  it('marks the 500 of a SeawallError the handler let escape as relayed (0)', async () => {
    const { marks } = await start();
    expect(await marks('/throw')).toEqual({ status: 500, claimed: '0', criteriaMet: undefined });
  });

  it('claims its own 5xx (1), also after a downstream call that succeeded', async () => {
    const { marks } = await start();
    expect(await marks('/own')).toEqual({ status: 500, claimed: '1', criteriaMet: undefined });
    expect(await marks('/own-after-success')).toEqual({ status: 500, claimed: '1', criteriaMet: undefined });
  });

  it("keeps the handler's own claim header", async () => {
    const { marks } = await start();
    expect(await marks('/marked')).toEqual({ status: 500, claimed: '1', criteriaMet: undefined });
  });
});
