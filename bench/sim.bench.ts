// Simulator benchmarks: M/M/c throughput beside a naive closure-per-event engine, checkout-incident wall time, memory growth.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRandom, type Random } from '../src/policy/core/random.js';
import { Engine, type EventHandler } from '../src/sim/engine.js';
import { loadScenario, runVariant, type Scenario, simulate } from '../src/sim/index.js';
import { exponential } from '../src/sim/model/distributions.js';
import type { BenchRow } from './harness.js';

/** A BenchRow plus the figures this suite is judged on (printed as an extra table). */
export interface SimRow extends BenchRow {
  /** The headline figure and its unit, e.g. 3.1 "M customers/s". */
  value: number;
  unit: string;
  target: string;
  /** Whether the target holds; null for rows without one (baselines, references). */
  ok: boolean | null;
  detail: string;
}

// Every measurement runs in a fresh child process (this file, re-run with CHILD as its first argument), so JIT
// feedback, heap growth and GC debt of one case never leak into another, and memory peaks are the run's own.
const CHILD = '--sim-bench-child';
const self = fileURLToPath(import.meta.url);

// The M/M/c model of issue 3: λ = 900/s, c = 50, exponential 50 ms service, 300 simulated seconds.
const LAMBDA_PER_S = 900;
const SERVERS = 50;
const SERVICE_MEAN_MS = 50;
const HORIZON_MS = 300_000;
const WARMUP_REPS = 4;
const REPS = 7;
/** Child processes per M/M/c case; their samples are pooled. */
const MMC_ROUNDS = 3;

interface Sample {
  wallMs: number;
  cpuMs: number;
  customers: number;
  events: number;
  /** Share of customers that waited in the queue (a cross-check that every engine simulates the same system). */
  waitedFraction: number;
}

