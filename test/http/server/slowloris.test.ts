// Slow clients on raw sockets: a worker slot is taken only once headers are complete, and the server's
// headersTimeout/requestTimeout take it back from a client that dribbles its body.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { seawallHandler } from '../../../src/http/server/node.js';
import { within } from '../../support/loopback.js';
import { listen, type Running, send, sleep, waitFor } from './server-helpers.js';

let running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

/** A server with short timeouts (the settings docs/server.md recommends, scaled down for a test). */
async function slowlorisServer() {
  const listener = seawallHandler(
    async (req, res) => {
      for await (const _chunk of req) {
        // read the whole body before answering, like a JSON endpoint
      }
      res.end('ok');
    },
    { workers: 1, queueLimit: 0, meter: false },
  );
  const server = http.createServer(
    { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50, keepAliveTimeout: 1000 },
    listener,
  );
  const r = await listen(server);
  running.push(r);
  return { port: r.port, stats: () => listener.stats() };
}

function rawSocket(port: number): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      let received = '';
      socket.on('data', (d) => (received += d.toString('latin1')));
      const closed = new Promise<string>((r) => socket.on('close', () => r(received)));
      resolve({ socket, closed });
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

describe('slow clients (slowloris)', () => {
  it('a client that never finishes its headers takes no worker slot and is cut off at headersTimeout', async () => {
    const { port, stats } = await slowlorisServer();
    const { socket, closed } = await rawSocket(port);
    const started = Date.now();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    const dribble = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 50);
    try {
      await sleep(100);
      expect(stats().offered).toBe(0); // the middleware has not even seen it
      // The only slot is free: a normal request is served while the slow one dribbles.
      expect((await send(port)).status).toBe(200);
      const answer = await within(closed, 5000, 'the slow client to be cut off at headersTimeout (300 ms)');
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      clearInterval(dribble);
    }
  });

  it('a client that sends headers then dribbles the body holds its slot only until requestTimeout', async () => {
    const { port, stats } = await slowlorisServer();
    const { socket, closed } = await rawSocket(port);
    const started = Date.now();
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
    const dribble = setInterval(() => socket.writable && socket.write('a'), 50);
    try {
      await waitFor(() => stats().running === 1, 1000, 'the slow request to take the slot');
      expect((await send(port)).status).toBe(503); // the slot is held meanwhile (queueLimit 0)
      await within(closed, 5000, 'the slow client to be cut off at requestTimeout (600 ms)');
      const heldMs = Date.now() - started;
      await waitFor(() => stats().running === 0, 1000, 'the slot to come back');
      expect(heldMs).toBeLessThan(2000); // requestTimeout 600 ms + checking interval, not forever
      expect(stats().cancelledRunning).toBe(1);
      expect((await send(port)).status).toBe(200);
    } finally {
      clearInterval(dribble);
    }
  });
});
