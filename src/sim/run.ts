// simulate(): runs every requested variant × seed (on worker threads when it pays) and assembles the contract's result.

import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { ShedStats } from '../policy/admission/shed.js';
import type { RetryStats } from '../policy/retry/retry-stats.js';
import { edgeSummaries } from './metrics/edges.js';
import { type RunSummary, summarize, type TimeseriesRow, timeseries } from './metrics/summary.js';
import { RunLimitError } from './model/live-limit.js';
import { World } from './model/world.js';
import { ScenarioError } from './scenario/errors.js';
import type { Scenario } from './scenario/types.js';

export type { RunSummary, TimeseriesRow };

export interface RunOptions {
  /** Default: every variant, in file order. */
  variants?: string[];
  /** Default [1]. */
  seeds?: number[];
  onProgress?(done: number, total: number): void;
  /** Run variants on worker threads (default: when there is more than one run and the code is compiled JS). */
  parallel?: boolean;
}

/** A variant that ran, as the scenario describes it (for the report's verdict table and its groups). */
export interface VariantInfo {
  name: string;
  /** The variant's `group` in the scenario; null when it has none. */
  group: string | null;
  description: string | null;
}

/** Exactly the JSON `seawall simulate --json` prints, plus the timeseries (for CSV; strip it before printing). */
export interface SimulationResult {
  scenario: string;
  /** The scenario's `description` (always set by simulate(); optional for results built by hand). */
  description?: string | null;
  durationS: number;
  windows: Record<string, [number, number]>;
  /** The variants that ran, in run order (always set by simulate()). */
  variants?: VariantInfo[];
  engine: { events: number; wallMs: number };
  runs: RunSummary[];
  timeseries: TimeseriesRow[];
}

/** Per-service counters beyond the contract, for tests and docs (queueing checks, mechanism tests). */
export interface ServiceDetail {
  name: string;
  arrivals: number;
  executions: number;
  wasted: number;
  started: number;
  /** Share of started executions that waited in a queue first. */
  waitedFraction: number;
  meanWaitMs: number;
  /** Executions started in each window: how many, the share that waited, the mean wait (ms). */
  windows: Record<string, { started: number; waitedFraction: number; meanWaitMs: number }>;
  /** Summed over instances; null without a shedder. */
  shed: ShedStats | null;
  /** Summed over caller instances, per callee. */
  calls: Record<string, RetryStats>;
}

export interface VariantRun {
  summary: RunSummary;
  timeseries: TimeseriesRow[];
  events: number;
  services: ServiceDetail[];
}

function sumInto<T extends object>(total: T | null, add: T): T {
  if (total === null) return structuredClone(add);
  for (const [key, value] of Object.entries(add)) {
    const t = total as Record<string, unknown>;
    if (typeof value === 'number') t[key] = (t[key] as number) + value;
    else if (typeof value === 'object' && value !== null) sumInto(t[key] as object, value as object);
  }
  return total;
}

/** One variant, one seed, in this thread. `durationMs` shortens (or lengthens) the run, e.g. for tests. */
export function runVariant(
  scenario: Scenario,
  variant: string,
  seed: number,
  overrides: { durationMs?: number } = {},
): VariantRun {
  const spec = scenario.variants.find((v) => v.name === variant);
  if (spec === undefined) {
    const known = scenario.variants.map((v) => v.name).join(', ');
    throw new ScenarioError(scenario.source, [`variants: no variant named ${variant} (known: ${known})`]);
  }
  const durationMs = overrides.durationMs ?? scenario.durationMs;
  const windows = Object.entries(scenario.windows).map(([name, [startMs, endMs]]) => ({ name, startMs, endMs }));
  const world = new World({ model: spec.model, durationMs, windows, seed, maxLive: scenario.maxLive });
  try {
    world.run();
  } catch (error) {
    if (error instanceof RunLimitError) throw new RunLimitError(`variant ${variant}, seed ${seed}: ${error.message}`);
    throw error;
  }
  const m = world.metrics;
  const services = world.services.map((service, s): ServiceDetail => {
    let shed: ShedStats | null = null;
    const calls: Record<string, RetryStats> = {};
    for (const instance of service.instances) {
      if (instance.shedder !== null) shed = sumInto(shed, instance.shedder.stats());
      for (const edge of instance.edges) {
        const name = edge.callee.spec.name;
        calls[name] = sumInto(calls[name] ?? null, edge.policy.stats());
      }
    }
    const started = m.started[s] as number;
    const perWindow: ServiceDetail['windows'] = {};
    windows.forEach((w, i) => {
      const j = s * windows.length + i;
      const n = m.windowStarted[j] as number;
      perWindow[w.name] = {
        started: n,
        waitedFraction: n === 0 ? 0 : (m.windowWaited[j] as number) / n,
        meanWaitMs: n === 0 ? 0 : (m.windowWaitSumMs[j] as number) / n,
      };
    });
    return {
      name: service.spec.name,
      arrivals: m.serviceArrivalsTotal[s] as number,
      executions: m.executionsTotal[s] as number,
      wasted: m.wastedTotal[s] as number,
      started,
      waitedFraction: started === 0 ? 0 : (m.waited[s] as number) / started,
      meanWaitMs: started === 0 ? 0 : (m.waitSumMs[s] as number) / started,
      windows: perWindow,
      shed,
      calls,
    };
  });
  return {
    summary: summarize(variant, seed, spec.model, m, durationMs, edgeSummaries(spec.model, world.services, m)),
    timeseries: timeseries(variant, seed, spec.model, m, durationMs),
    events: world.engine.events,
    services,
  };
}

