// npm run bench:overload — callee overload benchmark: Seawall vs bare node:http vs @fastify/under-pressure at
// 1×, 3× and 10× a fixed capacity (50 workers × 20 ms = 2,500 req/s), plus middleware overhead. Loopback only.
//
//   npm run bench:overload                         # full run: 30 s per cell (~10 min)
//   npm run bench:overload -- --duration 3         # smoke run (or OVERLOAD_DURATION_S=3)
//   npm run bench:overload -- --modes seawall,bare --loads 10 --generator autocannon
//   npm run bench:overload -- --service-ms 100 --skip-overhead   # 500 req/s capacity: 10× fits a small machine
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
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
const generator = flag('generator') ?? 'open-loop';
const overheadS = Number(flag('overhead-duration') ?? Math.min(10, durationS));
const ROUNDS = 5;
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
    execArgv: server.execArgv,
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
      ].join(' | ')} |`,
    );
  }
}

/**
 * Middleware overhead with a trivial handler. On a shared machine the client is often the bottleneck, so besides
 * throughput this reports the server's CPU time per request (throughput of a CPU-bound server is its inverse).
 */
async function overhead(): Promise<void> {
  const modes = ['echo-bare', 'echo-als', 'echo-seawall'] as const;
  const runs = new Map<ServerMode, { rps: number[]; cpuUsPerReq: number[] }>(
    modes.map((m) => [m, { rps: [], cpuUsPerReq: [] }]),
  );
  // Alternate the servers so a noisy neighbour hurts every side alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      const child = await startServer(mode);
      const url = `http://127.0.0.1:${child.port}/`;
      await maxThroughput(url, 1);
      await ask(child, 'reset');
      const rps = await maxThroughput(url, overheadS);
      const report = await ask<ServerReport>(child, 'report');
      const run = runs.get(mode) as { rps: number[]; cpuUsPerReq: number[] };
      run.rps.push(rps);
      if (report && report.requests > 0) run.cpuUsPerReq.push((report.cpuMs * 1000) / report.requests);
      child.proc.send('exit');
      await new Promise((r) => setTimeout(r, 200));
      if (!child.exited) child.proc.kill();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  // Interference only ever adds CPU time: the least CPU per request over the rounds is the best estimate of cost.
  const least = (xs: number[]) => Math.min(...xs);
  const bare = runs.get('echo-bare') as { rps: number[]; cpuUsPerReq: number[] };
  const fmt = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(', ');
  console.log(
    `\nOverhead, trivial handler, autocannon 50 connections, ${overheadS} s × ${ROUNDS} rounds ` +
      '(req/s: median [runs]; CPU: least [runs]):',
  );
  console.log('| server | req/s | vs bare | server CPU µs/req | CPU-bound throughput vs bare |');
  console.log('|---|---|---|---|---|');
  for (const mode of modes) {
    const run = runs.get(mode) as { rps: number[]; cpuUsPerReq: number[] };
    console.log(
      `| ${mode} | ${Math.round(median(run.rps))} [${fmt(run.rps)}] | ${pct(median(run.rps) / median(bare.rps))} | ` +
        `${least(run.cpuUsPerReq).toFixed(1)} [${fmt(run.cpuUsPerReq, 1)}] | ` +
        `${pct(least(bare.cpuUsPerReq) / least(run.cpuUsPerReq))} |`,
    );
  }
  const cost = await pathCost();
  const bareUs = least(bare.cpuUsPerReq);
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
for (const mode of modes) {
  for (const load of loads) {
    const row = await cell(mode, load);
    rows.push(row);
    if (process.env.OVERLOAD_DEBUG) console.error(JSON.stringify(row));
    console.error(
      `  done ${mode} ${load}×: goodput ${Math.round(row.client.ok / durationS)}/s, offered ${Math.round(row.client.offered / durationS)}/s`,
    );
  }
}
printRows(rows);
const ratio = (mode: ServerMode) => rows.find((r) => r.mode === mode && r.load === 1)?.client.ok;
const bare1 = ratio('bare');
const seawall1 = ratio('seawall');
if (bare1 && seawall1) console.log(`\nGoodput at 1×, seawall / bare: ${pct(seawall1 / bare1)}`);
if (flag('skip-overhead') === undefined && !process.argv.includes('--skip-overhead')) await overhead();
