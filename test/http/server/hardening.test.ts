// The callee side on its worst day (issue #9): pipelines that die, handlers that throw late, skewed clocks, no options.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContext } from '../../../src/driver/context.js';
import { seawallHandler } from '../../../src/http/server/node.js';
import { DEFAULT_QUEUE_LIMIT, DEFAULT_WORKERS } from '../../../src/http/server/options.js';
import { encodeAbsoluteDeadline } from '../../../src/policy/hop/deadline.js';
import { closeAll, expectBalanced, listen, pipelined, send, serve, sleep, waitFor } from './server-helpers.js';

afterEach(closeAll);

describe('seawallHandler and HTTP/1.1 pipelining (item 1)', () => {
  // Today 4 connections each sending 2 pipelined requests and closing after 10 ms hold 4 of 4 workers forever.
  it('releases the slot of every request of a pipeline whose connection dies, whatever its place', async () => {
    const { port, stats } = await serve(
      (req, res) => {
        if (req.url === '/ok') res.end('ok'); // everything else holds until its client is gone (and ignores it)
      },
      { workers: 4, queueLimit: 8, meter: false },
    );
    await Promise.all([0, 1, 2, 3].map(() => pipelined(port, ['/hold', '/hold'], 10)));
    await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'every slot released');
    // A flood of such connections, three deep.
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 20 }, () => pipelined(port, ['/hold', '/hold', '/hold'], 5)));
    }
    await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'every slot released after the flood');
    const s = stats();
    expectBalanced(s);
    expect(s.offered).toBeGreaterThan(8);
    expect((await send(port, { path: '/ok' })).body).toBe('ok');
  });

  it('never starts the handler of a queued request whose connection is already gone', async () => {
    let starts = 0;
    let deadStarts = 0;
    const { port, stats } = await serve(
      (req) => {
        starts++;
        if (req.socket.destroyed) deadStarts++;
      },
      { workers: 2, queueLimit: 16, meter: false },
    );
    for (let round = 0; round < 5; round++) {
      await Promise.all([0, 1, 2, 3].map(() => pipelined(port, ['/hold', '/hold'], 10)));
      await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'every slot released');
    }
    const s = stats();
    expectBalanced(s);
    expect(deadStarts).toBe(0);
    expect(starts).toBe(s.started);
    expect(s.cancelled).toBeGreaterThan(0); // queued requests of dead connections left the queue, not a worker
  });

  it('still answers every request of a healthy pipeline, in order', async () => {
    const { port, stats } = await serve((req, res) => res.end(req.url), { workers: 1, queueLimit: 8, meter: false });
    const received = await pipelined(port, ['/a', '/b', '/c'], 200);
    expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(3);
    expect(received.indexOf('/a')).toBeLessThan(received.indexOf('/b'));
    expect(received.indexOf('/b')).toBeLessThan(received.indexOf('/c'));
    await waitFor(() => stats().running === 0);
    expect(stats().completed).toBe(3);
    expect(stats().cancelledRunning).toBe(0);
  });
});

describe('a finished response is never cut (item 9)', () => {
  it('delivers all 8 MB when the handler throws after res.end()', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 97);
    const errors: unknown[] = [];
    const { port, stats } = await serve(
      async (_req, res) => {
        res.end(body);
        throw new Error('failed after the response was complete');
      },
      { workers: 1, meter: false, onError: (error) => errors.push(error) },
    );
    const reply = await send(port);
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBe(body.length);
    expect(errors).toHaveLength(1); // reported, not swallowed
    await waitFor(() => stats().running === 0);
    expect(stats().cancelledRunning).toBe(0);
  });

  it('still destroys a half-written response whose handler throws (it cannot be finished honestly)', async () => {
    const { port } = await serve(
      async (_req, res) => {
        res.writeHead(200, { 'content-length': '10' });
        res.write('12345');
        throw new Error('half way');
      },
      { workers: 1, meter: false, onError: () => {} },
    );
    await expect(send(port)).rejects.toThrow();
  });
});

describe('clock skew cannot kill a call (item 6)', () => {
  it('serves a caller whose clock is 2.5 s behind (relative deadline decides) and counts the disagreement', async () => {
    let seen: number | null = null;
    const { port, stats } = await serve(
      (_req, res) => {
        seen = currentContext()?.deadlineMs ?? null;
        res.end('ok');
      },
      { workers: 1, meter: false },
    );
    const behind = Date.now() - 2500;
    const headers = {
      'grpc-timeout': '2000m',
      'x-request-deadline': encodeAbsoluteDeadline(behind + 2000), // already past on our clock
      'x-seawall-attempt': '1',
    };
    const started = Date.now();
    const reply = await send(port, { headers });
    expect(reply.status).toBe(200);
    expect(seen).toBeGreaterThanOrEqual(started + 1900);
    expect(stats()).toMatchObject({ deadlineSkew: 1, droppedOnArrival: 0, malformedHeaders: 0 });
    await send(port, {
      headers: { 'grpc-timeout': '2000m', 'x-request-deadline': encodeAbsoluteDeadline(Date.now() + 2000) },
    });
    expect(stats().deadlineSkew).toBe(1); // in step: not counted
  });
});

describe('bad options fail loudly; no options work (item 8)', () => {
  it('runs seawallHandler(fn) with the documented defaults', async () => {
    const listener = seawallHandler((_req, res) => res.end('ok'));
    const server = await listen(listener);
    try {
      expect((await send(server.port)).body).toBe('ok');
      expect(listener.gate.shedder.config).toMatchObject({ workers: DEFAULT_WORKERS, queueLimit: DEFAULT_QUEUE_LIMIT });
      expect(DEFAULT_WORKERS).toBe(1024);
    } finally {
      await server.close();
    }
  });

  it.each([
    [{ worker: 10 }, 'worker: is not an option of the Seawall middleware; did you mean workers?'],
    [{ queuelimit: 10 }, 'did you mean queueLimit?'],
    [{ onErorr: () => {} }, 'did you mean onError?'],
    [{ workers: Number.NaN }, 'workers: must be an integer >= 1'],
    [{ workers: '50' }, 'workers: must be an integer >= 1'],
    [{ retryAfter: 'soon' }, 'retryAfter: must be a duration'],
  ])('refuses %j at construction: %s', (options, message) => {
    expect(() => seawallHandler(() => {}, options as never)).toThrow(message);
  });

  it('refuses a handler that is not a function', () => {
    expect(() => seawallHandler('nope' as never)).toThrow('handler must be a function');
  });
});

describe('a stranger cannot hold a slot by never reading (slowloris through a pipeline)', () => {
  it('frees the slots of pipelined requests whose client stops reading and goes away', async () => {
    const { port, stats } = await serve(
      (_req, res) => {
        res.end(Buffer.alloc(1024 * 1024)); // 1 MB answers to a client that never reads them
      },
      { workers: 2, queueLimit: 4, meter: false },
    );
    const socket = await new Promise<net.Socket>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s));
    });
    socket.pause(); // never reads: the first response cannot finish
    socket.write(
      'GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await waitFor(() => stats().offered === 3);
    await sleep(50);
    socket.destroy();
    await waitFor(() => stats().running === 0 && stats().queued === 0, 3000, 'slots back');
    expectBalanced(stats());
  });
});
