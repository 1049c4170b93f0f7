// Real node:http servers on 127.0.0.1 (ephemeral ports) that script their answers and record every request they see.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the server saw it. */
export interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Date.now() when the request's headers arrived. */
  atMs: number;
  /** The request body, once read (see `readBody`). */
  body?: string;
  /** Which connection it came on (numbered in order of connection). */
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
  const sockets = new Set<Socket>();
  const connections = new WeakMap<Socket, number>();
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
  server.on('connection', (socket) => {
    connections.set(socket, sockets.size === 0 ? 1 : Math.max(...[...sockets].map((s) => connections.get(s) ?? 0)) + 1);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
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
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
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
