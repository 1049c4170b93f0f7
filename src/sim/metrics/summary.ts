// From a finished run's counters to the contract's RunSummary and timeseries rows (incident.md's metric definitions).

import type { FaultSpec, ModelSpec } from '../scenario/types.js';
import { BIN_MS, type Metrics } from './collector.js';
import type { EdgeSummary } from './edges.js';

export interface RunSummary {
  variant: string;
  seed: number;
  userRequests: number;
  successRate: Record<string, number>;
  p99Ms: Record<string, number>;
  goodputPerS: Record<string, number>;
  amplification: Record<string, Record<string, number>>;
  /** The service at the greatest call depth: `wastedWorkFraction` is about it, and the table's load column. */
  deepestService: string;
  /**
   * The span from the first fault's start to the last fault's end, in seconds; null when the variant has no faults,
   * so there is nothing to recover from (and `recoverySeconds` is null for that reason, not because it never did).
   */
  trigger: { startS: number; endS: number } | null;
  /** Seconds from the end of the trigger until the success rate is back (incident.md); null: never, or no trigger. */
  recoverySeconds: number | null;
  wastedWorkFraction: number;
  /**
   * How many hops (call edges) retried on behalf of one user request, over the requests where any did: the largest
   * and the mean. Plain retries grow it with depth; one layer or ownership keep it at 1.
   */
  retryRadius: { max: number; mean: number };
  /**
   * Per call edge (`caller -> callee`): attempts sent, retries and their ratio (the seed's 5 % alert), and the stats
   * of the edge's breaker, limits, outlier detection and balancer (metrics/edges.ts).
   */
  edges: Record<string, EdgeSummary>;
}

export interface TimeseriesRow {
  variant: string;
  seed: number;
  /** Bin start, s. */
  t: number;
  service: string;
  arrivals: number;
  /** Entry services only: success rate of the users who arrived in this bin; null without arrivals, and in the last
   * `patience` of the run, whose users may still be waiting when it ends (lastJudgedBin). */
  successRate: number | null;
  /** Entry services only: successful answers delivered in this bin, per second. */
  goodput: number | null;
  queueLength: number;
  inFlight: number;
  /** Executions finished in this bin whose answer nobody was waiting for. */
  wasted: number;
  /** Mean retry-budget level over the service's caller instances (tokens or free retry slots); null without a budget. */
  budgetTokens: number | null;
}

/** Success rate after recovery must be at least this share of the pre-trigger level ... */
export const RECOVERY_LEVEL = 0.95;
/** ... for this many consecutive 1 s bins. */
export const RECOVERY_HOLD_BINS = 5;
/** Without a window named "before", the pre-trigger level is measured over this long before the trigger. */
const PRE_TRIGGER_MS = 10_000;

/** Rounds for stable, readable JSON (1e-6 is far below any sampling error here). */
export function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Each service's call depth from the traffic entries (breadth first), by index; -1 for a service no traffic reaches. */
export function serviceDepths(model: ModelSpec): number[] {
  const index = new Map(model.services.map((s, i) => [s.name, i]));
  const depth = model.services.map(() => -1);
  const queue: number[] = [];
  for (const t of model.traffic) {
    const i = index.get(t.to) as number;
    if (depth[i] === -1) {
      depth[i] = 0;
      queue.push(i);
    }
  }
  while (queue.length > 0) {
    const i = queue.shift() as number;
    for (const call of model.services[i]?.calls ?? []) {
      const j = index.get(call.to) as number;
      if (depth[j] === -1) {
        depth[j] = (depth[i] as number) + 1;
        queue.push(j);
      }
    }
  }
  return depth;
}

/** Services at the greatest call depth from the traffic entries; the first in file order wins a tie. */
export function deepestService(model: ModelSpec): number {
  const depth = serviceDepths(model);
  let best = 0;
  depth.forEach((d, i) => {
    if (d > (depth[best] as number)) best = i;
  });
  return best;
}

function entryServices(model: ModelSpec): number[] {
  const names = new Set(model.traffic.map((t) => t.to));
  return model.services.flatMap((s, i) => (names.has(s.name) ? [i] : []));
}

/**
 * The trigger: from the first fault's start to the last fault's end; null without faults. A fault that starts at or
 * after the end of the run never happens (the loader warns), so it is no trigger either.
 */
export function triggerSpan(
  allFaults: readonly FaultSpec[],
  durationMs = Number.POSITIVE_INFINITY,
): { startMs: number; endMs: number } | null {
  // @ko summary-trigger
  const faults = allFaults.filter((f) => f.startMs < durationMs);
  if (faults.length === 0) return null;
  return { startMs: Math.min(...faults.map((f) => f.startMs)), endMs: Math.max(...faults.map((f) => f.endMs)) };
}

/**
 * The last 1 s bin whose users have all had their answer or given up by the end of the run: users who arrive later
 * may still be waiting (up to the longest `patience`) when it stops, so their bins are not judged (recovery) nor
 * charted (the success series is null there) — counting them as failures would draw a dip that never happened.
 */
export function lastJudgedBin(model: ModelSpec, durationMs: number): number {
  const patienceMs = Math.max(0, ...model.traffic.map((t) => t.patienceMs ?? 0));
  return Math.floor((durationMs - patienceMs) / BIN_MS) - 1;
}

/**
 * incident.md: from the end of the trigger until the success rate, in 1 s bins, is back to at least 95 % of its
 * pre-trigger level and stays there for 5 s; null if it never does. Bins whose users may still be waiting when the
 * run ends (the last `patience`) are not judged. Bins without arrivals count as recovered.
 */
