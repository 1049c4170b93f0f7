// Pending means pending (issue #25): over real sockets on 127.0.0.1, an attempt onto an idle keep-alive connection is no pending request, and upstream_rq_total counts what the server received.
import { createServer, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, retryInterceptor, SeawallError } from '../../../src/http/index.js';
import { type Loopback, listenLoopback } from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import { IDLE, idle, only } from './upstream-helpers.js';

const { track } = agentsClosedAfterEach();
let servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** What the server received: every request's URL and connection; responses held until release(). */
interface HeldServer {
  origin: string;
  hits: { url: string; connection: number }[];
  waiting(): number;
  /** Answers every held request with 200. */
  release(): void;
}

/**
 * A server on 127.0.0.1 that holds every response until released, with a keep-alive long enough (10 s) for undici to
 * keep its connections (the shared test server's 1 s hint is below undici's threshold: it closes them at once).
 */
async function heldServer(): Promise<HeldServer> {
  const open: ServerResponse[] = [];
  const hits: HeldServer['hits'] = [];
  const numbers = new WeakMap<object, number>();
  const server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', connection: numbers.get(req.socket) ?? -1 });
    open.push(res);
  });
  let connections = 0;
  server.on('connection', (socket) => numbers.set(socket, ++connections));
  server.keepAliveTimeout = 10_000;
  const loopback = await listenLoopback(server);
  servers.push(loopback);
  return {
    origin: loopback.origin,
    hits,
    waiting: () => open.length,
    release: () => {
      for (const res of open.splice(0)) res.end('ok');
    },
  };
}

/** A call's end: its status, or the refusal (or error name) it was rejected with. */
async function ending(call: ReturnType<typeof request>): Promise<number | string> {
  try {
    const response = await call;
    await response.body.text();
    return response.statusCode;
  } catch (error) {
    return error instanceof SeawallError && error.refusal !== null ? error.refusal : (error as Error).name;
  }
}

function tally(ends: (number | string)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of ends) out[String(e)] = (out[String(e)] ?? 0) + 1;
  return out;
}

