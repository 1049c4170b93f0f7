// runLab(): replays a scenario's variants on real processes and a real database, beside the simulator's prediction.

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRandom } from '../policy/core/random.js';
import type { WindowDef } from '../sim/metrics/collector.js';
import type { RunSummary, TimeseriesRow } from '../sim/metrics/summary.js';
import { faultStateFor, surgeFor } from '../sim/model/fault-state.js';
import { runVariant } from '../sim/run.js';
import type { FaultSpec, ModelSpec, Scenario } from '../sim/scenario/types.js';
import { type Comparison, compareRuns } from './compare.js';
import { LabError } from './errors.js';
import { OpenLoopUsers } from './load.js';
import { labSummary } from './metrics.js';
import { type LabPlan, planOf, type ServicePlan, startOrder } from './plan.js';
import { startThrowawayCluster } from './postgres/cluster.js';
import { checkDatabase } from './postgres/db-check.js';
import { isAlive } from './postgres/pids.js';
import { ServiceProcess } from './processes.js';
import { scaleModel } from './scale.js';

export interface LabOptions {
  scenario: Scenario;
  /** Default: every variant, in file order. */
  variants?: string[];
  /** Rates and pools × scale (default 0.1). */
  scale?: number;
  /** A PostgreSQL URL; default: a throwaway cluster the lab starts and removes. */
  db?: string;
  seed?: number;
  /** One line per step, for the terminal. */
  onProgress?(line: string): void;
}

export interface LabVariantResult {
  variant: string;
  lab: RunSummary;
  sim: RunSummary;
  labTimeseries: TimeseriesRow[];
  simTimeseries: TimeseriesRow[];
  comparison: Comparison;
  /** Problems the services met while running (none in a clean run). */
  errors: string[];
}

export interface LabResult {
  scenario: string;
  scale: number;
  durationS: number;
  windows: Record<string, [number, number]>;
  database: string;
  variants: LabVariantResult[];
}

export const DEFAULT_SCALE = 0.1;

const clock = () => performance.now();

/** The most workers a service will ever have (its pool size in the database). */
function maxWorkers(s: ServicePlan, faults: readonly FaultSpec[]): number {
  let n = s.shed?.workers ?? 0;
  for (const f of faults) if (f.service === s.name && f.workers !== null) n = Math.max(n, f.workers);
  return Math.max(1, n === 0 ? 100 : n);
}

const sleepUntil = (atMs: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, atMs - clock())));

/** One variant on real processes. */
async function runOnProcesses(
  model: ModelSpec,
  plan: LabPlan,
  durationMs: number,
  dbUrl: string,
  seed: number,
  workDir: string,
): Promise<{ users: OpenLoopUsers['records']; services: Awaited<ReturnType<ServiceProcess['stop']>>[] }> {
  const origins: Record<string, string> = {};
  const processes: ServiceProcess[] = [];
  try {
    for (const s of startOrder(plan)) {
      const peers: Record<string, string> = {};
      for (const c of s.calls) peers[c.to] = origins[c.to] as string;
      const db = s.usesDb ? { url: dbUrl, connections: maxWorkers(s, plan.faults) } : null;
      const started = await ServiceProcess.start({ plan: s, peers, seed: seed * 100 + s.index + 1 }, db);
      processes.push(started.process);
      origins[s.name] = started.origin;
    }
    // One lab clock: time 0 is t0 on ours, t0 + offset on each process's own performance.now().
    const offsets = await Promise.all(processes.map((p) => p.clockOffset()));
    const t0 = clock() + 300;
    const now = () => clock() - t0;
    for (const [i, p] of processes.entries()) p.go(t0 + (offsets[i] as number));
    const users = new OpenLoopUsers(model.traffic, origins, createRandom(seed).fork('lab-users'), now, durationMs);
    const byName = new Map(processes.map((p) => [p.name, p]));
    const active = model.faults.map(() => false);
    const edges = [...new Set(model.faults.flatMap((f) => [f.startMs, f.endMs]))]
      .filter((t) => t < durationMs)
      .sort((a, b) => a - b);
    await sleepUntil(t0);
    users.start();
    for (const t of edges) {
      await sleepUntil(t0 + t);
      model.faults.forEach((f, i) => {
        active[i] = t >= f.startMs && t < f.endMs;
      });
      // The simulator's own rule for overlapping faults; one process per service is its instance 0.
      for (const s of plan.services) byName.get(s.name)?.fault(faultStateFor(model.faults, active, s.name, 0));
      for (const source of new Set(model.traffic.map((tr) => tr.to))) {
        users.setMultiplier(source, surgeFor(model.faults, active, source));
      }
    }
    await sleepUntil(t0 + durationMs);
    // Users still waiting have not ended within the run (the simulator stops at its duration too).
    const stopping = users.stop();
    const services = await Promise.all(processes.map((p) => p.stop(workDir)));
    await stopping;
    return { users: users.records, services };
  } finally {
    for (const p of processes) p.kill();
  }
}

