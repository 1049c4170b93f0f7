// HTTP client benchmarks: keep-alive loopback throughput of createFetch / retryInterceptor vs bare fetch, bare undici, cockatiel.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { ExponentialBackoff, handleAll, retry, TimeoutStrategy, timeout, wrap } from 'cockatiel';
import { Agent, type Dispatcher, request } from 'undici';
import { encodeAbsoluteDeadline, encodeGrpcTimeout, type RetryPolicyConfig } from '../src/policy/index.js';
import { memoryRows, UPSTREAM_POLICIES } from './client-memory.js';
import { type BenchRow, printRows, quantile } from './harness.js';

/**
 * The HTTP drivers as published (dist/, compiled by tsc), not through tsx: tsx's transform adds helper calls that
 * would be charged to Seawall. `npm run bench` builds first.
 */
export async function seawall(): Promise<typeof import('../src/index.js')> {
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
/** Only the cases whose name contains this (and their baselines), e.g. BENCH_ONLY=upstream; default all. */
const ONLY = process.env.BENCH_ONLY;

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
  /** Run with a subscriber on every Seawall diagnostics channel (only during this case: subscriptions are global). */
  subscribed?: boolean;
}

/** Subscribes a listener that reads each event to every Seawall channel; returns the unsubscribe. */
function subscribeAll(channels: Record<string, string>): () => void {
  let seen = 0;
  const onMessage = (message: unknown) => {
    seen += (message as { attempt?: number }).attempt ?? 1;
  };
  const names = Object.values(channels);
  for (const name of names) diagnostics.subscribe(name, onMessage);
  return () => {
    for (const name of names) diagnostics.unsubscribe(name, onMessage);
    if (seen < 0) console.log(seen); // keeps the listener's work observable
  };
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
  const { createFetch, createExecutor, retryInterceptor, RetryPolicy, SEAWALL_CHANNELS } = await seawall();
  const measure = async (c: Case, calls: number): Promise<Sample> => {
    const unsubscribe = c.subscribed === true ? subscribeAll(SEAWALL_CHANNELS) : undefined;
    try {
      return await throughput(c.call, calls);
    } finally {
      unsubscribe?.();
    }
  };
  // In-process work that fails once (a connect failure) and succeeds on its retry: the retry path's own cost, events
  // included when subscribed (constant backoff 0: the retry follows on a microtask).
  const executor = createExecutor({
    policy: new RetryPolicy({
      ...POLICY,
      retryOn: ['connect-failure'],
      backoff: { kind: 'constant', delay: 0 },
      budget: false,
    }),
    upstream: 'bench-db',
  });
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const retryOnce: Call = () => executor.execute(({ attempt }) => (attempt === 1 ? Promise.reject(refused) : attempt));
  const policy = () => new RetryPolicy(POLICY);
  const seawallFetch = createFetch({ policy: policy() });
  const bareAgent = new Agent({ connections: CONCURRENCY });
  const seawallAgent = new Agent({ connections: CONCURRENCY }).compose(retryInterceptor({ policy: policy() }));
  // The same with propagation off (no deadline/attempt headers on the wire): Seawall's own cost alone.
  const quietAgent = new Agent({ connections: CONCURRENCY }).compose(
    retryInterceptor({ policy: policy(), propagate: false }),
  );
  // Every upstream policy the client drives (one endpoint here: the bench has one server), none of them refusing.
  const origin = new URL(url).origin;
  const upstreamAgent = new Agent({ connections: CONCURRENCY }).compose(
    retryInterceptor({ policy: policy(), ...UPSTREAM_POLICIES, endpoints: [origin], loadBalancer: 'round-robin' }),
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
      name: 'undici + seawall retryInterceptor + upstream policies',
      baseline: 'undici + seawall retryInterceptor',
      calls: undiciCalls,
      call: undiciGet(upstreamAgent as unknown as Dispatcher),
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
    {
      name: 'fetch + seawall createFetch, every Seawall channel subscribed',
      baseline: 'fetch + seawall createFetch',
      calls: fetchCalls,
      call: fetchGet(seawallFetch as typeof fetch),
      subscribed: true,
    },
    {
      name: 'undici + seawall retryInterceptor, every Seawall channel subscribed',
      baseline: 'undici + seawall retryInterceptor',
      calls: undiciCalls,
      call: undiciGet(seawallAgent as unknown as Dispatcher),
      subscribed: true,
    },
    { name: 'execute, one retry per call (in process)', calls: undiciCalls, call: retryOnce },
    {
      name: 'execute, one retry per call (in process), every Seawall channel subscribed',
      baseline: 'execute, one retry per call (in process)',
      calls: undiciCalls,
      call: retryOnce,
      subscribed: true,
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
  if (ONLY !== undefined) {
    const wanted = new Set(cases.filter((c) => c.name.includes(ONLY)).flatMap((c) => [c.name, c.baseline ?? '']));
    // Baselines of baselines too (the chain ends at a bare case).
    for (const c of cases) if (wanted.has(c.name) && c.baseline !== undefined) wanted.add(c.baseline);
    cases.splice(0, cases.length, ...cases.filter((c) => wanted.has(c.name)));
  }
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // Warm up JIT and connection pools. (cockatiel's own timeout adds a listener per call to one shared signal, hence its
  // MaxListenersExceededWarning.)
  for (const c of cases) await measure(c, c.calls * 2);
  for (let round = 0; round < ROUNDS; round++) {
    // Forward on even rounds, backward on odd ones: a case and its baseline sit next to each other in time and
    // neither always goes first.
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) samples.get(c.name)?.push(await measure(c, c.calls));
  }
  await Promise.all(
    [bareAgent, seawallAgent, quietAgent, upstreamAgent, cockatielAgent, noopAgent].map((a) => a.close()),
  );
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

export async function run(): Promise<BenchRow[]> {
  const pinned = pinning();
  console.log(
    pinned === null ? 'client and server unpinned' : `client on vCPU 0, server: ${pinned.serverPrefix.join(' ')}`,
  );
  const { url, child } = await startServer(pinned?.serverPrefix ?? []);
  try {
    const rows = await throughputRows(url);
    rows.push(...(await memoryRows(SUITE, POLICY, await seawall())));
    return rows;
  } finally {
    child.stdin?.end();
    child.kill();
    pinned?.unpin();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printRows(await run());
