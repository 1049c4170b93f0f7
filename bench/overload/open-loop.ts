// Open-loop HTTP/1.1 load generator on raw sockets: Poisson arrivals at a fixed rate whatever the server does,
// one request per keep-alive connection at a time, each request abandoned (socket closed) at its deadline.
// Raw sockets because an undici/fetch client cannot issue 25k req/s on one shared core; autocannon can, but it is a
// closed loop (see load.ts).
import net from 'node:net';
import { LatencyHistogram } from './histogram.js';
import type { LoadResult, LoadSpec } from './load.js';

const CRLF2 = Buffer.from('\r\n\r\n');

class Conn {
  socket: net.Socket;
  connected = false;
  busy = false;
  /** Arrival time of the request in flight (performance.now()). */
  scheduledAt = 0;
  /** Incremented per request: lets stale entries in the deadline queue be skipped. */
  seq = 0;
  buf: Buffer | null = null;

  constructor(port: number) {
    this.socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  }
}

/** Parses one response at the start of `buf`: [status, total length] or null if incomplete. */
function parseResponse(buf: Buffer): [number, number, boolean] | null {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return null;
  const head = buf.toString('latin1', 0, end).toLowerCase();
  const status = Number(head.slice(9, 12));
  const close = head.includes('\r\nconnection: close');
  const cl = /\r\ncontent-length: *(\d+)/.exec(head);
  if (cl) {
    const total = end + 4 + Number(cl[1]);
    return buf.length >= total ? [status, total, close] : null;
  }
  if (head.includes('\r\ntransfer-encoding: chunked')) {
    const last = buf.indexOf('\r\n0\r\n\r\n', end + 4 - 2);
    return last < 0 ? null : [status, last + 7, close];
  }
  return [status, end + 4, close]; // no body (e.g. 304) or read-until-close: treat as headers only
}

export async function openLoopRaw(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.url);
  const port = Number(url.port);
  const request = Buffer.from(
    `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\ngrpc-timeout: ${spec.deadlineMs}m\r\n\r\n`,
    'latin1',
  );
  const histogram = new LatencyHistogram();
  const result: LoadResult = { offered: 0, ok: 0, okLate: 0, statuses: {}, timeouts: 0, errors: 0, p50Ms: 0, p99Ms: 0 };
  const idle: Conn[] = [];
  const all = new Set<Conn>();
  let inFlight = 0;
  /** (conn, seq, expiresAt) in send order: all deadlines are equal, so expiry order = send order. */
  const deadlines: { conn: Conn; seq: number; at: number }[] = [];
  let deadlineHead = 0;

  const finish = (conn: Conn) => {
    conn.busy = false;
    inFlight--;
  };

  const open = (): Conn => {
    const conn = new Conn(port);
    all.add(conn);
    conn.socket.on('connect', () => {
      conn.connected = true;
      if (conn.busy) conn.socket.write(request);
      else idle.push(conn);
    });
    conn.socket.on('data', (chunk: Buffer) => {
      let buf = conn.buf === null ? chunk : Buffer.concat([conn.buf, chunk]);
      for (;;) {
        const parsed = parseResponse(buf);
        if (parsed === null) break;
        const [status, length, close] = parsed;
        buf = buf.subarray(length);
        if (!conn.busy) continue;
        const ms = performance.now() - conn.scheduledAt;
        if (status >= 200 && status < 300) {
          if (ms <= spec.deadlineMs) {
            result.ok++;
            histogram.record(ms);
          } else result.okLate++;
        } else {
          result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        }
        finish(conn);
        if (close) {
          conn.socket.destroy();
          return;
        }
        idle.push(conn);
      }
      conn.buf = buf.length > 0 ? Buffer.from(buf) : null;
    });
    const gone = () => {
      if (!all.delete(conn)) return;
      if (conn.busy) {
        result.errors++;
        finish(conn);
      }
      const i = idle.indexOf(conn);
      if (i >= 0) idle.splice(i, 1);
    };
    conn.socket.on('error', gone);
    conn.socket.on('close', gone);
    return conn;
  };

  const fire = (scheduledAt: number) => {
    result.offered++;
    let conn = idle.pop();
    while (conn?.socket.destroyed) conn = idle.pop();
    if (conn === undefined) {
      if (all.size >= spec.connections) {
        result.errors++; // the generator's own limit: counted, never silently dropped
        return;
      }
      conn = open();
    }
    conn.busy = true;
    conn.scheduledAt = scheduledAt;
    conn.seq++;
    conn.buf = null;
    inFlight++;
    deadlines.push({ conn, seq: conn.seq, at: scheduledAt + spec.deadlineMs });
    if (conn.connected) conn.socket.write(request);
  };

  const sweep = (now: number) => {
    while (deadlineHead < deadlines.length) {
      const d = deadlines[deadlineHead] as { conn: Conn; seq: number; at: number };
      if (d.at > now) break;
      deadlineHead++;
      if (d.conn.busy && d.conn.seq === d.seq) {
        // The user gives up: close the connection, as a browser or a Seawall client with a deadline does.
        result.timeouts++;
        finish(d.conn);
        all.delete(d.conn);
        d.conn.socket.destroy();
      }
    }
    if (deadlineHead > 65_536) {
      deadlines.splice(0, deadlineHead);
      deadlineHead = 0;
    }
  };

  // Pre-open connections (in batches, so the listen backlog never overflows and SYNs are not retried a second
  // later): enough for 100 ms of arrivals, so the run does not start with a handshake storm.
  const preopen = Math.min(spec.connections, Math.ceil(spec.ratePerS * 0.1));
  while (idle.length < preopen) {
    const batch = Math.min(200, preopen - idle.length);
    for (let i = 0; i < batch; i++) open();
    const want = idle.length + batch;
    const until = performance.now() + 2000;
    while (idle.length < want && performance.now() < until) await new Promise((r) => setTimeout(r, 5));
    if (idle.length < want) break;
  }

  const start = performance.now();
  const end = start + spec.durationS * 1000;
  let next = start;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next <= now && next < end) {
        fire(next);
        next += (-Math.log(1 - Math.random()) * 1000) / spec.ratePerS;
      }
      sweep(now);
      if (next < end) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const settleBy = performance.now() + spec.deadlineMs + 200;
  while (inFlight > 0 && performance.now() < settleBy) {
    await new Promise((r) => setTimeout(r, 10));
    sweep(performance.now());
  }
  for (const conn of all) conn.socket.destroy();
  result.p50Ms = histogram.quantile(0.5);
  result.p99Ms = histogram.quantile(0.99);
  return result;
}
