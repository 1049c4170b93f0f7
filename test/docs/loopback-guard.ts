// Preloaded into every docs program the test runs: a connection or a listening socket off 127.0.0.1 throws at once.
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function refuse(what: string, host: unknown): never {
  throw new Error(
    `docs test: ${what} ${String(host)} refused; a program in the docs that the test runs talks to 127.0.0.1 only`,
  );
}

/** The host of net's (options) / (port, host) / (path) argument forms; null for a local (IPC) path. */
function hostOf(args: unknown[]): unknown {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: unknown; path?: unknown };
    if (typeof options.path === 'string') return null;
    return options.host ?? 'default';
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null; // a pipe or socket path
  const second = Array.isArray(args[0]) ? (args[0] as unknown[])[1] : args[1];
  return typeof second === 'string' ? second : 'default';
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const host = hostOf(args);
  // A client without a host goes to localhost (node's default).
  if (host !== null && host !== 'default' && !LOOPBACK.has(String(host))) refuse('a connection to', host);
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function guardedListen(this: net.Server, ...args: unknown[]) {
  const host = hostOf(args);
  // A server without a host listens on every interface: the docs' programs name 127.0.0.1.
  if (host !== null && !LOOPBACK.has(String(host)))
    refuse('listening on', host === 'default' ? 'every interface' : host);
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;
