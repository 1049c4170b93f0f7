// npm run bench:overload — callee overload benchmark: Seawall vs bare node:http vs @fastify/under-pressure at
// 1×, 3× and 10× a fixed capacity (50 workers × 20 ms = 2,500 req/s), plus middleware overhead. Loopback only.
//
//   npm run bench:overload                         # full run: 30 s per cell (~10 min)
//   npm run bench:overload -- --duration 3         # smoke run (or OVERLOAD_DURATION_S=3)
//   npm run bench:overload -- --modes seawall,bare --loads 10 --generator autocannon
//   npm run bench:overload -- --service-ms 100 --skip-overhead   # 500 req/s capacity: 10× fits a small machine
import { type ChildProcess, execFileSync, fork, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { quantile } from '../harness.js';
import { closedLoop, type LoadResult, type LoadSpec, maxThroughput } from './load.js';
import { openLoopRaw } from './open-loop.js';
import type { ServerMode, ServerReport } from './server.js';

const SERVICE_MS = Number(flag('service-ms') ?? 20);
/** 50 workers × SERVICE_MS: 2,500 req/s by default. */
const CAPACITY_PER_S = (50 * 1000) / SERVICE_MS;
const DEADLINE_MS = 1000;
const ALL_MODES: ServerMode[] = ['bare', 'under-pressure', 'seawall', 'seawall-deep-fifo', 'seawall-deep-lifo'];

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  const inline = process.argv.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

const durationS = Number(flag('duration') ?? process.env.OVERLOAD_DURATION_S ?? 30);
const modes = (flag('modes')?.split(',') ?? ALL_MODES) as ServerMode[];
const loads = (flag('loads') ?? '1,3,10').split(',').map(Number);
/** Runs per cell (the table shows the median run and lists every run's goodput): the box's noise made visible. */
const repeat = Math.max(1, Number(flag('repeat') ?? 1));
const generator = flag('generator') ?? 'open-loop';
const overheadS = Number(flag('overhead-duration') ?? Math.min(3, durationS));
const OVERHEAD_ROUNDS = Number(flag('overhead-rounds') ?? 9);
const warmupS = Math.min(2, Math.max(0.5, durationS / 10));

/**
 * The server runs as compiled JavaScript (tsc, like the published package), not through tsx: tsx's esbuild
 * `keepNames` wraps every named closure in a defineProperty call, which costs µs per request and would be
 * charged to the middleware. `--tsx` skips the build.
 */
function buildServer(): { path: string; execArgv: string[] } {
  const source = fileURLToPath(new URL('./server.ts', import.meta.url));
  if (process.argv.includes('--tsx')) return { path: source, execArgv: ['--import', 'tsx'] };
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = fileURLToPath(new URL('./tsconfig.server.json', import.meta.url));
  const built = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the bench server failed (run with --tsx to skip the build)');
  const out = new URL('../../node_modules/.cache/seawall-overload/bench/overload/server.js', import.meta.url);
  return { path: fileURLToPath(out), execArgv: [] };
}

const server = buildServer();

interface Child {
  proc: ChildProcess;
  port: number;
  exited: boolean;
}

async function startServer(mode: ServerMode): Promise<Child> {
  const proc = fork(server.path, [mode], {
    env: { ...process.env, SERVICE_MS: String(SERVICE_MS) },
    // OVERLOAD_SERVER_NODE_ARGS: extra node flags for the server only, e.g. "--cpu-prof --cpu-prof-dir=prof".
    execArgv: [...server.execArgv, ...(process.env.OVERLOAD_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const child: Child = { proc, port: 0, exited: false };
  proc.on('exit', () => {
    child.exited = true;
  });
  child.port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`server ${mode} exited during start (${code})`)));
  });
  return child;
}

function ask<T>(child: Child, message: string, timeoutMs = 5000): Promise<T | undefined> {
  if (child.exited) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    child.proc.once('message', (m: T) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.proc.send(message);
  });
}

interface Row {
  mode: ServerMode;
  load: number;
  client: LoadResult;
  server: ServerReport | undefined;
  up: boolean;
  /** With --repeat: goodput as a share of capacity in every run of this cell (the row itself is the median run). */
  runs?: number[];
}

