// Test helpers for the callee middleware: real servers on 127.0.0.1 (ephemeral ports) and a plain node client.
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import net from 'node:net';
import { expect } from 'vitest';
import type { ServerStats } from '../../../src/http/server/core.js';
import { type NodeHandlerOptions, seawallHandler } from '../../../src/http/server/node.js';
import { listenLoopback } from '../../support/loopback.js';

export interface Running {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

/** Starts `listener` on an ephemeral loopback port (servers.ts listenLoopback, the one helper). */
export async function listen(listener: RequestListener | http.Server): Promise<Running> {
  const server = listener instanceof http.Server ? listener : http.createServer(listener);
  const { port, close } = await listenLoopback(server);
  return { server, port, close };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  method?: string;
  path?: string;
  body?: string;
  agent?: http.Agent | false;
}

/** One request; resolves with the whole response. */
export function send(port: number, options: SendOptions = {}): Promise<Reply> {
  const { req, reply } = open(port, options);
  req.end(options.body);
  return reply;
}

/**
 * How long a request may go without a byte of its reply. No test holds one for more than ~2 s; a request that got
 * nothing for this long rejects, naming itself, instead of keeping its test waiting to the 60 s test timeout.
 */
const REPLY_IDLE_LIMIT_MS = 10_000;

/** A request whose lifetime the test controls (destroy it to simulate a client that went away). */
export function open(port: number, options: SendOptions = {}): { req: http.ClientRequest; reply: Promise<Reply> } {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/';
  const req = http.request({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: options.headers,
    agent: options.agent ?? false,
  });
  req.setTimeout(REPLY_IDLE_LIMIT_MS, () =>
    req.destroy(new Error(`${method} ${path}: nothing of the reply within ${REPLY_IDLE_LIMIT_MS} ms`)),
  );
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
  });
  reply.catch(() => {}); // a destroyed request rejects; tests that care await it
  return { req, reply };
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls `condition` every 5 ms until it holds (or fails after `timeoutMs`). */
export async function waitFor(condition: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// --- seawallHandler test scaffolding shared by the server*.test.ts files ---

const started: Running[] = [];

/** Closes every server `serve()` started (call from afterEach). */
export async function closeAll(): Promise<void> {
  await Promise.all(started.splice(0).map((r) => r.close()));
}

/** seawallHandler(handler, options) on an ephemeral port (metrics off unless given). */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  options: NodeHandlerOptions,
) {
  const listener = seawallHandler(handler, { meter: false, ...options });
  const server = await listen(listener);
  started.push(server);
  return { port: server.port, listener, stats: () => listener.stats() };
}

/** offered = started + shed + dropped(both) + cancelled + queued; started = completed + running. */
export function expectBalanced(s: ServerStats): void {
  expect(s.offered).toBe(s.started + s.shed + s.droppedOnArrival + s.dropped + s.cancelled + s.queued);
  expect(s.started).toBe(s.completed + s.running);
}

/** A handler that holds every request until the test releases it, recording which it ran and the peak concurrency. */
export function gatedHandler() {
  const holds: (() => void)[] = [];
  const seen: string[] = [];
  let active = 0;
  let peak = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? '');
    active++;
    peak = Math.max(peak, active);
    holds.push(() => {
      active--;
      res.end('ok');
    });
  };
  const releaseOne = () => (holds.shift() as () => void)();
  return { handler, holds, seen, releaseOne, peak: () => peak };
}

/**
 * Opens a raw connection, writes `paths` as pipelined HTTP/1.1 GETs in one go, reads whatever comes back, and
 * destroys the connection after `closeAfterMs`.
 */
export async function pipelined(port: number, paths: readonly string[], closeAfterMs: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => {});
  socket.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join(''));
  await sleep(closeAfterMs);
  socket.destroy();
  return received;
}
