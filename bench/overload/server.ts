// Overload bench server (child process): a fixed-capacity handler (a pool of N "DB connections" × S ms) behind
// Seawall, bare node:http, or Fastify + @fastify/under-pressure. Reports its own figures over IPC.
import { AsyncLocalStorage } from 'node:async_hooks';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { currentContext } from '../../src/driver/context.js';
import { seawallHandler } from '../../src/http/server/node.js';
import type { ShedOptions } from '../../src/http/server/options.js';
import { LatencyHistogram } from './histogram.js';

export type ServerMode =
  | 'bare'
  | 'seawall'
  | 'seawall-deep-fifo'
  | 'seawall-deep-lifo'
  | 'under-pressure'
  | 'echo-bare'
  | 'echo-als'
  | 'echo-seawall';

export interface ServerReport {
  mode: ServerMode;
  /** Handler executions that ran to the end (the "DB query" finished). */
  work: number;
  /** ... of which nobody was waiting for any more (the client had gone). */
  wasted: number;
  /** Executions abandoned on the request's AbortSignal (Seawall only). */
  abandoned: number;
  /** 2xx responses finished, and the p50/p99 of their time in this process (arrival to last byte), ms. */
  ok: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMb: number;
  eventLoopP99Ms: number;
  /** Requests that reached the listener, and the process's CPU time (user + system) spent meanwhile. */
  requests: number;
  cpuMs: number;
  shed?: number;
  dropped?: number;
  cancelled?: number;
}

const WORKERS = 50;
const SERVICE_MS = Number(process.env.SERVICE_MS ?? 20);

/** The fixed capacity: WORKERS connections, each busy SERVICE_MS per query; an unbounded FIFO in front (like a DB pool). */
class Pool {
  private free = WORKERS;
  private readonly waiting: (() => void)[] = [];
  private head = 0;

  acquire(): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head++] as () => void;
      if (this.head > 4096 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      next();
    } else {
      this.free++;
    }
  }
}

const pool = new Pool();
const latency = new LatencyHistogram();
const counts = { work: 0, wasted: 0, abandoned: 0, ok: 0, requests: 0 };
let cpuAtReset = process.cpuUsage();
let peakRss = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 100).unref();

/** Outermost listener: times every 2xx from arrival (before any middleware queue) to its last byte. */
function timed(listener: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    finished(res, performance.now());
    listener(req, res);
  };
}

function finished(res: ServerResponse, startedAt: number): void {
  res.once('finish', () => {
    if (res.statusCode < 300) {
      counts.ok++;
      latency.record(performance.now() - startedAt);
    }
  });
}

/** The service: one pooled "query" of SERVICE_MS. With a signal (Seawall), the query is abandoned when it fires. */
async function query(signal: AbortSignal | undefined): Promise<boolean> {
  const waited = pool.acquire();
  if (waited) await waited;
  try {
    if (signal?.aborted) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, SERVICE_MS);
      function done() {
        signal?.removeEventListener('abort', done);
        clearTimeout(timer);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
    return !signal?.aborted;
  } finally {
    pool.release();
  }
}

async function handler(req: IncomingMessage, res: ServerResponse, useSignal: boolean): Promise<void> {
  const ran = await query(useSignal ? currentContext()?.signal : undefined);
  if (!ran) {
    counts.abandoned++;
    if (!res.destroyed) res.writeHead(504).end();
    return;
  }
  counts.work++;
  if (res.destroyed || req.destroyed) {
    counts.wasted++;
    return;
  }
  res.end('ok');
}

const CAPACITY_PER_S = (WORKERS * 1000) / SERVICE_MS;
/** The incident's rule: queue at most ~0.2 s of work (500 at 2,500 req/s); "deep" = 1 s, the client's deadline. */
const SEAWALL: ShedOptions = { workers: WORKERS, queueLimit: CAPACITY_PER_S * 0.2, retryAfter: '200ms', meter: false };
const DEEP: ShedOptions = { ...SEAWALL, queueLimit: CAPACITY_PER_S };

