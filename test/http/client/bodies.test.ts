// Discarded response bodies are bounded (issue #9 item 2): drained up to drain.maxBytes / drain.timeout, cancelled at call end.

import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, type SeawallClientOptions } from '../../../src/http/index.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const { agentWith } = agentsClosedAfterEach();

/** What the server saw of one endless response: bytes it managed to write, and when its connection closed. */
interface Flood {
  startedMs: number;
  written: number;
  closedMs: number | null;
}

/** At most this much per response, so that a run with the defect back stays finite (and fails) instead of eating RAM. */
const FLOOD_LIMIT = 512 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 120);

/** A 503 (with `headers`) whose body never ends: 64 KiB chunks as fast as the client reads them. */
function flood(res: ServerResponse, headers: Record<string, string>, floods: Flood[]): void {
  const f: Flood = { startedMs: Date.now(), written: 0, closedMs: null };
  floods.push(f);
  res.on('close', () => {
    f.closedMs = Date.now();
  });
  res.writeHead(503, headers);
  const pump = (): void => {
    while (!res.destroyed && f.written < FLOOD_LIMIT) {
      f.written += CHUNK.length;
      if (!res.write(CHUNK)) return;
    }
  };
  res.on('drain', pump);
  pump();
}

/** A 503 whose body trickles: one byte every 20 ms, forever. */
function trickle(res: ServerResponse, headers: Record<string, string>, floods: Flood[]): void {
  const f: Flood = { startedMs: Date.now(), written: 0, closedMs: null };
  floods.push(f);
  res.writeHead(503, headers);
  const timer = setInterval(() => {
    f.written++;
    res.write('x');
  }, 20);
  res.on('close', () => {
    clearInterval(timer);
    f.closedMs = Date.now();
  });
}

type Call = (options: SeawallClientOptions, url: string) => Promise<number>;
const drivers: Record<string, Call> = {
  fetch: async (options, url) => {
    const response = await createFetch(options)(url);
    await response.arrayBuffer();
    return response.status;
  },
  undici: async (options, url) => {
    const response = await request(url, { dispatcher: agentWith(options) });
    await response.body.arrayBuffer();
    return response.statusCode;
  },
};

describe.each(Object.keys(drivers))('%s: the body of a retried 503', (name) => {
  const call = drivers[name] as Call;

  it('is drained only up to drain.maxBytes during the backoff, then its connection is closed', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) flood(res, { 'retry-after-ms': '1500' }, floods);
      else res.end('ok');
    });
    expect(await call({ policy: quick() }, server.origin)).toBe(200);
    const first = floods[0] as Flood;
    const second = server.hits[1]?.atMs ?? 0;
    // Closed long before the 1.5 s backoff ended, having written the drain bound plus what socket buffers hold
    // (several MB on loopback), not the gigabytes an unbounded drain reads in 1.5 s.
    expect(first.closedMs).not.toBeNull();
    expect((first.closedMs as number) - first.startedMs).toBeLessThan(700);
    expect(second - (first.closedMs as number)).toBeGreaterThan(500);
    expect(first.written).toBeLessThan(32 * 1024 * 1024);
  });

  it('is not buffered without bound with bufferResponse either (an error is decided on its head)', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) flood(res, { 'retry-after-ms': '1000' }, floods);
      else res.end('ok');
    });
    expect(await call({ policy: quick(), bufferResponse: true }, server.origin)).toBe(200);
    const first = floods[0] as Flood;
    expect((first.closedMs as number) - first.startedMs).toBeLessThan(500);
    expect(first.written).toBeLessThan(32 * 1024 * 1024);
  });

  it('is drained for at most drain.timeout when it trickles', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) trickle(res, { 'retry-after-ms': '1200' }, floods);
      else res.end('ok');
    });
    expect(await call({ policy: quick(), drain: { timeout: '100ms' } }, server.origin)).toBe(200);
    const first = floods[0] as Flood;
    expect(first.closedMs).not.toBeNull();
    expect((first.closedMs as number) - first.startedMs).toBeLessThan(600);
    expect((server.hits[1]?.atMs ?? 0) - (first.closedMs as number)).toBeGreaterThan(400);
  });

  it('is not read at all with drain.maxBytes 0: its connection is closed at once', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res, _hit, n) => {
      if (n > 1) return res.end('ok');
      // A head, then a body that never starts: a drain would wait for it (here until drain.timeout, 10 s).
      const f: Flood = { startedMs: Date.now(), written: 0, closedMs: null };
      floods.push(f);
      res.on('close', () => (f.closedMs = Date.now()));
      res.writeHead(503, { 'retry-after-ms': '800', 'content-length': '1000' });
      res.flushHeaders();
    });
    expect(await call({ policy: quick(), drain: { maxBytes: 0, timeout: '10s' } }, server.origin)).toBe(200);
    const first = floods[0] as Flood;
    expect(first.closedMs).not.toBeNull();
    expect((first.closedMs as number) - first.startedMs).toBeLessThan(500);
  });
});

describe.each(Object.keys(drivers))('%s: the last response of a call that gives up (rejectOnGiveUp)', (name) => {
  const call = drivers[name] as Call;

  it('is cancelled when the call rejects: nothing reads on after the call, nothing holds the process', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res) => flood(res, {}, floods));
    // Drain bounds far away, so only the end of the call can be what closes the connection.
    const options = {
      policy: quick({ maxAttempts: 1 }),
      rejectOnGiveUp: true,
      drain: { maxBytes: 2 ** 40, timeout: '10s' as const },
    };
    const error = await call(options, server.origin).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'attempts-exhausted' });
    const rejectedMs = Date.now();
    const f = floods[0] as Flood;
    // Closed with the rejection (~0 ms); a drain left running would hold it up to its 10 s timeout.
    await waitFor(() => f.closedMs !== null, 3000, 'the connection of the last response to close');
    expect((f.closedMs as number) - rejectedMs).toBeLessThan(1000);
    expect(f.written).toBeLessThan(32 * 1024 * 1024);
  });

  it('stops a drain in progress when the call ends early (its caller aborts during the backoff)', async () => {
    const floods: Flood[] = [];
    server = await startServer((_req, res) => trickle(res, { 'retry-after-ms': '5000' }, floods));
    const controller = new AbortController();
    const policy = quick({ deadline: { patience: '10s' } });
    const options = { policy, drain: { timeout: '10s' as const } };
    const pending =
      name === 'fetch'
        ? createFetch(options)(server.origin, { signal: controller.signal })
        : request(server.origin, { dispatcher: agentWith(options), signal: controller.signal });
    await waitFor(() => policy.stats().retries === 1, 3000, 'the retry after the first 503'); // now in the backoff
    expect((floods[0] as Flood).closedMs).toBeNull(); // draining (bounded by drain.timeout, 10 s here)
    controller.abort();
    await pending.catch(() => undefined);
    // ~0 ms after the abort; a drain the end of the call does not stop goes on to its 10 s timeout.
    await waitFor(
      () => (floods[0] as Flood).closedMs !== null,
      3000,
      'the drained connection to close after the abort',
    );
  });
});
