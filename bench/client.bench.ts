// HTTP client benchmarks: keep-alive loopback throughput of createFetch / retryInterceptor vs bare fetch, bare undici, cockatiel; per-call memory.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExponentialBackoff, handleAll, retry, TimeoutStrategy, timeout, wrap } from 'cockatiel';
import { Agent, type Dispatcher, request } from 'undici';
import { encodeAbsoluteDeadline, encodeGrpcTimeout, type RetryPolicyConfig } from '../src/policy/index.js';
import { type BenchRow, printRows } from './harness.js';

/**
 * The HTTP drivers as published (dist/, compiled by tsc), not through tsx: tsx's transform adds helper calls that
 * would be charged to Seawall. `npm run bench` builds first.
 */
async function seawall(): Promise<typeof import('../src/index.js')> {
  const url = new URL('../dist/index.js', import.meta.url);
  try {
    return (await import(url.href)) as typeof import('../src/index.js');
  } catch (error) {
    throw new Error(`bench/client: cannot load ${url.pathname}; run \`npm run build\` first (npm run bench does)`, {
      cause: error,
    });
  }
}

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
/** Paired rounds: every case runs once per round, in an order that alternates, and is compared with its baseline's run in the same round. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
/** Calls per case per round, for undici cases (fetch cases make a quarter: fetch is ~4x slower per call). */
const ROUND_CALLS = Number(process.env.BENCH_ROUND_CALLS ?? 4000);
const MEMORY_CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 1_000_000);
/** Calls per timed run of the in-memory path measurement. */
const PATH_CALLS = 200_000;

