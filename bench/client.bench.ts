// HTTP client benchmarks: keep-alive loopback throughput of createFetch / retryInterceptor vs bare fetch, bare undici, cockatiel; per-call memory.
import { type ChildProcess, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExponentialBackoff, handleAll, retry, TimeoutStrategy, timeout, wrap } from 'cockatiel';
import { Agent, type Dispatcher, request } from 'undici';
import { createFetch, retryInterceptor } from '../src/http/index.js';
import { encodeAbsoluteDeadline, encodeGrpcTimeout, RetryPolicy, type RetryPolicyConfig } from '../src/policy/index.js';
import { type BenchRow, printRows } from './harness.js';

const SUITE = 'client';
/** The example policy: what a user would deploy. */
const POLICY: RetryPolicyConfig = {
  maxAttempts: 3,
  perTryTimeout: '800ms',
  backoff: { kind: 'full-jitter', base: '50ms', cap: '500ms' },
  budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },
  retryOn: ['timeout', 429, 502, 503, 504],
  deadline: { patience: '2s', margin: '100ms' },
};
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const MEMORY_CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 1_000_000);

/** A keep-alive node:http server in its own process, so it does not share the client's event loop. */
const SERVER_SOURCE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/`, child };
}

type Call = () => Promise<unknown>;

interface Sample {
  callsPerS: number;
  /** This process's CPU time per call (user + system): the client's cost, whatever the server and neighbours do. */
  cpuUsPerCall: number;
}

/** Calls per second of `call` at CONCURRENCY in flight for `ms`, and the client CPU each call took. */
async function throughput(call: Call, ms: number): Promise<Sample> {
  const endAt = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < endAt) {
      await call();
      done++;
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return {
    callsPerS: done / ((performance.now() - started) / 1000),
    cpuUsPerCall: (used.user + used.system) / done,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function relativeSpreadPercent(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return (100 * Math.sqrt(variance)) / mean;
}

interface Case {
  name: string;
  baseline?: string;
  call: Call;
}

function cockatielAround(attempt: (signal: AbortSignal) => Promise<unknown>): Call {
  // cockatiel's maxAttempts counts retries: 2 retries = Seawall's 3 attempts. Timeout inside retry = per try.
  const policy = wrap(
    retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 500 }) }),
    timeout(800, TimeoutStrategy.Aggressive),
  );
  return () => policy.execute(({ signal }) => attempt(signal));
}

async function throughputRows(url: string): Promise<BenchRow[]> {
  const seawallFetch = createFetch({ policy: new RetryPolicy(POLICY) });
  const bareAgent = new Agent({ connections: CONCURRENCY });
  const seawallAgent = new Agent({ connections: CONCURRENCY }).compose(
    retryInterceptor({ policy: new RetryPolicy(POLICY) }),
  );
  const cockatielAgent = new Agent({ connections: CONCURRENCY });
  // undici's compose() itself costs something (a Proxy, and headers converted between its two handler APIs):
  // an interceptor that does nothing shows how much of the difference is the composition, not Seawall.
  const noopAgent = new Agent({ connections: CONCURRENCY }).compose(
    (dispatch) => (opts, handler) => dispatch(opts, handler),
  );
  const undiciGet = (dispatcher: Dispatcher, signal?: AbortSignal) => async () => {
    const response = await request(url, { dispatcher, signal });
    await response.body.text();
  };
  const fetchGet = (f: typeof fetch, init?: () => RequestInit) => async () => {
    const response = await f(url, init?.());
    await response.text();
  };
  const cases: Case[] = [
    { name: 'fetch (bare)', call: fetchGet(fetch) },
    {
      // What a careful user writes without Seawall: one timeout signal per call.
      name: 'fetch + AbortSignal.timeout (bare)',
      baseline: 'fetch (bare)',
      call: fetchGet(fetch, () => ({ signal: AbortSignal.timeout(800) })),
    },
    {
      // Exactly what Seawall hands fetch (a signal and its three headers), without Seawall: what fetch itself charges.
      name: 'fetch + signal + the 3 Seawall headers (bare)',
      baseline: 'fetch (bare)',
      call: fetchGet(fetch, () => {
        const controller = new AbortController();
        return {
          signal: controller.signal,
          headers: {
            'x-seawall-attempt': '1',
            'x-request-deadline': encodeAbsoluteDeadline(Date.now() + 1900),
            'grpc-timeout': encodeGrpcTimeout(1900),
          },
        };
      }),
    },
    { name: 'fetch + seawall createFetch', baseline: 'fetch (bare)', call: fetchGet(seawallFetch as typeof fetch) },
    {
      name: 'fetch + cockatiel retry+timeout',
      baseline: 'fetch (bare)',
      call: cockatielAround(async (signal) => (await fetch(url, { signal })).text()),
    },
    { name: 'undici request (bare)', call: undiciGet(bareAgent) },
    {
      name: 'undici + no-op interceptor (compose cost)',
      baseline: 'undici request (bare)',
      call: undiciGet(noopAgent as unknown as Dispatcher),
    },
    {
      name: 'undici + seawall retryInterceptor',
      baseline: 'undici request (bare)',
      call: undiciGet(seawallAgent as unknown as Dispatcher),
    },
    {
      name: 'undici + cockatiel retry+timeout',
      baseline: 'undici request (bare)',
      call: cockatielAround(async (signal) => {
        const response = await request(url, { dispatcher: cockatielAgent, signal });
        return response.body.text();
      }),
    },
  ];
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // Warm up JIT and connection pools. (cockatiel's own timeout adds a listener per call to one shared signal, hence its
  // MaxListenersExceededWarning.)
  for (const c of cases) await throughput(c.call, 300);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so drift in machine load spreads evenly over the cases.
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length] as Case;
      samples.get(c.name)?.push(await throughput(c.call, ROUND_MS));
    }
  }
  await Promise.all([bareAgent.close(), seawallAgent.close(), cockatielAgent.close(), noopAgent.close()]);
  // Ratios are taken round by round against the baseline measured in the same round (load drifts between rounds),
  // then the median over rounds is reported.
  const ratios = (name: string, baseline: string, pick: (x: Sample) => number) => {
    const own = samples.get(name) as Sample[];
    const base = samples.get(baseline) as Sample[];
    return median(own.map((x, i) => pick(x) / pick(base[i] as Sample)));
  };
  return cases.map((c) => {
    const own = samples.get(c.name) as Sample[];
    const rps = median(own.map((x) => x.callsPerS));
    const cpu = median(own.map((x) => x.cpuUsPerCall));
    let throughputRatio: number | null = null;
    let versus = '';
    if (c.baseline !== undefined) {
      throughputRatio = ratios(c.name, c.baseline, (x) => x.callsPerS);
      const cpuRatio = ratios(c.name, c.baseline, (x) => x.cpuUsPerCall);
      versus = ` = ${(100 * throughputRatio).toFixed(1)} % of ${c.baseline}'s throughput, ${(100 * cpuRatio).toFixed(1)} % of its CPU/call`;
    }
    console.log(`${c.name}: ${rps.toFixed(0)} calls/s, ${cpu.toFixed(1)} µs client CPU/call${versus}`);
    return {
      suite: SUITE,
      name: `${c.name} @${CONCURRENCY} (${cpu.toFixed(1)} µs CPU/call)`,
      nsPerOp: 1e9 / rps,
      rmePercent: relativeSpreadPercent(own.map((x) => x.callsPerS)),
      vsBaseline: throughputRatio === null ? null : 1 / throughputRatio,
    };
  });
}

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Least-squares slope of heap (after GC) against calls made, in bytes per call. */
function slope(points: Array<[calls: number, heapBytes: number]>): number {
  const n = points.length;
  const meanX = points.reduce((a, [x]) => a + x, 0) / n;
  const meanY = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return num / den;
}