export function recoverySeconds(model: ModelSpec, metrics: Metrics, durationMs: number): number | null {
  const trigger = triggerSpan(model.faults, durationMs);
  if (trigger === null) return null;
  const entries = entryServices(model);
  const arrivals = (bin: number) =>
    entries.reduce((sum, s) => sum + metrics.serviceCountAt(metrics.userArrivals, s, bin), 0);
  const successes = (bin: number) =>
    entries.reduce((sum, s) => sum + metrics.serviceCountAt(metrics.userSuccesses, s, bin), 0);
  const before = metrics.windows.findIndex((w) => w.name === 'before');
  let preLevel: number;
  if (before >= 0) {
    const n = metrics.windowArrivals[before] as number;
    preLevel = n === 0 ? 1 : (metrics.windowSuccesses[before] as number) / n;
  } else {
    let n = 0;
    let ok = 0;
    const from = Math.floor(Math.max(0, trigger.startMs - PRE_TRIGGER_MS) / BIN_MS);
    for (let b = from; b < Math.floor(trigger.startMs / BIN_MS); b++) {
      n += arrivals(b);
      ok += successes(b);
    }
    preLevel = n === 0 ? 1 : ok / n;
  }
  const lastJudged = lastJudgedBin(model, durationMs);
  const recovered = (bin: number) => {
    const n = arrivals(bin);
    return n === 0 || successes(bin) / n >= RECOVERY_LEVEL * preLevel;
  };
  for (let b = Math.floor(trigger.endMs / BIN_MS); b + RECOVERY_HOLD_BINS - 1 <= lastJudged; b++) {
    let holds = true;
    for (let k = 0; k < RECOVERY_HOLD_BINS && holds; k++) holds = recovered(b + k);
    if (holds) return round6(Math.max(0, b * BIN_MS - trigger.endMs) / 1000);
  }
  return null;
}

export function summarize(
  variant: string,
  seed: number,
  model: ModelSpec,
  metrics: Metrics,
  durationMs: number,
  edges: Record<string, EdgeSummary>,
): RunSummary {
  const successRate: Record<string, number> = {};
  const p99Ms: Record<string, number> = {};
  const goodputPerS: Record<string, number> = {};
  metrics.windows.forEach((w, i) => {
    const n = metrics.windowArrivals[i] as number;
    successRate[w.name] = n === 0 ? 0 : round6((metrics.windowSuccesses[i] as number) / n);
    p99Ms[w.name] = round6(metrics.windowLatency[i]?.quantile(0.99) ?? 0);
    goodputPerS[w.name] = round6((metrics.windowGoodput[i] as number) / ((w.endMs - w.startMs) / 1000));
  });
  const amplification: Record<string, Record<string, number>> = {};
  model.services.forEach((service, s) => {
    const row: Record<string, number> = {};
    metrics.windows.forEach((w, i) => {
      const users = metrics.windowArrivals[i] as number;
      const arrivals = metrics.serviceWindowArrivals[s * metrics.windows.length + i] as number;
      row[w.name] = users === 0 ? 0 : round6(arrivals / users);
    });
    row.total = metrics.usersTotal === 0 ? 0 : round6((metrics.serviceArrivalsTotal[s] as number) / metrics.usersTotal);
    amplification[service.name] = row;
  });
  const deepest = deepestService(model);
  const trigger = triggerSpan(model.faults, durationMs);
  const executions = metrics.executionsTotal[deepest] as number;
  return {
    variant,
    seed,
    userRequests: metrics.usersTotal,
    successRate,
    p99Ms,
    goodputPerS,
    amplification,
    deepestService: model.services[deepest]?.name ?? '',
    trigger: trigger === null ? null : { startS: round6(trigger.startMs / 1000), endS: round6(trigger.endMs / 1000) },
    recoverySeconds: recoverySeconds(model, metrics, durationMs),
    wastedWorkFraction: executions === 0 ? 0 : round6((metrics.wastedTotal[deepest] as number) / executions),
    retryRadius: {
      max: metrics.radiusMax,
      mean: metrics.retriedUsers === 0 ? 0 : round6(metrics.radiusSum / metrics.retriedUsers),
    },
    edges,
  };
}

/** One row per bin × service. Success is null where no user arrived and in the bins lastJudgedBin leaves out. */
export function timeseries(
  variant: string,
  seed: number,
  model: ModelSpec,
  metrics: Metrics,
  durationMs: number,
): TimeseriesRow[] {
  const entries = new Set(entryServices(model));
  const lastJudged = lastJudgedBin(model, durationMs);
  const rows: TimeseriesRow[] = [];
  for (let b = 0; b < metrics.binCount; b++) {
    model.services.forEach((service, s) => {
      const entry = entries.has(s);
      // @ko sim-success-series-last-patience
      const users = b <= lastJudged ? metrics.serviceCountAt(metrics.userArrivals, s, b) : 0;
      const tokens = metrics.serviceCountAt(metrics.budgetTokens, s, b);
      rows.push({
        variant,
        seed,
        t: (b * BIN_MS) / 1000,
        service: service.name,
        arrivals: metrics.serviceCountAt(metrics.serviceArrivals, s, b),
        successRate: entry && users > 0 ? round6(metrics.serviceCountAt(metrics.userSuccesses, s, b) / users) : null,
        goodput: entry ? metrics.serviceCountAt(metrics.goodput, s, b) / (BIN_MS / 1000) : null,
        queueLength: metrics.serviceCountAt(metrics.queueLength, s, b),
        inFlight: metrics.serviceCountAt(metrics.inFlight, s, b),
        wasted: metrics.serviceCountAt(metrics.wastedByBin, s, b),
        budgetTokens: Number.isNaN(tokens) ? null : round6(tokens),
      });
    });
  }
  return rows;
}
