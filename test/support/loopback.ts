// The one loopback helper of the tests: servers on 127.0.0.1 (ephemeral ports), and scripted ones that record requests.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';

/** A server listening on an ephemeral loopback port. */
export interface Loopback {
  port: number;
  /** `http://127.0.0.1:<port>` (`http://[::1]:<port>` on IPv6). */
  origin: string;
  /** Destroys the connections still open (so it never hangs on a keep-alive or a held response), then closes. */
  close(): Promise<void>;
}

/**
 * Starts `server` (node:http, node:http2, node:net: any net.Server) on an ephemeral port of `host`, 127.0.0.1 unless
 * the test is about IPv6 (`::1`). Every test that needs a real socket starts its server through this function.
 */
export async function listenLoopback(server: Server, host = '127.0.0.1'): Promise<Loopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One request as the server saw it. */
export interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Date.now() when the request's headers arrived. */
  atMs: number;
  /** The request body, once read (see `readBody`). */
  body?: string;
  /** Which connection it came on (numbered in order of connection among those open). */
  connection: number;
}

export interface TestServer {
  origin: string;
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

/** `respond(req, res, hitNumber)`: hitNumber counts from 1. The server tracks sockets so close() never hangs. */
export async function startServer(
  respond: (req: IncomingMessage, res: ServerResponse, hit: Hit, n: number) => void,
): Promise<TestServer> {
  const hits: Hit[] = [];
  const connections = new WeakMap<Socket, number>();
  const open = new Set<Socket>();
  const server = createServer((req, res) => {
    const hit: Hit = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      atMs: Date.now(),
      connection: connections.get(req.socket) ?? -1,
    };
    hits.push(hit);
    respond(req, res, hit, hits.length);
  });
  // Numbered among the connections open now: 1 + the highest open number (1 again once every earlier one closed).
  server.on('connection', (socket) => {
    connections.set(socket, open.size === 0 ? 1 : Math.max(...[...open].map((s) => connections.get(s) ?? 0)) + 1);
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  server.keepAliveTimeout = 1000;
  const { port, origin, close } = await listenLoopback(server);
  return { origin, port, hits, close };
}

/** Reads the whole request body into hit.body, then calls `then`. */
export function readBody(req: IncomingMessage, hit: Hit, then: () => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    hit.body = Buffer.concat(chunks).toString();
    then();
  });
}

/** A port on 127.0.0.1 where nothing listens (connections are refused). */
export async function closedPort(): Promise<number> {
  const { port, close } = await listenLoopback(createServer());
  await close();
  return port;
}

/** Answers with headers and part of the promised body, then resets the connection (a reset mid-response). */
export function resetMidBody(res: ServerResponse): void {
  res.writeHead(200, { 'content-length': '100', 'content-type': 'text/plain' });
  res.write('only ten b');
  setTimeout(() => res.socket?.resetAndDestroy(), 5);
}

/** Resets the connection without answering (a reset before any response byte). */
export function resetBeforeResponse(res: ServerResponse): void {
  res.socket?.resetAndDestroy();
}

/** Resolves after `ms` of real time. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Awaits `promise` for at most `ms` of real time, else fails with "`what`: not within `ms` ms". A test that waits on
 * a mechanism (a deadline, an abort, a timer) bounds its wait this way, so that with the mechanism broken it turns red
 * in seconds and says what did not happen, instead of hanging to the 60 s test timeout.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Awaits a promise that must reject; returns the rejection reason. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
