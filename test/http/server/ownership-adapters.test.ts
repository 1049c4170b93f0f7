// The claim of a handler's 5xx in every adapter (Express via shed, Fastify, Hono): the service's own error is claimed,
// an answer relaying a failed downstream call is marked as the call said (whatever claim headers the handler copied
// onto it, a downstream answer passed on as is among them), and otherwise the handler's own marking wins.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, currentContext, runWithContext, seawallHandler, shed } from '../../../src/http/index.js';
import { seawallFastify } from '../../../src/http/server/adapters/fastify.js';
import { seawallHono } from '../../../src/http/server/adapters/hono.js';
import { CLAIM_HEADER, CRITERIA_MET_HEADER } from '../../../src/policy/hop/hop.js';
import type { RetryCondition } from '../../../src/policy/retry/classify.js';
import { within } from '../../support/loopback.js';
import { quick } from '../client/client-setup.js';
import { listen, send } from './server-helpers.js';

const RETRY_5XX: RetryCondition[] = ['5xx', 'connect-failure', 'reset', 'timeout'];

/**
 * What a route answers: a status and headers, or a downstream's Response to pass on as is (each framework's own way:
 * its status and headers copied onto the reply, or Hono returning the Response itself), or it throws (the framework's
 * error handler answers 500).
 */
type Route = () => Promise<{ status: number; headers?: Record<string, string> } | Response>;
type Routes = Record<string, Route>;

/** Hop-by-hop headers a forwarding proxy does not copy (the framework frames the body itself). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/** The headers of a downstream answer a handler copies onto its own reply. */
function forwardable(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => !HOP_BY_HOP.has(name)));
}

/**
 * The routes every adapter serves. `failing`: a downstream Seawall service answering 503 (claimed by its middleware);
 * `healthy`: one answering 200; `flagged`: one answering 503 it marks itself as relayed with the at-least-once flag.
 */
function routes(failing: string, healthy: string, flagged: string): Routes {
  const base = { telemetry: false } as const;
  const threeTries = createFetch({ ...base, policy: quick({ maxAttempts: 3, retryOn: RETRY_5XX }) });
  const oneTry = createFetch({ ...base, policy: quick({ maxAttempts: 1, retryOn: RETRY_5XX }) });
  // Retries even when called by another Seawall hop (error ownership: the hop next to the failure retries).
  const owned = createFetch({ ...base, policy: quick({ maxAttempts: 3, retryOn: RETRY_5XX, ownership: true }) });
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
    // No failed call, and the handler marks its 500 itself ("0", which the middleware would not pick): it wins.
    '/marked': async () => {
      await relay(threeTries, healthy);
      return { status: 500, headers: { [CLAIM_HEADER]: '0' } };
    },
    // A failed call, and the handler copies claim headers onto its 503: the relay mark replaces them.
    '/copied': async () => {
      await relay(threeTries, failing);
      return { status: 503, headers: { [CLAIM_HEADER]: '1', [CRITERIA_MET_HEADER]: '1' } };
    },
    // Passes the failing downstream's answer on as is (its "1" included), after this hop spent its retries.
    '/forward': () => owned(failing),
    // The same with a downstream answer flagged "0" + criteria met (retried here, so the flag must not go up).
    '/forward-flagged': () => owned(flagged),
    // The call runs in a context derived from the request's (a sooner deadline): it still marks the answer.
    '/derived': async () => {
      const inbound = currentContext();
      if (inbound === undefined) throw new Error('no context in the handler');
      return runWithContext({ ...inbound, deadlineMs: Date.now() + 1000 }, () => relay(oneTry, failing));
    },
    // Recovers from a failed call (relay.clear()), then fails for a reason of its own: claimed.
    '/cleared': async () => {
      await relay(threeTries, failing);
      currentContext()?.relay?.clear();
      return { status: 500 };
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
        const answer = await route();
        if (answer instanceof Response) {
          await answer.arrayBuffer();
          res.status(answer.status).set(forwardable(answer)).end();
          return;
        }
        res
          .status(answer.status)
          .set(answer.headers ?? {})
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
        const answer = await route();
        if (answer instanceof Response) {
          await answer.arrayBuffer();
          return reply.code(answer.status).headers(forwardable(answer)).send();
        }
        return reply
          .code(answer.status)
          .headers(answer.headers ?? {})
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
        const answer = await route();
        if (answer instanceof Response) return answer; // the fetch Response as is (immutable headers)
        return c.body(null, answer.status as 500, answer.headers);
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

async function downstream(
  status: number,
  headers: Record<string, string> = {},
): Promise<{ origin: string; hits: () => number }> {
  let hits = 0;
  const handler = seawallHandler((_req, res) => res.writeHead(status, headers).end(), { workers: 8, meter: false });
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
    const flagged = await downstream(503, { [CLAIM_HEADER]: '0', [CRITERIA_MET_HEADER]: '1' });
    const started = await (frameworks[name] as (routes: Routes) => Promise<Started>)(
      routes(failing.origin, healthy.origin, flagged.origin),
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
    // A: a Seawall hop with ownership calling this one (it retries only an error claimed or flagged to it).
    const a = createFetch({
      telemetry: false,
      policy: quick({ maxAttempts: 3, retryOn: RETRY_5XX, ownership: true }),
    });
    const viaA = async (path: string) => {
      const response = await within(a(`http://127.0.0.1:${started.port}${path}`), 5000, 'A to get its answer');
      await response.arrayBuffer();
      return {
        status: response.status,
        claimed: response.headers.get(CLAIM_HEADER),
        criteriaMet: response.headers.get(CRITERIA_MET_HEADER),
      };
    };
    return { marks, viaA, failing, flagged };
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

  it("keeps the handler's own claim header when no call failed", async () => {
    const { marks } = await start();
    expect(await marks('/marked')).toEqual({ status: 500, claimed: '0', criteriaMet: undefined });
  });

  it('after a failed call, the relay mark replaces claim headers the handler copied', async () => {
    const { marks } = await start();
    expect(await marks('/copied')).toEqual({ status: 503, claimed: '0', criteriaMet: undefined });
  });

  it('passes a downstream answer on as is: its claim never goes up, A does not retry (C sees 3, not 9)', async () => {
    const { viaA, failing } = await start();
    expect(await viaA('/forward')).toEqual({ status: 503, claimed: '0', criteriaMet: null });
    expect(failing.hits()).toBe(3);
  });

  it('passes a flagged downstream answer on as is after retrying it: the flag never goes up (3, not 9)', async () => {
    const { viaA, flagged } = await start();
    expect(await viaA('/forward-flagged')).toEqual({ status: 503, claimed: '0', criteriaMet: null });
    expect(flagged.hits()).toBe(3);
  });

  it("marks a call made in a context derived from the request's", async () => {
    const { marks } = await start();
    expect(await marks('/derived')).toEqual({ status: 503, claimed: '0', criteriaMet: '1' });
  });

  it('claims its own 5xx after relay.clear()', async () => {
    const { marks } = await start();
    expect(await marks('/cleared')).toEqual({ status: 500, claimed: '1', criteriaMet: undefined });
  });
});
