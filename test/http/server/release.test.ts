// seawallHandler on real node:http servers: the AbortSignal, and the slot released exactly once whatever happens.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContext } from '../../../src/driver/context.js';
import { CLAIM_HEADER } from '../../../src/http/server/core.js';
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

describe('seawallHandler signal and release', () => {
  it('fires the AbortSignal with a TimeoutError when the deadline passes while the handler runs', async () => {
    const fired = deferred<{ name: string; afterMs: number }>();
    const { port } = await serve(
      (_req, res) => {
        const started = Date.now();
        const signal = currentContext()?.signal as AbortSignal;
        signal.addEventListener('abort', () => {
          fired.resolve({ name: (signal.reason as Error).name, afterMs: Date.now() - started });
          res.writeHead(504).end();
        });
      },
      { workers: 1 },
    );
    const reply = send(port, { headers: { 'grpc-timeout': '80m' } });
    // ~80 ms; a signal that never fires fails here at 2 s, not at the 60 s test timeout.
    const result = await within(fired.promise, 2000, 'the handler signal to fire at the 80 ms deadline');
    expect(result.name).toBe('TimeoutError');
    expect(result.afterMs).toBeGreaterThanOrEqual(60);
    expect(result.afterMs).toBeLessThan(1000);
    expect((await reply).status).toBe(504);
  });

  it('fires the AbortSignal with an AbortError when the client goes away, and releases the slot', async () => {
    const fired = deferred<string>();
    const { port, stats } = await serve(
      (_req, _res) => {
        const signal = currentContext()?.signal as AbortSignal;
        signal.addEventListener('abort', () => fired.resolve((signal.reason as Error).name));
      },
      { workers: 1 },
    );
    const { req } = open(port);
    req.end();
    await waitFor(() => stats().running === 1);
    req.destroy();
    expect(await fired.promise).toBe('AbortError');
    await waitFor(() => stats().running === 0);
    expect(stats().cancelledRunning).toBe(1);
    expectBalanced(stats());
  });

  it('releases a slot exactly once when the client leaves and the handler, ignoring the signal, ends later', async () => {
    const finishes: ServerResponse[] = [];
    const { port, stats } = await serve(
      (req, res) => {
        if (req.url === '/ignorer') setTimeout(() => finishes.push(res), 0);
        // both hold the worker until the test ends them
        else finishes.push(res);
      },
      { workers: 1 },
    );
    const ignorer = open(port, { path: '/ignorer' });
    ignorer.req.end();
    await waitFor(() => finishes.length === 1);
    const next = send(port, { path: '/next' });
    await waitFor(() => stats().queued === 1);
    ignorer.req.destroy(); // the slot passes to /next
    await waitFor(() => finishes.length === 2);
    (finishes[0] as ServerResponse).end('too late'); // the ignorer finishes afterwards: must not release /next's slot
    await sleep(20);
    expect(stats().running).toBe(1);
    expect(stats().completed).toBe(1);
    (finishes[1] as ServerResponse).end('ok');
    expect((await next).status).toBe(200);
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(2);
    expectBalanced(stats());
  });

  it('answers 500 (claimed) and releases when the handler throws', async () => {
    const errors: unknown[] = [];
    const { port, stats } = await serve(
      () => {
        throw new Error('boom');
      },
      { workers: 1, onError: (e) => errors.push(e) },
    );
    const reply = await send(port);
    expect(reply.status).toBe(500);
    expect(reply.headers[CLAIM_HEADER]).toBe('1');
    expect(errors).toHaveLength(1);
    await waitFor(() => stats().running === 0);
    expect(stats().handler5xx).toBe(1);
    expect((await send(port)).status).toBe(500); // the slot came back
  });

  it('answers 500 and releases when an async handler rejects', async () => {
    const { port, stats } = await serve(
      async () => {
        await sleep(5);
        throw new Error('async boom');
      },
      { workers: 1, onError: () => {} },
    );
    expect((await send(port)).status).toBe(500);
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(1);
  });

  it('destroys the socket and releases when the handler fails after sending headers', async () => {
    const { port, stats } = await serve(
      async (_req, res) => {
        res.writeHead(200);
        res.write('partial');
        await sleep(5);
        throw new Error('mid-body');
      },
      { workers: 1, onError: () => {} },
    );
    await expect(send(port)).rejects.toThrow();
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(1);
  });

  it('releases the slot when the socket dies under a handler that never answers', async () => {
    const { port, stats } = await serve(() => {}, { workers: 1 });
    const { req } = open(port);
    req.end();
    await waitFor(() => stats().running === 1);
    req.socket?.destroy();
    req.destroy();
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(1);
  });

  it('cancels a queued request whose client went away: its handler never runs', async () => {
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1 });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    const gone = open(port, { path: '/gone' });
    gone.req.end();
    await waitFor(() => stats().queued === 1);
    gone.req.destroy();
    await waitFor(() => stats().cancelled === 1);
    expect(stats().queued).toBe(0);
    g.releaseOne();
    await first;
    await sleep(20);
    expect(g.seen).toEqual(['/first']);
    expectBalanced(stats());
  });
});
