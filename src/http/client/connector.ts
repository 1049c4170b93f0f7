// An undici connector that lets retryInterceptor close at once a connection it gave up on while it was being set up.

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/** undici, loaded when a connector is first built: importing Seawall's drivers must not cost undici's load time. */
let undici: typeof import('undici') | undefined;
function loadUndici(): typeof import('undici') {
  undici ??= createRequire(import.meta.url)('undici') as typeof import('undici');
  return undici;
}

/** Whoever is dispatching right now and wants to know the socket its dispatch opens (set around dispatch()). */
export interface SocketWatcher {
  socket: Socket | undefined;
}

let dispatching: SocketWatcher | null = null;

/**
 * Runs `dispatch` with `watcher` told about the socket a Seawall connector opens for it. undici opens a new
 * connection synchronously inside dispatch(), so a module-level slot (saved and restored: dispatches nest through
 * interceptors) needs no per-call context. With any other connector, or a reused connection, nothing is recorded.
 */
export function dispatchWatched<O, H, R>(
  watcher: SocketWatcher,
  dispatch: (opts: O, handler: H) => R,
  opts: O,
  handler: H,
): R {
  const outer = dispatching;
  dispatching = watcher;
  try {
    return dispatch(opts, handler); // arguments, not a closure: this runs once per attempt
  } finally {
    dispatching = outer;
  }
}

/** The error a connection abandoned while connecting is destroyed with: a connect failure for every request on it. */
export class ConnectAbandonedError extends Error {
  /** Not one of undici's "recoverable" socket codes, so undici fails the waiting requests instead of reconnecting. */
  readonly code = 'SEAWALL_CONNECT_ABANDONED';

  constructor() {
    super('seawall: the attempt timed out before its connection was established; the connection was closed');
    this.name = 'ConnectAbandonedError';
  }
}

/**
 * undici's own connector (`buildConnector(options)`: TCP, TLS, its connect timeout), plus what retryInterceptor
 * needs to close a hung connect or TLS handshake the moment an attempt's per-try timeout gives up on it, instead of
 * leaving the socket open (and the process alive) until undici's connect timeout (10 s by default). Use it as the
 * Agent's `connect`: `new Agent({ connect: seawallConnector() }).compose(retryInterceptor({ policy }))`. Pass the
 * TLS and connection options you would give the Agent's `connect` (and `allowH2: true` for HTTP/2).
 */
export function seawallConnector(options?: buildConnector.BuildOptions): buildConnector.connector {
  const connect = loadUndici().buildConnector(options ?? {}) as unknown as (
    options: buildConnector.Options,
    callback: buildConnector.Callback,
  ) => Socket | undefined;
  return (connectOptions, callback) => {
    const watcher = dispatching;
    const socket = connect(connectOptions, callback);
    if (watcher !== null && socket !== undefined) watcher.socket = socket;
    return socket as unknown as undefined;
  };
}

/**
 * Closes a socket opened for an attempt that never got onto it (undici never called the attempt's onConnect, so the
 * socket is still in its TCP connect or TLS handshake). Every request waiting for it gets a ConnectAbandonedError,
 * which Seawall reads as a connect failure: never sent, safe to send again.
 */
export function closeAbandoned(socket: Socket | undefined): void {
  if (socket !== undefined && !socket.destroyed) socket.destroy(new ConnectAbandonedError());
}