async function start(mode: ServerMode): Promise<{ port: number; stats?: () => Record<string, number> }> {
  if (mode === 'under-pressure') {
    const { default: Fastify } = await import('fastify');
    const { default: underPressure } = await import('@fastify/under-pressure');
    const app = Fastify({
      serverFactory: (fastifyHandler) => http.createServer(timed(fastifyHandler)),
    });
    // Thresholds from under-pressure's README example; the memory guards are raised because this process's
    // baseline (tsx loader) is already near the example's 100 MB.
    await app.register(underPressure, {
      maxEventLoopDelay: 1000,
      maxEventLoopUtilization: 0.98,
      maxHeapUsedBytes: 1_000_000_000,
      maxRssBytes: 1_500_000_000,
      retryAfter: 1,
    });
    app.get('/', (req, reply) => {
      reply.hijack(); // the same handler answers on the raw response
      void handler(req.raw, reply.raw, false);
    });
    await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
    return { port: (app.server.address() as AddressInfo).port };
  }
  if (mode === 'echo-bare' || mode === 'echo-als' || mode === 'echo-seawall') {
    const echo = (_req: IncomingMessage, res: ServerResponse) => res.end('ok');
    // echo-als: only an AsyncLocalStorage.run per request, to show what the context alone costs on this Node.
    const als = new AsyncLocalStorage<object>();
    const listener =
      mode === 'echo-bare'
        ? echo
        : mode === 'echo-als'
          ? (req: IncomingMessage, res: ServerResponse) => als.run({}, echo, req, res)
          : seawallHandler(echo, { workers: 1000, queueLimit: 1000, meter: false });
    return listenOn(
      http.createServer((req, res) => {
        counts.requests++;
        listener(req, res);
      }),
    );
  }
  if (mode === 'bare') return listenOn(http.createServer(timed((req, res) => void handler(req, res, false))));
  const options =
    mode === 'seawall'
      ? SEAWALL
      : mode === 'seawall-deep-fifo'
        ? DEEP
        : { ...DEEP, discipline: 'adaptive-lifo' as const };
  const listener = seawallHandler((req, res) => handler(req, res, true), options);
  const started = await listenOn(http.createServer(timed(listener)));
  return {
    ...started,
    stats: () => {
      const s = listener.stats();
      return { shed: s.shed, dropped: s.dropped + s.droppedOnArrival, cancelled: s.cancelled + s.cancelledRunning };
    },
  };
}

async function listenOn(server: http.Server): Promise<{ port: number }> {
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  return { port: (server.address() as AddressInfo).port };
}

/**
 * CPU cost of the middleware's own path per request, without sockets: seawallHandler on real IncomingMessage /
 * ServerResponse objects, with the response's 'close' emitted by hand. Returns ns per request.
 */
function pathCostNs(headers: Record<string, string>): number {
  const listener = seawallHandler(() => {}, { workers: 1_000_000, meter: false });
  const socket = new net.Socket();
  const once = () => {
    const req = new http.IncomingMessage(socket);
    req.headers = headers;
    const res = new http.ServerResponse(req);
    listener(req, res);
    res.finished = true; // as if the handler had answered: writableFinished
    res.emit('close');
  };
  const baseline = () => {
    const req = new http.IncomingMessage(socket);
    req.headers = headers;
    const res = new http.ServerResponse(req);
    res.on('close', () => {});
    res.finished = true;
    res.emit('close');
  };
  const time = (f: () => void) => {
    const n = 200_000;
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t = performance.now();
      for (let i = 0; i < n; i++) f();
      best = Math.min(best, ((performance.now() - t) * 1e6) / n);
    }
    return best;
  };
  time(once);
  return time(once) - time(baseline);
}

const mode = (process.argv[2] ?? 'seawall') as ServerMode | 'path-cost';
if (mode === 'path-cost') {
  const plain = { host: 'x', accept: '*/*', 'user-agent': 'bench' };
  process.send?.({
    noDeadlineNs: pathCostNs(plain),
    deadlineNs: pathCostNs({ ...plain, 'grpc-timeout': '1000m', 'x-seawall-attempt': '1' }),
  });
  process.exit(0);
}
const started = await start(mode);
let baseline: Record<string, number> | undefined;
function since(now: Record<string, number> | undefined, base: Record<string, number> | undefined) {
  if (now === undefined) return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(now)) out[k] = v - (base?.[k] ?? 0);
  return out;
}
process.on('message', (message: unknown) => {
  if (message === 'report') {
    const report: ServerReport = {
      mode,
      ...counts,
      p50Ms: latency.quantile(0.5),
      p99Ms: latency.quantile(0.99),
      peakRssMb: Math.round(peakRss / 1e6),
      eventLoopP99Ms: Math.round(loopDelay.percentile(99) / 1e5) / 10,
      cpuMs: (() => {
        const cpu = process.cpuUsage(cpuAtReset);
        return (cpu.user + cpu.system) / 1000;
      })(),
      ...since(started.stats?.(), baseline),
    };
    process.send?.(report);
  } else if (message === 'reset') {
    // after the warm-up: measure the run only
    Object.assign(counts, { work: 0, wasted: 0, abandoned: 0, ok: 0, requests: 0 });
    cpuAtReset = process.cpuUsage();
    latency.reset();
    peakRss = process.memoryUsage.rss();
    loopDelay.reset();
    baseline = started.stats?.();
    process.send?.('reset-done');
  } else if (message === 'exit') {
    process.exit(0);
  }
});
process.send?.({ ready: true, port: started.port });