interface Task {
  variant: string;
  seed: number;
}

export interface TaskResult {
  summary: RunSummary;
  timeseries: TimeseriesRow[];
  events: number;
}

/** Young generation for worker threads: queued work in a meltdown survives scavenges; fewer, larger ones copy less. */
const WORKER_YOUNG_GENERATION_MB = 64;

/**
 * A worker running worker.js beside this module. From TypeScript sources (tests, `tsx`), the worker first
 * registers tsx's loader (workers do not inherit loader hooks); null when that is impossible (then runs are serial).
 */
function startWorker(scenario: Scenario): Worker | null {
  const options = {
    workerData: { scenario },
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  };
  const self = import.meta.url;
  if (self.endsWith('.js')) return new Worker(new URL('./worker.js', self), options);
  let tsxApi: string;
  try {
    tsxApi = import.meta.resolve('tsx/esm/api');
  } catch {
    return null;
  }
  const entry = new URL('./worker.ts', self).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** What a worker answers for a task: its result, or the run's stop at its bound on live work (RunLimitError). */
export type WorkerReply = { index: number; result: TaskResult } | { index: number; limit: string };

/**
 * Runs the tasks on worker threads. A task that stops at its live-work bound fails the whole call, and the error is
 * the one the serial loop would have met first (the lowest task index): later tasks are abandoned (their workers
 * terminated), earlier ones still running finish, so which run is named does not depend on thread timing.
 */
async function runOnWorkers(scenario: Scenario, tasks: Task[], done: (i: number, r: TaskResult) => void) {
  const threads = Math.min(availableParallelism(), tasks.length);
  let next = 0;
  let failure: { index: number; message: string } | null = null;
  const running = new Set<{ current: number; stop(): void }>();
  const fail = (index: number, message: string) => {
    // @ko sim-workers-first-failure
    if (failure === null || index < failure.index) failure = { index, message };
    const first = failure.index;
    for (const thread of running) if (thread.current > first) thread.stop();
  };
  const runThread = () =>
    new Promise<void>((resolve, reject) => {
      const worker = startWorker(scenario);
      if (worker === null) {
        reject(new Error('cannot start a simulation worker'));
        return;
      }
      const thread = {
        current: -1,
        stop() {
          running.delete(thread);
          thread.current = -1;
          void worker.terminate().then(() => resolve());
        },
      };
      running.add(thread);
      const feed = () => {
        if (next >= tasks.length || failure !== null) {
          thread.stop();
          return;
        }
        thread.current = next++;
        worker.postMessage({ index: thread.current, ...(tasks[thread.current] as Task) });
      };
      worker.on('message', (message: WorkerReply) => {
        if (!running.has(thread)) return;
        if ('limit' in message) fail(message.index, message.limit);
        else done(message.index, message.result);
        if (running.has(thread)) feed();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => {
        if (code !== 0 && code !== 1) reject(new Error(`simulation worker exited with code ${code}`));
      });
      feed();
    });
  await Promise.all(Array.from({ length: threads }, runThread));
  const failed = failure as { index: number; message: string } | null;
  if (failed !== null) throw new RunLimitError(failed.message);
}

function canStartWorkers(): boolean {
  if (import.meta.url.endsWith('.js')) return true;
  try {
    import.meta.resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

/** Runs the scenario's variants × seeds. Same scenario + seeds = the same result, except engine.wallMs. */
export async function simulate(scenario: Scenario, options: RunOptions = {}): Promise<SimulationResult> {
  const started = performance.now();
  const variants = options.variants ?? scenario.variants.map((v) => v.name);
  const unknown = variants.filter((name) => !scenario.variants.some((v) => v.name === name));
  if (unknown.length > 0) {
    const known = scenario.variants.map((v) => v.name).join(', ');
    throw new ScenarioError(
      scenario.source,
      unknown.map((name) => `variants: no variant named ${name} (known: ${known})`),
    );
  }
  const seeds = options.seeds ?? [1];
  const tasks: Task[] = variants.flatMap((variant) => seeds.map((seed) => ({ variant, seed })));
  const results: (TaskResult | undefined)[] = tasks.map(() => undefined);
  let finished = 0;
  const done = (index: number, result: TaskResult) => {
    results[index] = result;
    options.onProgress?.(++finished, tasks.length);
  };
  const parallel = (options.parallel ?? true) && tasks.length > 1 && availableParallelism() > 1 && canStartWorkers();
  if (parallel) {
    await runOnWorkers(scenario, tasks, done);
  } else {
    for (let i = 0; i < tasks.length; i++) {
      const task = tasks[i] as Task;
      const run = runVariant(scenario, task.variant, task.seed);
      done(i, { summary: run.summary, timeseries: run.timeseries, events: run.events });
      // Let progress output and timers breathe between runs.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const complete = results as TaskResult[];
  const windows: Record<string, [number, number]> = {};
  for (const [name, [startMs, endMs]] of Object.entries(scenario.windows))
    windows[name] = [startMs / 1000, endMs / 1000];
  const info = variants.map((name): VariantInfo => {
    const spec = scenario.variants.find((v) => v.name === name);
    return { name, group: spec?.group ?? null, description: spec?.description ?? null };
  });
  return {
    scenario: scenario.name,
    description: scenario.description,
    durationS: scenario.durationMs / 1000,
    windows,
    variants: info,
    engine: { events: complete.reduce((sum, r) => sum + r.events, 0), wallMs: Math.round(performance.now() - started) },
    runs: complete.map((r) => r.summary),
    timeseries: complete.flatMap((r) => r.timeseries),
  };
}