const RUN_DIR_PREFIX = 'seawall-lab-run-';

/**
 * Where the processes hand over their records: inside the throwaway cluster's dir when there is one (whatever
 * removes the cluster, a Ctrl-C or the watchdog after a SIGKILL included, removes them too); with --db a temp dir
 * named for this process, and the dirs of lab processes that are gone (killed before they could clean up) go first.
 */
function recordsDir(clusterDir: string | undefined): string {
  if (clusterDir !== undefined) {
    const dir = join(clusterDir, 'records');
    mkdirSync(dir);
    return dir;
  }
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^seawall-lab-run-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
  return mkdtempSync(join(tmpdir(), `${RUN_DIR_PREFIX}${process.pid}-`));
}

/** Runs every requested variant in the lab, then the simulator on the same scaled model, and compares them. */
export async function runLab(options: LabOptions): Promise<LabResult> {
  const { scenario } = options;
  const scale = options.scale ?? DEFAULT_SCALE;
  const seed = options.seed ?? 1;
  const say = options.onProgress ?? (() => {});
  const names = options.variants ?? scenario.variants.map((v) => v.name);
  const variants = names.map((name) => {
    const spec = scenario.variants.find((v) => v.name === name);
    if (spec === undefined) {
      const known = scenario.variants.map((v) => v.name).join(', ');
      throw new LabError('lab-variant', `${scenario.source}: no variant named ${name} (known: ${known})`);
    }
    const model = scaleModel(spec.model, scale);
    const planned = planOf(model);
    if ('problems' in planned) {
      throw new LabError('lab-unsupported', `${scenario.source}: variant ${name}: ${planned.problems.join('; ')}`);
    }
    return { spec, model, plan: planned.plan };
  });
  const windows: WindowDef[] = Object.entries(scenario.windows).map(([name, [startMs, endMs]]) => ({
    name,
    startMs,
    endMs,
  }));
  // A --db that does not answer is one clear line now, before any process starts (none is left waiting on it).
  // @ko lab-db-checked-first
  if (options.db !== undefined) await checkDatabase(options.db);
  const cluster = options.db === undefined ? await startThrowawayCluster() : null;
  const dbUrl = options.db ?? (cluster?.url as string);
  // SEAWALL_LAB_KEEP_RECORDS=DIR keeps each process's raw records (DIR/<service>.records.json) for a look afterwards.
  const keep = process.env.SEAWALL_LAB_KEEP_RECORDS;
  const workDir = keep !== undefined && keep !== '' ? keep : recordsDir(cluster?.dir);
  try {
    const results: LabVariantResult[] = [];
    for (const { spec, model, plan } of variants) {
      say(`lab: ${spec.name}: ${plan.services.length} processes, ${scenario.durationMs / 1000} s at scale ${scale}`);
      const run = await runOnProcesses(model, plan, scenario.durationMs, dbUrl, seed, workDir);
      const lab = labSummary(spec.name, seed, model, scenario.durationMs, windows, run);
      const scaled: Scenario = { ...scenario, variants: [{ ...spec, model }] };
      const sim = runVariant(scaled, spec.name, seed);
      const comparison = compareRuns(lab.summary, sim.summary, model);
      say(`lab: ${spec.name}: ${comparison.agrees ? 'agrees with' : 'differs from'} the simulator`);
      results.push({
        variant: spec.name,
        lab: lab.summary,
        sim: sim.summary,
        labTimeseries: lab.timeseries,
        simTimeseries: sim.timeseries,
        comparison,
        errors: run.services.flatMap((s) => s.errors.map((e) => `${s.service}: ${e}`)),
      });
    }
    return {
      scenario: scenario.name,
      scale,
      durationS: scenario.durationMs / 1000,
      // Seconds, as the simulator's result has them.
      windows: Object.fromEntries(
        Object.entries(scenario.windows).map(([name, [from, to]]) => [name, [from / 1000, to / 1000]]),
      ),
      database: cluster === null ? 'given (--db)' : 'throwaway PostgreSQL cluster',
      variants: results,
    };
  } finally {
    if (workDir !== keep) rmSync(workDir, { recursive: true, force: true });
    await cluster?.stop();
  }
}