async function cell(mode: ServerMode, load: number): Promise<Row> {
  const child = await startServer(mode);
  const url = `http://127.0.0.1:${child.port}/`;
  const ratePerS = CAPACITY_PER_S * load;
  const drive = generator === 'autocannon' ? closedLoop : openLoopRaw;
  const connectionsFor = (rate: number) =>
    generator === 'autocannon'
      ? Math.min(1000, Math.ceil(rate / 10))
      : Math.min(4000, Math.ceil((rate * DEADLINE_MS) / 1000) + 100);
  const spec = (rate: number, seconds: number): LoadSpec => ({
    url,
    ratePerS: rate,
    durationS: seconds,
    deadlineMs: DEADLINE_MS,
    connections: connectionsFor(rate),
  });
  await drive(spec(CAPACITY_PER_S / 2, warmupS)); // JIT warm-up, not measured
  await ask(child, 'reset');
  const client = await drive(spec(ratePerS, durationS));
  const server = await ask<ServerReport>(child, 'report');
  const up = !child.exited && server !== undefined;
  child.proc.send('exit');
  await new Promise((r) => setTimeout(r, 200));
  if (!child.exited) child.proc.kill();
  return { mode, load, client, server, up };
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

function printRows(rows: Row[]): void {
  const header = [
    'server',
    'load',
    'offered/s',
    'goodput/s',
    'goodput % cap',
    'p99 ok (client) ms',
    'p99 ok (server) ms',
    '503',
    '504',
    'timeouts',
    'late 2xx',
    'work done',
    'wasted',
    'peak RSS MB',
    'up',
    ...(repeat > 1 ? [`goodput % cap, all ${repeat} runs`] : []),
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const r of rows) {
    const c = r.client;
    const s = r.server;
    const goodput = c.ok / durationS;
    console.log(
      `| ${[
        r.mode,
        `${r.load}×`,
        Math.round(c.offered / durationS),
        Math.round(goodput),
        pct(goodput / CAPACITY_PER_S),
        c.p99Ms,
        s?.p99Ms ?? '–',
        c.statuses['503'] ?? 0,
        c.statuses['504'] ?? 0,
        c.timeouts,
        c.okLate,
        s?.work ?? '–',
        s ? s.wasted : '–',
        s?.peakRssMb ?? '–',
        r.up ? 'yes' : '**no**',
        ...(r.runs === undefined ? [] : [r.runs.map((x) => pct(x)).join(', ')]),
      ].join(' | ')} |`,
    );
  }
}

/** Pins process `pid` (all its threads) to `cpus` when taskset exists; false when it could not. */
function pin(pid: number, cpus: string): boolean {
  if (process.env.OVERLOAD_PIN === '0') return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Middleware overhead with a trivial handler. The three servers run side by side (on the last vCPU, autocannon on
 * the first, when taskset exists), and every round measures each of them in turn, in an order that alternates; each
 * is compared with bare in the same round, and the median of those ratios is reported with its quartiles. Besides
 * throughput (which the client may limit) it reports the server's CPU time per request, whose inverse is the
 * throughput of a CPU-bound server.
 */
async function overhead(): Promise<void> {
  const modes = ['echo-bare', 'echo-als', 'echo-seawall'] as const;
  const cpus = availableParallelism();
  const children = new Map<ServerMode, Child>();
  for (const mode of modes) children.set(mode, await startServer(mode));
  const pinned =
    cpus >= 2 &&
    pin(process.pid, '0') &&
    [...children.values()].every((child) => pin(child.proc.pid as number, String(cpus - 1)));
  const runs = new Map<ServerMode, { rps: number[]; cpuUsPerReq: number[] }>(
    modes.map((m) => [m, { rps: [], cpuUsPerReq: [] }]),
  );
  try {
    for (const child of children.values()) await maxThroughput(`http://127.0.0.1:${child.port}/`, 1);
    for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
      const order = round % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        const child = children.get(mode) as Child;
        await ask(child, 'reset');
        const rps = await maxThroughput(`http://127.0.0.1:${child.port}/`, overheadS);
        const report = await ask<ServerReport>(child, 'report');
        const run = runs.get(mode) as { rps: number[]; cpuUsPerReq: number[] };
        run.rps.push(rps);
        run.cpuUsPerReq.push(report && report.requests > 0 ? (report.cpuMs * 1000) / report.requests : Number.NaN);
      }
    }
  } finally {
    for (const child of children.values()) {
      child.proc.send('exit');
      await new Promise((r) => setTimeout(r, 100));
      if (!child.exited) child.proc.kill();
    }
    if (pinned) pin(process.pid, `0-${cpus - 1}`);
  }
  const bare = runs.get('echo-bare') as { rps: number[]; cpuUsPerReq: number[] };
  const spread = (xs: number[]) => `${pct(quantile(xs, 0.5))} [${pct(quantile(xs, 0.25))}–${pct(quantile(xs, 0.75))}]`;
  console.log(
    `\nOverhead, trivial handler, autocannon 50 connections, ${overheadS} s × ${OVERHEAD_ROUNDS} paired rounds, ` +
      `${pinned ? `servers on vCPU ${cpus - 1}, autocannon on vCPU 0` : 'unpinned'} ` +
      '(medians; ratios per round against bare, median [quartiles]):',
  );
  console.log('| server | req/s | throughput vs bare | server CPU µs/req | CPU-bound throughput vs bare |');
  console.log('|---|---|---|---|---|');
  for (const mode of modes) {
    const run = runs.get(mode) as { rps: number[]; cpuUsPerReq: number[] };
    const rpsRatio = run.rps.map((x, i) => x / (bare.rps[i] as number));
    const cpuRatio = run.cpuUsPerReq.map((x, i) => (bare.cpuUsPerReq[i] as number) / x);
    console.log(
      `| ${mode} | ${Math.round(quantile(run.rps, 0.5))} | ${spread(rpsRatio)} | ` +
        `${quantile(run.cpuUsPerReq, 0.5).toFixed(1)} | ${spread(cpuRatio)} |`,
    );
  }
  const cost = await pathCost();
  const bareUs = quantile(bare.cpuUsPerReq, 0.5);
  console.log(
    `\nMiddleware path alone (no sockets, best of 5 × 200k): ${Math.round(cost.noDeadlineNs)} ns/request ` +
      `without a deadline header, ${Math.round(cost.deadlineNs)} ns with one; against ${bareUs.toFixed(1)} µs of ` +
      `bare node:http per request that is ${pct(bareUs / (bareUs + cost.noDeadlineNs / 1000))} / ` +
      `${pct(bareUs / (bareUs + cost.deadlineNs / 1000))} of bare throughput when CPU-bound.`,
  );
}