describe('pending means pending (retryInterceptor with its pool)', () => {
  it('admits 50 concurrent calls onto 50 warmed idle keep-alive connections with maxPendingRequests 10', async () => {
    const hold = await heldServer();
    const server = hold;
    const origin = hold.origin;
    const agent = track(new Agent({ connections: 50 }));
    // Warm 50 connections: 50 requests held at once take 50 sockets, which stay open (keep-alive) once answered.
    const warm = Array.from({ length: 50 }, () => ending(request(`${origin}/warm`, { dispatcher: agent })));
    await waitFor(() => hold.waiting() === 50, 5000, '50 warm-up requests on 50 connections');
    hold.release();
    expect(tally(await Promise.all(warm))).toEqual({ 200: 50 });
    await waitFor(
      () => ((agent.stats[origin] as { free?: number } | undefined)?.free ?? 0) === 50,
      2000,
      'the 50 connections to be idle',
    );
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxPendingRequests: 10 },
      pool: agent,
    });
    const dispatcher = agent.compose(interceptor);
    const calls = Array.from({ length: 50 }, (_, i) => ending(request(`${origin}/c${i}`, { dispatcher })));
    // Each found a free connection: none is pending, none refused.
    expect(only(interceptor.stats()).limits).toMatchObject({
      pendingRequests: 0,
      activeRequests: 50,
      pendingOverflow: 0,
    });
    await waitFor(() => hold.waiting() === 50, 5000, 'the 50 calls to reach the server');
    expect(interceptor.stats().signals.upstream_rq_total).toBe(50);
    hold.release();
    expect(tally(await Promise.all(calls))).toEqual({ 200: 50 });
    expect(server.hits).toHaveLength(100); // 50 warm-up requests, 50 calls, on the same 50 connections
    expect(new Set(server.hits.map((h) => h.connection)).size).toBe(50);
    expect(idle(only(interceptor.stats()))).toEqual(IDLE);
  });

  it('still limits pending when no connection is free: requests waiting for one are refused over maxPendingRequests', async () => {
    const hold = await heldServer();
    const server = hold;
    const origin = hold.origin;
    const agent = track(new Agent({ connections: 2 }));
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxPendingRequests: 3 },
      pool: agent,
    });
    const dispatcher = agent.compose(interceptor);
    // No connection yet: the first two wait for theirs (pending), then hold both connections.
    const first = [0, 1].map((i) => ending(request(`${origin}/a${i}`, { dispatcher })));
    await waitFor(() => hold.waiting() === 2, 5000, 'two requests on the two connections');
    expect(only(interceptor.stats()).limits).toMatchObject({ pendingRequests: 0, activeRequests: 2 });
    const waiting = [0, 1, 2, 3, 4].map((i) => ending(request(`${origin}/b${i}`, { dispatcher })));
    expect(only(interceptor.stats()).limits).toMatchObject({ pendingRequests: 3, pendingOverflow: 2 });
    hold.release();
    await waitFor(() => hold.waiting() === 2, 5000, 'two pending requests on the freed connections');
    hold.release();
    await waitFor(() => hold.waiting() === 1, 5000, 'the last pending request');
    hold.release();
    expect(tally([...(await Promise.all(first)), ...(await Promise.all(waiting))])).toEqual({
      200: 5,
      'max-pending': 2,
    });
    expect(interceptor.stats().signals.upstream_rq_total).toBe(5);
    expect(server.hits).toHaveLength(5);
    expect(idle(only(interceptor.stats()))).toEqual(IDLE);
  });

  it('counts in upstream_rq_total exactly what the server received: refusals, aborts and timeouts while pending are not sent', async () => {
    const hold = await heldServer();
    const server = hold;
    const origin = hold.origin;
    const agent = track(new Agent({ connections: 2 }));
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxPendingRequests: 6 },
      pool: agent,
    });
    const dispatcher = agent.compose(interceptor);
    const busy = [0, 1].map((i) => ending(request(`${origin}/busy${i}`, { dispatcher })));
    await waitFor(() => hold.waiting() === 2, 5000, 'both connections busy');
    // Six wait for a connection: two are aborted by their caller, two time out; two more are refused (max-pending).
    const aborts = [new AbortController(), new AbortController()];
    const aborted = aborts.map((c, i) => ending(request(`${origin}/abort${i}`, { dispatcher, signal: c.signal })));
    const timedOut = [0, 1].map((i) =>
      ending(request(`${origin}/slow${i}`, { dispatcher, seawall: { perTryTimeout: 50 } })),
    );
    const patient = [0, 1].map((i) => ending(request(`${origin}/wait${i}`, { dispatcher })));
    const refused = [0, 1].map((i) => ending(request(`${origin}/over${i}`, { dispatcher })));
    for (const c of aborts) c.abort();
    expect(tally(await Promise.all([...aborted, ...refused]))).toEqual({ AbortError: 2, 'max-pending': 2 });
    expect(tally(await Promise.all(timedOut))).toEqual({ SeawallError: 2 });
    hold.release();
    await waitFor(() => hold.waiting() === 2, 5000, 'the two patient calls on the freed connections');
    hold.release();
    expect(tally([...(await Promise.all(busy)), ...(await Promise.all(patient))])).toEqual({ 200: 4 });
    const hits = server.hits.map((h) => h.url).sort();
    expect(hits).toEqual(['/busy0', '/busy1', '/wait0', '/wait1']);
    expect(interceptor.stats().signals.upstream_rq_total).toBe(hits?.length);
    expect(idle(only(interceptor.stats()))).toEqual(IDLE);
  });

  it('refuses a pool that is no undici dispatcher, and a pool given to createFetch, by key', () => {
    expect(() => retryInterceptor({ policy: quick(), pool: 3 as never })).toThrow(
      /pool: must be the undici Agent, Pool or Client the interceptor is composed onto, got number/,
    );
    expect(() => createFetch({ policy: quick(), pool: { stats: {} } } as never)).toThrow(
      /pool: is not an option of the Seawall client/,
    );
  });

  it('refuses limits.maxPendingRequests without pool: a limit that could never bind is said, not ignored', () => {
    expect(() => retryInterceptor({ policy: quick(), limits: { maxRequests: 5, maxPendingRequests: 2 } })).toThrow(
      /limits\.maxPendingRequests: binds only with `pool`/,
    );
    // Without the key, or with the pool, it is fine.
    expect(() => retryInterceptor({ policy: quick(), limits: { maxRequests: 5 } })).not.toThrow();
    const agent = new Agent();
    expect(() =>
      retryInterceptor({ policy: quick(), pool: agent, limits: { maxRequests: 5, maxPendingRequests: 2 } }),
    ).not.toThrow();
    void agent.close();
  });
});