/** A keep-alive node:http server in its own process, so it does not share the client's event loop. */
const SERVER_SOURCE = `
const http = require('node:http');
const json = Buffer.from(JSON.stringify({ items: Array.from({ length: 12 }, (_, i) => ({ id: 'sku-' + (1000 + i), name: 'item ' + i, price: 1990 + i, stock: 40 + i })) }));
const server = http.createServer((req, res) => {
  req.resume();
  if (req.url === '/api') {
    // A typical API answer: ~1 KB of JSON and a few headers.
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(json.length),
      'cache-control': 'no-store', 'x-request-id': '7f3c2a9e-5b1d-4e8f-9a6c-2d4b8e1f0a3c' });
    res.end(json);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/**
 * With two or more vCPUs and taskset (util-linux) at hand, the server runs on the last vCPU and this process on the
 * first, so the scheduler does not move them onto each other mid-round (BENCH_PIN=0 turns this off). Returns how to
 * undo the pinning of this process.
 */
function pinning(): { serverPrefix: string[]; unpin: () => void } | null {
  const cpus = availableParallelism();
  if (process.env.BENCH_PIN === '0' || cpus < 2) return null;
  try {
    const all = `0-${cpus - 1}`;
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    return {
      serverPrefix: ['taskset', '-c', String(cpus - 1)],
      unpin: () => execFileSync('taskset', ['-a', '-p', '-c', all, String(process.pid)], { stdio: 'ignore' }),
    };
  } catch {
    return null; // no taskset: run unpinned
  }
}

async function startServer(prefix: string[]): Promise<{ url: string; child: ChildProcess }> {
  const argv = [...prefix, process.execPath, '-e', SERVER_SOURCE];
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
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

/** Makes `calls` calls with CONCURRENCY in flight: calls per second, and the client CPU each call took. */
async function throughput(call: Call, calls: number): Promise<Sample> {
  let left = calls;
  const worker = async () => {
    while (left-- > 0) await call();
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return {
    callsPerS: calls / ((performance.now() - started) / 1000),
    cpuUsPerCall: (used.user + used.system) / calls,
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

function relativeSpreadPercent(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return (100 * Math.sqrt(variance)) / mean;
}

interface Case {
  name: string;
  baseline?: string;
  /** Calls per round (fetch cases make fewer). */
  calls: number;
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

/** What a service's HTTP client typically sends besides Seawall's headers (about 330 bytes). */
const API_HEADERS: Record<string, string> = {
  accept: 'application/json',
  'user-agent': 'checkout-bff/1.14.2 (node 20; undici)',
  authorization: `Bearer ${'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.'.repeat(4)}`,
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  'x-request-id': '3f9d2c7a-8e41-4b6f-b0d5-1a2c3e4f5a6b',
};

/** The three headers Seawall sends on a first attempt under POLICY (deadline = now + patience - margin). */
function seawallHeaders(): Record<string, string> {
  return {
    'x-seawall-attempt': '1',
    'x-request-deadline': encodeAbsoluteDeadline(Date.now() + 1900),
    'grpc-timeout': encodeGrpcTimeout(1900),
  };
}

async function throughputRows(url: string): Promise<BenchRow[]> {
  const { createFetch, retryInterceptor, RetryPolicy } = await seawall();
  const policy = () => new RetryPolicy(POLICY);
  const seawallFetch = createFetch({ policy: policy() });
  const bareAgent = new Agent({ connections: CONCURRENCY });
  const seawallAgent = new Agent({ connections: CONCURRENCY }).compose(retryInterceptor({ policy: policy() }));
  // The same with propagation off (no deadline/attempt headers on the wire): Seawall's own cost alone.
  const quietAgent = new Agent({ connections: CONCURRENCY }).compose(
    retryInterceptor({ policy: policy(), propagate: false }),
  );
  const cockatielAgent = new Agent({ connections: CONCURRENCY });
  // What undici's compose() itself costs: an interceptor that does nothing (undici converts every response's
  // headers between its two handler APIs for it).
  const noopAgent = new Agent({ connections: CONCURRENCY }).compose(
    (dispatch) => (opts, handler) => dispatch(opts, handler),
  );
  const undiciGet = (dispatcher: Dispatcher, headers?: () => Record<string, string>) => async () => {
    const response = await request(url, headers === undefined ? { dispatcher } : { dispatcher, headers: headers() });
    await response.body.text();
  };
  const fetchGet = (f: typeof fetch, init?: () => RequestInit) => async () => {
    const response = await f(url, init?.());
    await response.text();
  };
  // A typical service-to-service read: the headers a real client sends, a ~1 KB JSON answer parsed.
  const api = `${url}api`;
  const undiciApi = (dispatcher: Dispatcher) => async () => {
    const response = await request(api, { dispatcher, headers: API_HEADERS });
    await response.body.json();
  };
  const fetchApi = (f: typeof fetch) => async () => {
    const response = await f(api, { headers: API_HEADERS });
    await response.json();
  };
  const undiciCalls = ROUND_CALLS;
  const fetchCalls = Math.max(100, Math.round(ROUND_CALLS / 4));
  const cases: Case[] = [
    { name: 'undici request (bare)', calls: undiciCalls, call: undiciGet(bareAgent) },
    {
      // The deadline and attempt headers Seawall must send, sent by hand: what propagating a deadline costs at all.
      name: 'undici request + the 3 Seawall headers (bare)',
      baseline: 'undici request (bare)',
      calls: undiciCalls,
      call: undiciGet(bareAgent, seawallHeaders),
    },
    {
      name: 'undici + no-op interceptor (compose cost)',
      baseline: 'undici request (bare)',
      calls: undiciCalls,
      call: undiciGet(noopAgent as unknown as Dispatcher),
    },
    {
      name: 'undici + seawall retryInterceptor',
      baseline: 'undici request (bare)',
      calls: undiciCalls,
      call: undiciGet(seawallAgent as unknown as Dispatcher),
    },
    {
      name: 'undici + seawall retryInterceptor, propagate: false',
      baseline: 'undici request (bare)',
      calls: undiciCalls,
      call: undiciGet(quietAgent as unknown as Dispatcher),
    },
    {
      name: 'undici + cockatiel retry+timeout',
      baseline: 'undici request (bare)',
      calls: undiciCalls,
      call: cockatielAround(async (signal) => {
        const response = await request(url, { dispatcher: cockatielAgent, signal });
        return response.body.text();
      }),
    },
    { name: 'fetch (bare)', calls: fetchCalls, call: fetchGet(fetch) },
    {
      // What a careful user writes without Seawall: one timeout signal per call, plus the deadline headers.
      name: 'fetch + timeout signal + the 3 Seawall headers (bare)',
      baseline: 'fetch (bare)',
      calls: fetchCalls,
      call: fetchGet(fetch, () => ({ signal: new AbortController().signal, headers: seawallHeaders() })),
    },
    {
      name: 'fetch + seawall createFetch',
      baseline: 'fetch (bare)',
      calls: fetchCalls,
      call: fetchGet(seawallFetch as typeof fetch),
    },
    {
      name: 'fetch + cockatiel retry+timeout',
      baseline: 'fetch (bare)',
      calls: fetchCalls,
      call: cockatielAround(async (signal) => (await fetch(url, { signal })).text()),
    },
    { name: 'typical read: undici (bare)', calls: undiciCalls, call: undiciApi(bareAgent) },
    {
      name: 'typical read: undici + seawall retryInterceptor',
      baseline: 'typical read: undici (bare)',
      calls: undiciCalls,
      call: undiciApi(seawallAgent as unknown as Dispatcher),
    },
    { name: 'typical read: fetch (bare)', calls: fetchCalls, call: fetchApi(fetch) },
    {
      name: 'typical read: fetch + seawall createFetch',
      baseline: 'typical read: fetch (bare)',
      calls: fetchCalls,
      call: fetchApi(seawallFetch as typeof fetch),
    },
  ];
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // Warm up JIT and connection pools. (cockatiel's own timeout adds a listener per call to one shared signal, hence its
  // MaxListenersExceededWarning.)
  for (const c of cases) await throughput(c.call, c.calls * 2);
  for (let round = 0; round < ROUNDS; round++) {
    // Forward on even rounds, backward on odd ones: a case and its baseline sit next to each other in time and
    // neither always goes first.
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) samples.get(c.name)?.push(await throughput(c.call, c.calls));
  }
  await Promise.all([bareAgent, seawallAgent, quietAgent, cockatielAgent, noopAgent].map((a) => a.close()));
  // Ratios are taken round by round against the baseline measured in the same round (load drifts between rounds);
  // the median over rounds is reported, with the quartiles to show how much the box moved.
  const ratios = (name: string, baseline: string, pick: (x: Sample) => number) => {
    const own = samples.get(name) as Sample[];
    const base = samples.get(baseline) as Sample[];
    return own.map((x, i) => pick(x) / pick(base[i] as Sample));
  };
  const pct = (x: number) => (100 * x).toFixed(1);
  return cases.map((c) => {
    const own = samples.get(c.name) as Sample[];
    const rps = quantile(
      own.map((x) => x.callsPerS),
      0.5,
    );
    const cpu = quantile(
      own.map((x) => x.cpuUsPerCall),
      0.5,
    );
    let throughputRatio: number | null = null;
    let versus = '';
    if (c.baseline !== undefined) {
      const t = ratios(c.name, c.baseline, (x) => x.callsPerS);
      const u = ratios(c.name, c.baseline, (x) => x.cpuUsPerCall);
      throughputRatio = quantile(t, 0.5);
      versus =
        ` = ${pct(throughputRatio)} % of ${c.baseline}'s throughput [quartiles ${pct(quantile(t, 0.25))}–${pct(quantile(t, 0.75))}],` +
        ` ${pct(quantile(u, 0.5))} % of its CPU/call [${pct(quantile(u, 0.25))}–${pct(quantile(u, 0.75))}]`;
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
  const { createFetch, retryInterceptor, RetryPolicy } = await seawall();
  const seawallFetch = createFetch({ policy: new RetryPolicy(POLICY), fetch: stubFetch });
  // A dispatcher that answers every request at once with 200 "ok", in either handler API as undici's core does: the
  // interceptor's full path, no sockets.
  const rawHead = [Buffer.from('content-length'), Buffer.from('2')];
  const body = Buffer.from('ok');
  const stubDispatch: Dispatcher.Dispatch = (_opts, handler) => {
    const raw = handler as unknown as {
      onConnect(abort: () => void): void;
      onHeaders(status: number, headers: Buffer[], resume: () => void, message: string): boolean;
      onData(chunk: Buffer): boolean;
      onComplete(trailers: Buffer[]): void;
    };
    if (handler.onRequestStart === undefined) {
      raw.onConnect(() => {});
      raw.onHeaders(200, rawHead, () => {}, 'OK');
      raw.onData(body);
      raw.onComplete([]);
      return true;
    }
    const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
    handler.onRequestStart?.(controller, {});
    handler.onResponseStart?.(controller, 200, { 'content-length': '2' }, 'OK');
    handler.onResponseData?.(controller, body);
    handler.onResponseEnd?.(controller, {});
    return true;
  };
  const interceptedDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY) })(stubDispatch);
  const quietDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY), propagate: false })(stubDispatch);
  // The caller speaks the raw API, as undici's request() does (through compose's wrapper).
  const sink = {
    onConnect() {},
    onHeaders() {
      return true;
    },
    onData() {
      return true;
    },
    onComplete() {},
    onError(e: Error) {
      throw e;
    },
  } as unknown as Dispatcher.DispatchHandler;
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
  // Seawall's own CPU per call: the interceptor's whole path over the stub, synchronous, best of 7 runs.
  const path = (dispatch: Dispatcher.Dispatch) => {
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 7; run++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < PATH_CALLS; i++) dispatch(options, sink);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / PATH_CALLS);
    }
    return best;
  };
  const stubNs = path(stubDispatch);
  for (const [name, dispatch] of [
    ['retryInterceptor', interceptedDispatch],
    ['retryInterceptor, propagate: false', quietDispatch],
  ] as const) {
    const ns = path(dispatch);
    console.log(
      `${name}: ${ns.toFixed(0)} ns per call over the stub dispatcher (the stub alone: ${stubNs.toFixed(0)} ns)`,
    );
    rows.push({
      suite: SUITE,
      name: `${name}: whole path per call, in-memory transport (best of 7 × ${PATH_CALLS})`,
      nsPerOp: ns,
      rmePercent: 0,
      vsBaseline: null,
    });
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const pinned = pinning();
  console.log(
    pinned === null ? 'client and server unpinned' : `client on vCPU 0, server: ${pinned.serverPrefix.join(' ')}`,
  );
  const { url, child } = await startServer(pinned?.serverPrefix ?? []);
  try {
    const rows = await throughputRows(url);
    rows.push(...(await memoryRows()));
    return rows;
  } finally {
    child.stdin?.end();
    child.kill();
    pinned?.unpin();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printRows(await run());