async function pathCost(): Promise<{ noDeadlineNs: number; deadlineNs: number }> {
  const proc = fork(server.path, ['path-cost'], {
    execArgv: server.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (m: { noDeadlineNs: number; deadlineNs: number }) => resolve(m));
    proc.once('exit', (code) => code !== 0 && reject(new Error(`path-cost exited ${code}`)));
  });
}

console.log(
  `Overload bench: capacity ${CAPACITY_PER_S} req/s (50 × ${SERVICE_MS} ms), ${durationS} s per cell, client deadline ${DEADLINE_MS} ms, ` +
    `generator ${generator}, node ${process.version}\n`,
);
const rows: Row[] = [];
const overheadOnly = process.argv.includes('--overhead-only');
for (const mode of overheadOnly ? [] : modes) {
  for (const load of loads) {
    const runs: Row[] = [];
    for (let i = 0; i < repeat; i++) {
      const row = await cell(mode, load);
      runs.push(row);
      if (process.env.OVERLOAD_DEBUG) console.error(JSON.stringify(row));
      console.error(
        `  done ${mode} ${load}×: goodput ${Math.round(row.client.ok / durationS)}/s, offered ${Math.round(row.client.offered / durationS)}/s`,
      );
    }
    // The run with the median goodput stands for the cell; every run's goodput is listed beside it.
    const byGoodput = [...runs].sort((a, b) => a.client.ok - b.client.ok);
    const median = byGoodput[(byGoodput.length - 1) >> 1] as Row;
    if (repeat > 1) median.runs = runs.map((r) => r.client.ok / durationS / CAPACITY_PER_S);
    rows.push(median);
  }
}
if (!overheadOnly) printRows(rows);
const ratio = (mode: ServerMode) => rows.find((r) => r.mode === mode && r.load === 1)?.client.ok;
const bare1 = ratio('bare');
const seawall1 = ratio('seawall');
if (bare1 && seawall1) console.log(`\nGoodput at 1×, seawall / bare: ${pct(seawall1 / bare1)}`);
if (flag('skip-overhead') === undefined && !process.argv.includes('--skip-overhead')) await overhead();
