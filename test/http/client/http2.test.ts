// HTTP/2 and connection setup on real sockets (issue #9 item 13): stream errors classified, resets seen by the callee.

import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptTimeoutError, retryInterceptor, SeawallError, seawallConnector } from '../../../src/http/index.js';
import { seawallHandler } from '../../../src/http/server/node.js';
import { listenLoopback } from '../../support/loopback.js';
import { sleep, waitFor } from '../server/server-helpers.js';
import { quick } from './client-setup.js';

const tls = {
  key: readFileSync(new URL('../../fixtures/tls/localhost-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../../fixtures/tls/localhost-cert.pem', import.meta.url)),
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An HTTP/2 (and HTTP/1.1) TLS server on 127.0.0.1 running `onStream` for every stream; counts what it saw. */
async function h2Server(onStream: (stream: http2.ServerHttp2Stream, n: number, body: string) => void) {
  const seen: { method: string; body: string }[] = [];
  const server = http2.createSecureServer({ ...tls, allowHTTP1: true });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {}); // a stream this server resets reports that reset as an error
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
    stream.on('end', () => {
      seen.push({ method: String(headers[':method']), body });
      onStream(stream, seen.length, body);
    });
  });
  const loopback = await listenLoopback(server);
  closers.push(() => {
    for (const session of sessions) session.destroy();
    return loopback.close();
  });
  return { origin: `https://127.0.0.1:${loopback.port}`, seen };
}

function h2Agent(policy = quick()) {
  const agent = new Agent({ allowH2: true, connect: { rejectUnauthorized: false } });
  closers.push(() => agent.close());
  return agent.compose(retryInterceptor({ policy }));
}

describe('HTTP/2 stream errors, classified (client)', () => {
  it('sends a POST again after REFUSED_STREAM: the server guarantees it never processed the stream', async () => {
    const server = await h2Server((stream, n) => {
      if (n === 1) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      else {
        stream.respond({ ':status': 200 });
        stream.end('paid once');
      }
    });
    const response = await request(server.origin, { dispatcher: h2Agent(), method: 'POST', body: 'pay' });
    expect(await response.body.text()).toBe('paid once');
    expect(server.seen.map((s) => s.body)).toEqual(['pay', 'pay']);
  });

  it('retries a GET whose stream was reset before the response, but not a POST (the server may have acted)', async () => {
    const server = await h2Server((stream, n) => {
      if (n === 1 || n === 3) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      else {
        stream.respond({ ':status': 200 });
        stream.end('ok');
      }
    });
    const dispatcher = h2Agent();
    const get = await request(server.origin, { dispatcher });
    expect(await get.body.text()).toBe('ok');
    const post = await request(server.origin, { dispatcher, method: 'POST', body: 'pay' }).catch((e: unknown) => e);
    expect(post).toBeInstanceOf(SeawallError);
    expect(post).toMatchObject({ reason: 'unsafe-to-retry', attempts: 1 });
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'GET', 'POST']);
  });
});

describe('a hung connect or TLS handshake (client)', () => {
  /** Accepts TCP connections and never says a word: every TLS handshake hangs. Counts the open sockets. */
  async function silentServer() {
    const sockets = new Set<net.Socket>();
    let opened = 0;
    const server = net.createServer((socket) => {
      opened++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      socket.resume(); // reads (and drops) the ClientHello, so it notices when the client closes
    });
    const loopback = await listenLoopback(server);
    closers.push(loopback.close);
    return { origin: `https://127.0.0.1:${loopback.port}`, sockets, opened: () => opened };
  }

  it('is a timeout before the request was sent, so a POST is tried again; seawallConnector closes each abandoned socket at once', async () => {
    const server = await silentServer();
    const agent = new Agent({ connect: seawallConnector({ rejectUnauthorized: false }) });
    closers.push(() => agent.close());
    const policy = quick({ perTryTimeout: 150, maxAttempts: 2 });
    const started = Date.now();
    const error = await request(server.origin, {
      dispatcher: agent.compose(retryInterceptor({ policy })),
      method: 'POST',
      body: 'pay',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeawallError);
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 2 });
    expect((error as SeawallError).lastError).toBeInstanceOf(AttemptTimeoutError);
    expect(((error as SeawallError).lastError as AttemptTimeoutError).beforeRequest).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.opened()).toBe(2);
    await waitFor(() => server.sockets.size === 0, 500, 'the abandoned sockets closed');
    expect(policy.stats()).toMatchObject({ perTryTimeouts: 2, stops: { 'attempts-exhausted': 1 } });
  });

  it('without seawallConnector still tries a POST again (never sent), the socket waits for undici', async () => {
    const server = await silentServer();
    const agent = new Agent({ connect: { rejectUnauthorized: false, timeout: 1000 } });
    closers.push(() => agent.destroy());
    const error = await request(server.origin, {
      dispatcher: agent.compose(retryInterceptor({ policy: quick({ perTryTimeout: 150, maxAttempts: 2 }) })),
      method: 'POST',
      body: 'pay',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 2 });
  });
});

describe('HTTP/2 on the callee side (node:http2 compat server with allowHTTP1)', () => {
  async function compatServer(workers = 2) {
    const aborts: string[] = [];
    const listener = seawallHandler(
      async (req, res) => {
        const signal = (await import('../../../src/driver/context.js')).currentContext()?.signal as AbortSignal;
        if (req.url === '/hold') {
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
          aborts.push((signal.reason as Error).name);
          return;
        }
        res.end('ok');
      },
      { workers, meter: false },
    );
    const server = http2.createSecureServer({ ...tls, allowHTTP1: true }, listener as never);
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    const loopback = await listenLoopback(server);
    closers.push(() => {
      for (const s of sessions) s.destroy();
      return loopback.close();
    });
    return { origin: `https://127.0.0.1:${loopback.port}`, listener, aborts };
  }

  it('fires the signal and frees the slot when an HTTP/2 client resets a running stream', async () => {
    const { origin, listener, aborts } = await compatServer();
    const agent = new Agent({ allowH2: true, connect: { rejectUnauthorized: false } });
    closers.push(() => agent.close());
    const controller = new AbortController();
    const pending = request(`${origin}/hold`, { dispatcher: agent, signal: controller.signal }).catch(() => 'aborted');
    await waitFor(() => listener.stats().running === 1);
    controller.abort();
    expect(await pending).toBe('aborted');
    await waitFor(() => aborts.length === 1, 2000, 'the handler saw its signal');
    expect(aborts).toEqual(['AbortError']);
    await waitFor(() => listener.stats().running === 0);
    expect(listener.stats().cancelledRunning).toBe(1);
  });

  it('treats a completed HTTP/2 response as finished, and serves HTTP/1.1 on the same server', async () => {
    const { origin, listener } = await compatServer();
    const h2 = new Agent({ allowH2: true, connect: { rejectUnauthorized: false } });
    const h1 = new Agent({ connect: { rejectUnauthorized: false } });
    closers.push(
      () => h2.close(),
      () => h1.close(),
    );
    for (const dispatcher of [h2, h1]) {
      const response = await request(`${origin}/ok`, { dispatcher });
      expect(await response.body.text()).toBe('ok');
    }
    await sleep(20);
    expect(listener.stats()).toMatchObject({ completed: 2, running: 0, cancelledRunning: 0 });
  });
});
