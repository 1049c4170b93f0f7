// When an inbound exchange is over for good: its response finished, or its connection (HTTP/1.1) or stream (HTTP/2) closed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Told once (or more: it must be idempotent) when the exchange is over. */
export interface ExchangeEnd {
  exchangeOver(): void;
}

const EXCHANGE = Symbol('seawall.exchange');
const PIPELINED = Symbol('seawall.pipelined');
type TrackedResponse = ServerResponse & { [EXCHANGE]?: ExchangeEnd };
type TrackedSocket = Socket & { [PIPELINED]?: Set<ExchangeEnd> };

/** One shared 'close' listener (no closure per request): the exchange rides on the response. */
function onResponseClose(this: TrackedResponse): void {
  this[EXCHANGE]?.exchangeOver();
}

function onSocketClose(this: TrackedSocket): void {
  const waiting = this[PIPELINED];
  this[PIPELINED] = undefined;
  if (waiting !== undefined) for (const exchange of waiting) exchange.exchangeOver();
}

/**
 * Calls `exchange.exchangeOver()` when the response has finished or the client can no longer get it. A response's
 * 'close' covers the usual case. HTTP/1.1 pipelining needs more: node hands a later request of a pipeline to its
 * handler at once but gives its response the socket only when the earlier responses are done, and if the connection
 * dies first that response never emits 'close' (it would hold its worker slot forever). Such a response (no socket
 * yet) is also watched through its connection's 'close' (one listener per connection).
 */
export function watchExchange(req: IncomingMessage, res: ServerResponse, exchange: ExchangeEnd): void {
  (res as TrackedResponse)[EXCHANGE] = exchange;
  res.on('close', onResponseClose);
  watchPipelined(req, res, exchange);
}

/**
 * Only the pipeline part of watchExchange: for a response that has no socket yet (a later request of an HTTP/1.1
 * pipeline), `exchange.exchangeOver()` when its connection closes. For adapters whose framework already watches the
 * response's own 'close' (Hono on @hono/node-server, whose request signal also misses pipelined requests).
 */
export function watchPipelined(req: IncomingMessage, res: ServerResponse, exchange: ExchangeEnd): void {
  if (res.socket !== null || req.httpVersionMajor === 2) return;
  const socket = req.socket as TrackedSocket;
  if (socket.destroyed) {
    queueMicrotask(() => exchange.exchangeOver()); // the connection is gone already
    return;
  }
  let waiting = socket[PIPELINED];
  if (waiting === undefined) {
    waiting = socket[PIPELINED] = new Set();
    // First in line: the waiting requests leave the queue before node's own listener closes the head response,
    // whose release would otherwise hand a freed worker to a request of this same dead connection.
    socket.prependOnceListener('close', onSocketClose);
  }
  waiting.add(exchange);
}

/** Is the connection of an HTTP/1.1 request already gone? (A request resumed from the queue checks before it runs.) */
export function connectionLost(req: IncomingMessage): boolean {
  return req.httpVersionMajor !== 2 && req.socket?.destroyed === true;
}

/** Stops watching `exchange` on its connection (it is over): keeps a long-lived keep-alive connection's set small. */
export function unwatchExchange(req: IncomingMessage, exchange: ExchangeEnd): void {
  (req.socket as TrackedSocket | null)?.[PIPELINED]?.delete(exchange);
}

/**
 * Did the client go away before getting the whole response? HTTP/1.1: the response had not finished when it closed.
 * HTTP/2 (node's compat API): a reset stream still reports the response as finished, so look at the stream: the
 * handler had not ended the response, or the stream was reset (rstCode ≠ 0; an undici client resets with NO_ERROR,
 * which the first test catches while the handler runs).
 */
export function clientGone(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.httpVersionMajor !== 2) return !res.writableFinished;
  const stream = (req as IncomingMessage & { stream?: { rstCode?: number } }).stream;
  return !res.writableEnded || (stream?.rstCode ?? 0) !== 0;
}