function timed(fn: () => Omit<Sample, 'wallMs' | 'cpuMs'>): Sample {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const out = fn();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ...out, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// ---- baseline: the textbook closure-per-event simulator --------------------------------------------------------

interface NaiveEvent {
  timeMs: number;
  seq: number;
  fire: () => void;
}

/** BASELINE: a binary heap of { time, seq, closure } objects — one object and one closure per event. */
class NaiveEngine {
  nowMs = 0;
  events = 0;
  private seq = 0;
  private readonly heap: NaiveEvent[] = [];

  after(delayMs: number, fire: () => void): void {
    const heap = this.heap;
    const event = { timeMs: this.nowMs + delayMs, seq: this.seq++, fire };
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as NaiveEvent;
      if (p.timeMs < event.timeMs || (p.timeMs === event.timeMs && p.seq < event.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  run(untilMs: number): void {
    const heap = this.heap;
    while (heap.length > 0 && (heap[0] as NaiveEvent).timeMs < untilMs) {
      const top = heap[0] as NaiveEvent;
      const last = heap.pop() as NaiveEvent;
      if (heap.length > 0) {
        let i = 0;
        for (;;) {
          let child = 2 * i + 1;
          if (child >= heap.length) break;
          const right = heap[child + 1];
          const c = heap[child] as NaiveEvent;
          if (right !== undefined && (right.timeMs < c.timeMs || (right.timeMs === c.timeMs && right.seq < c.seq)))
            child++;
          const ch = heap[child] as NaiveEvent;
          if (last.timeMs < ch.timeMs || (last.timeMs === ch.timeMs && last.seq < ch.seq)) break;
          heap[i] = ch;
          i = child;
        }
        heap[i] = last;
      }
      this.nowMs = top.timeMs;
      this.events++;
      top.fire();
    }
  }
}

/** BASELINE M/M/c: customers are objects, every arrival and departure is a fresh closure on the naive heap. */
function naiveMmc(seed: number): Omit<Sample, 'wallMs' | 'cpuMs'> {
  const root = createRandom(seed);
  const arrivals = root.fork('arrivals');
  const service = root.fork('service');
  const sim = new NaiveEngine();
  const queue: { arrivalMs: number }[] = [];
  let head = 0;
  let busy = 0;
  let customers = 0;
  let waited = 0;
  const serve = (customer: { arrivalMs: number }) => {
    if (sim.nowMs > customer.arrivalMs) waited++;
    sim.after(exponential(service, SERVICE_MEAN_MS), () => depart());
  };
  const depart = () => {
    if (head < queue.length) serve(queue[head++] as { arrivalMs: number });
    else busy--;
  };
  const arrive = () => {
    customers++;
    sim.after(exponential(arrivals, 1000 / LAMBDA_PER_S), () => arrive());
    const customer = { arrivalMs: sim.nowMs };
    if (busy < SERVERS) {
      busy++;
      serve(customer);
    } else queue.push(customer);
  };
  sim.after(exponential(arrivals, 1000 / LAMBDA_PER_S), () => arrive());
  sim.run(HORIZON_MS);
  return { customers, events: sim.events, waitedFraction: waited / customers };
}

// ---- reference: the Engine kernel with a hand-written M/M/c handler (no metrics, no policy objects) ----------------

/** The same M/M/c straight on Engine: what the kernel itself costs, the ceiling for the full model. */
class KernelMmc implements EventHandler {
  readonly engine = new Engine();
  customers = 0;
  waited = 0;
  private busy = 0;
  private readonly queue: number[] = [];
  private head = 0;

  constructor(
    readonly arrivals: Random,
    private readonly service: Random,
  ) {}

  handle(type: number): void {
    const engine = this.engine;
    if (type === 0) {
      this.customers++;
      engine.after(exponential(this.arrivals, 1000 / LAMBDA_PER_S), 0);
      if (this.busy < SERVERS) {
        this.busy++;
        engine.after(exponential(this.service, SERVICE_MEAN_MS), 1);
      } else this.queue.push(engine.nowMs);
    } else if (this.head < this.queue.length) {
      this.head++;
      this.waited++;
      engine.after(exponential(this.service, SERVICE_MEAN_MS), 1);
    } else this.busy--;
  }
}

function kernelMmc(seed: number): Omit<Sample, 'wallMs' | 'cpuMs'> {
  const root = createRandom(seed);
  const model = new KernelMmc(root.fork('arrivals'), root.fork('service'));
  model.engine.after(exponential(model.arrivals, 1000 / LAMBDA_PER_S), 0);
  model.engine.run(HORIZON_MS, model);
  return { customers: model.customers, events: model.engine.events, waitedFraction: model.waited / model.customers };
}

// ---- the product: mmc-erlang's rho-0.9 variant through the full model ----------------------------------------------

let mmcScenario: Scenario | null = null;

function modelMmc(seed: number): Omit<Sample, 'wallMs' | 'cpuMs'> {
  mmcScenario ??= loadScenario('mmc-erlang');
  const run = runVariant(mmcScenario, 'rho-0.9', seed);
  const server = run.services[0];
  return { customers: run.summary.userRequests, events: run.events, waitedFraction: server?.waitedFraction ?? 0 };
}

// ---- child process side ----------------------------------------------------------------------------------------

async function child(mode: string, arg: string | undefined): Promise<unknown> {
  const mmc: Record<string, (seed: number) => Omit<Sample, 'wallMs' | 'cpuMs'>> = {
    naive: naiveMmc,
    kernel: kernelMmc,
    model: modelMmc,
  };
  const one = mmc[mode];
  if (one !== undefined) {
    // Warm-up runs also load the scenario (parsing is not part of the throughput).
    for (let i = 0; i < WARMUP_REPS; i++) one(1);
    return Array.from({ length: REPS }, () => timed(() => one(1)));
  }
  if (mode === 'incident') {
    const scenario = loadScenario('checkout-incident');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await simulate(scenario, { seeds: [1], parallel: arg === 'parallel' });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, events: result.engine.events, runs: result.runs.length };
  }
  if (mode === 'memory') {
    const scenario = loadScenario('checkout-incident');
    const durationMs = scenario.durationMs * Number(arg);
    const t0 = performance.now();
    const run = durationMs > 0 ? runVariant(scenario, 'good', 1, { durationMs }) : null;
    const wallMs = performance.now() - t0;
    const { heapTotal } = process.memoryUsage();
    return { wallMs, maxRssKb: process.resourceUsage().maxRSS, heapTotal, events: run?.events ?? 0 };
  }
  throw new Error(`unknown child mode ${mode}`);
}

if (process.argv[2] === CHILD) {
  const out = await child(process.argv[3] as string, process.argv[4]);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function inChild<T>(mode: string, arg?: string): T {
  const args = [...process.execArgv, self, CHILD, mode, ...(arg === undefined ? [] : [arg])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`sim bench child ${mode} failed (${r.status}): ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as T;
}

// ---- parent: rows and the extra table ----------------------------------------------------------------------------

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** 95 % margin of error of the mean, relative, in percent. */
function rme(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return ((1.96 * Math.sqrt(variance / values.length)) / mean) * 100;
}

function mmcRow(name: string, samples: Sample[], target: number | null): SimRow {
  const first = samples[0] as Sample;
  const nsPerCustomer = samples.map((s) => (s.wallMs * 1e6) / s.customers);
  const wallMs = median(samples.map((s) => s.wallMs));
  const cpuMs = median(samples.map((s) => s.cpuMs));
  const perS = first.customers / (wallMs / 1000);
  return {
    suite: 'sim',
    name,
    nsPerOp: median(nsPerCustomer),
    rmePercent: rme(nsPerCustomer),
    vsBaseline: null,
    value: perS / 1e6,
    unit: 'M customers/s',
    target: target === null ? '' : `>= ${target} M customers/s`,
    ok: target === null ? null : perS / 1e6 >= target,
    detail:
      `${first.customers} customers, ${first.events} events; median ${wallMs.toFixed(0)} ms wall ` +
      `(${(first.events / wallMs / 1000).toFixed(2)} M events/s), ${cpuMs.toFixed(0)} ms CPU ` +
      `(${(first.customers / cpuMs / 1000).toFixed(2)} M customers/CPU-s); best ` +
      `${(first.customers / Math.min(...samples.map((s) => s.wallMs)) / 1000).toFixed(2)} M/s; ` +
      `P(wait) ${first.waitedFraction.toFixed(3)}`,
  };
}

interface IncidentRun {
  wallMs: number;
  cpuMs: number;
  events: number;
  runs: number;
}

function incidentRow(name: string, r: IncidentRun): SimRow {
  return {
    suite: 'sim',
    name,
    nsPerOp: (r.wallMs * 1e6) / r.events,
    rmePercent: 0,
    vsBaseline: null,
    value: r.wallMs / 1000,
    unit: 's wall',
    target: '<= 5 s',
    ok: r.wallMs <= 5000,
    detail: `${r.runs} runs, ${r.events} events; ${(r.cpuMs / 1000).toFixed(2)} s CPU (all threads); ns/op = wall per event`,
  };
}

interface MemoryRun {
  wallMs: number;
  maxRssKb: number;
  heapTotal: number;
  events: number;
}

function memoryRows(idle: MemoryRun, short: MemoryRun, long: MemoryRun): SimRow[] {
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  const growth = long.maxRssKb / short.maxRssKb;
  const aboveIdle = (long.maxRssKb - idle.maxRssKb) / Math.max(1, short.maxRssKb - idle.maxRssKb);
  const row = (name: string, r: MemoryRun, extra: Partial<SimRow>): SimRow => ({
    suite: 'sim',
    name,
    nsPerOp: r.events === 0 ? 0 : (r.wallMs * 1e6) / r.events,
    rmePercent: 0,
    vsBaseline: null,
    value: r.maxRssKb / 1024,
    unit: 'MB peak RSS',
    target: '',
    ok: null,
    detail: `${r.events} events; heap committed at end ${(r.heapTotal / 2 ** 20).toFixed(1)} MB; ns/op = wall per event`,
    ...extra,
  });
  return [
    row('memory: process with modules loaded, no run', idle, { detail: 'the fixed cost every child pays' }),
    row('memory: checkout-incident good, 120 s (default)', short, {}),
    row('memory: checkout-incident good, 1200 s (10x)', long, {
      target: '< 1.5x the default',
      ok: growth < 1.5,
      detail: `${growth.toFixed(2)}x the default's peak RSS (${mb(long.maxRssKb)} vs ${mb(short.maxRssKb)} MB); above the idle process ${aboveIdle.toFixed(2)}x; ${long.events} events`,
    }),
  ];
}

function printSimTable(rows: SimRow[]): void {
  const lines = rows.map((r) => [
    r.name,
    `${r.value.toFixed(2)} ${r.unit}`,
    r.target,
    r.ok === null ? '' : r.ok ? 'met' : 'MISSED',
    r.detail,
  ]);
  const header = ['case', 'figure', 'target', '', 'detail'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 4 ? c : c.padEnd(widths[i] as number))).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
  console.log('');
}

export async function run(): Promise<BenchRow[]> {
  // The three M/M/c cases take turns, one child process each per round, so all see the same (shared) machine.
  const samples: Record<string, Sample[]> = { naive: [], kernel: [], model: [] };
  for (let round = 0; round < MMC_ROUNDS; round++) {
    for (const mode of Object.keys(samples)) samples[mode]?.push(...inChild<Sample[]>(mode));
  }
  const naive = mmcRow('M/M/c: naive closure-per-event engine (BASELINE)', samples.naive as Sample[], null);
  const kernel = mmcRow('M/M/c: Engine kernel, hand-written handler', samples.kernel as Sample[], null);
  const model = mmcRow('M/M/c: mmc-erlang rho-0.9, full model', samples.model as Sample[], 3);
  kernel.vsBaseline = kernel.nsPerOp / naive.nsPerOp;
  model.vsBaseline = model.nsPerOp / naive.nsPerOp;
  const serial = incidentRow('checkout-incident, 11 variants, one thread', inChild<IncidentRun>('incident', 'serial'));
  const parallel = incidentRow('checkout-incident, 11 variants, workers', inChild<IncidentRun>('incident', 'parallel'));
  serial.target = '';
  serial.ok = null;
  parallel.vsBaseline = parallel.nsPerOp / serial.nsPerOp;
  const memory = memoryRows(inChild('memory', '0'), inChild('memory', '1'), inChild('memory', '10'));
  const rows = [naive, kernel, model, serial, parallel, ...memory];
  printSimTable(rows);
  return rows;
}