/**
 * Per-call memory: MEMORY_CALLS calls through each driver over an in-memory transport (so a million calls take seconds,
 * and only Seawall's own allocations are measured), heap sampled after GC every tenth of the run.
 */
async function memoryRows(): Promise<BenchRow[]> {
  const gc = exposeGc();
  const okResponse = { status: 200, headers: new Headers(), body: null, bodyUsed: false } as unknown as Response;
  const stubFetch = () => Promise.resolve(okResponse);
  const seawallFetch = createFetch({ policy: new RetryPolicy(POLICY), fetch: stubFetch });
  // A dispatcher that answers every request at once with 200 "ok": the interceptor's full path, no sockets.
  const stubDispatch: Dispatcher.Dispatch = (_opts, handler) => {
    const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
    handler.onRequestStart?.(controller, {});
    handler.onResponseStart?.(controller, 200, { 'content-length': '2' }, 'OK');
    handler.onResponseData?.(controller, Buffer.from('ok'));
    handler.onResponseEnd?.(controller, {});
    return true;
  };
  const interceptedDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY) })(stubDispatch);
  const sink = {
    onResponseEnd() {},
    onResponseError(_c: unknown, e: Error) {
      throw e;
    },
  } as Dispatcher.DispatchHandler;
  const options: Dispatcher.DispatchOptions = { origin: 'http://127.0.0.1:1', path: '/', method: 'GET' };

  const drivers: Array<[string, (batch: number) => Promise<void>]> = [
    [
      'retryInterceptor',
      async (batch) => {
        for (let i = 0; i < batch; i++) interceptedDispatch(options, sink);
      },
    ],
    [
      'createFetch',
      async (batch) => {
        for (let i = 0; i < batch; i++) await seawallFetch('http://127.0.0.1:1/');
      },
    ],
  ];
  const rows: BenchRow[] = [];
  const step = Math.max(1, Math.floor(MEMORY_CALLS / 10));
  for (const [name, drive] of drivers) {
    await drive(step); // warm-up, not sampled
    const points: Array<[number, number]> = [];
    const started = performance.now();
    for (let calls = 0; calls <= MEMORY_CALLS; calls += step) {
      if (calls > 0) await drive(step);
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      points.push([calls, process.memoryUsage().heapUsed]);
    }
    const bytesPerCall = slope(points);
    const totalMb = ((points.at(-1)?.[1] ?? 0) - (points[0]?.[1] ?? 0)) / 1e6;
    console.log(
      `${name}: heap slope ${bytesPerCall.toFixed(3)} B/call over ${MEMORY_CALLS} calls (net ${totalMb.toFixed(2)} MB)`,
    );
    rows.push({
      suite: SUITE,
      name: `${name} ${MEMORY_CALLS / 1e6}M calls, in-memory transport: heap ${bytesPerCall >= 0 ? '+' : ''}${bytesPerCall.toFixed(2)} B/call`,
      nsPerOp: ((performance.now() - started) * 1e6) / (MEMORY_CALLS + step),
      rmePercent: 0,
      vsBaseline: null,
    });
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const { url, child } = await startServer();
  try {
    const rows = await throughputRows(url);
    rows.push(...(await memoryRows()));
    return rows;
  } finally {
    child.stdin?.end();
    child.kill();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printRows(await run());
