// From the lab's records to the simulator's RunSummary and timeseries: the same collector, the same definitions.

import { Metrics, type WindowDef } from '../sim/metrics/collector.js';
import type { EdgeSummary } from '../sim/metrics/edges.js';
import { type RunSummary, summarize, type TimeseriesRow, timeseries } from '../sim/metrics/summary.js';
import type { ModelSpec } from '../sim/scenario/types.js';
import type { ServiceRecords, UserRecords } from './records.js';

export interface LabRun {
  users: UserRecords;
  services: ServiceRecords[];
}

/**
 * Wasted work, the simulator's rule (src/sim/model/wasted.ts) read off the lab's logs: an execution is wasted when,
 * at the instant it finishes, its result can no longer reach a waiting user: the user has ended, or some attempt on
 * the chain from the user down to it is no longer awaited by the caller that sent it, at any level. An attempt is
 * awaited at time T when the caller got its answer (which the request below it produced, so it waited past T) or was
 * still waiting at T, and the request it was made for was still being handled at T.
 *
 * The processes' clocks agree to within an IPC round trip (run.ts measures each offset), a few tens of µs, but an
 * answer crosses loopback in about as little: so the rule compares times of one process wherever the logs allow.
 * An answered link needs no comparison; the request it was made for is in hand if it ended after the answer came (one
 * clock); only a link that gave up (a timeout, an abort) or a request ended early is compared with T across clocks.
 */
export class ChainJudge {
  private readonly byIndex: Map<number, ServiceRecords>;

  constructor(
    private readonly run: LabRun,
    private readonly durationMs: number,
  ) {
    this.byIndex = new Map(run.services.map((s) => [s.index, s]));
  }

  /** Is the parent behind key `parent` (`u.<id>` or `<service>.<attempt>`) still waiting at `t`, all the way up? */
  awaited(parent: string, t: number): boolean {
    for (let depth = 0; depth < 64; depth++) {
      if (/^u\.\d+$/.test(parent)) {
        const id = Number(parent.slice(2));
        const end = this.run.users.endMs[id];
        if (end === undefined) return false;
        // Answered: by the entry request, which was in hand at t, so the user waited past t.
        if ((this.run.users.status[id] ?? 0) !== 0) return true;
        return end < 0 || end >= this.durationMs || end > t;
      }
      const key = /^(\d+)\.(\d+)$/.exec(parent);
      if (key === null) return false;
      const service = this.byIndex.get(Number(key[1]));
      const id = Number(key[2]);
      const a = service?.attempts;
      if (service === undefined || a === undefined || a.endMs[id] === undefined) return false;
      const end = a.endMs[id] as number;
      const answered = a.answered[id] === 1;
      if (!answered && !(end < 0 || end > t)) return false;
      // The request the attempt was made for must still be in hand (a parallel sibling's failure may have ended it).
      const request = a.request[id] as number;
      const handled = service.inbound.endMs[request] ?? -1;
      if (handled >= 0 && !(answered && handled >= end) && handled < t) return false;
      parent = service.inbound.parent[request] ?? '';
    }
    return false;
  }
}

/** The run as the simulator reports one: `summarize` and `timeseries` over a Metrics fed from the records. */
export function labSummary(
  variant: string,
  seed: number,
  model: ModelSpec,
  durationMs: number,
  windows: readonly WindowDef[],
  run: LabRun,
): { summary: RunSummary; timeseries: TimeseriesRow[] } {
  const index = new Map(model.services.map((s, i) => [s.name, i]));
  const metrics = new Metrics(durationMs, windows, model.services.length, model.edges.length);
  const judge = new ChainJudge(run, durationMs);
  const entry = index.get(model.traffic[0]?.to ?? '') ?? 0;
  const patienceMs = model.traffic[0]?.patienceMs ?? null;
  const users = run.users;
  for (let u = 0; u < users.arrivalMs.length; u++) {
    const arrival = users.arrivalMs[u] as number;
    if (arrival >= durationMs) continue;
    const segment = metrics.segmentAt(arrival);
    metrics.userArrived(entry, segment);
    const end = users.endMs[u] as number;
    // Users still waiting when the run ends have not ended (as in the simulator, which stops at its duration).
    if (end < 0 || end >= durationMs) continue;
    const latency = patienceMs === null ? end - arrival : Math.min(end - arrival, patienceMs);
    metrics.userEnded(entry, segment, users.success[u] === 1, latency, end);
  }
  for (const s of run.services) {
    const si = index.get(s.service) as number;
    const r = s.inbound;
    for (let i = 0; i < r.arrivalMs.length; i++) {
      const arrival = r.arrivalMs[i] as number;
      if (arrival >= durationMs) continue;
      metrics.serviceArrival(si, arrival);
      const start = r.startMs[i] as number;
      if (start < 0 || start >= durationMs) continue;
      metrics.executionStarted(si, r.waitedMs[i] as number, start);
      const end = r.endMs[i] as number;
      if (end < 0 || end >= durationMs) continue;
      metrics.executionFinished(si, !judge.awaited(r.parent[i] as string, end), end);
    }
    const g = s.gauges;
    for (let b = 0; b < metrics.binCount && b < g.queueLength.length; b++) {
      metrics.sample(si, b, g.queueLength[b] as number, g.inFlight[b] as number, g.budget[b] ?? Number.NaN);
    }
  }
  const edges = edgeSummaries(model, run, metrics);
  countRetryRadius(run, metrics);
  metrics.finish();
  return {
    summary: summarize(variant, seed, model, metrics, durationMs, edges),
    timeseries: timeseries(variant, seed, model, metrics, durationMs),
  };
}

/** Retries per user request: which call edges retried on its behalf (Metrics.hopRetried, as the simulator counts). */
function countRetryRadius(run: LabRun, metrics: Metrics): void {
  const edgesByUser = new Map<number, Set<string>>();
  for (const s of run.services) {
    const seen = new Set<string>();
    const a = s.attempts;
    for (let id = 0; id < a.to.length; id++) {
      const call = `${a.request[id]}>${a.to[id]}`;
      if (!seen.has(call)) {
        seen.add(call);
        continue;
      }
      const user = s.inbound.user[a.request[id] as number] ?? -1;
      if (user < 0) continue;
      let set = edgesByUser.get(user);
      if (set === undefined) edgesByUser.set(user, (set = new Set()));
      set.add(`${s.service}>${a.to[id]}`);
    }
  }
  for (const set of edgesByUser.values()) for (let k = 1; k <= set.size; k++) metrics.hopRetried(k);
}

function edgeSummaries(model: ModelSpec, run: LabRun, metrics: Metrics): Record<string, EdgeSummary> {
  const out: Record<string, EdgeSummary> = {};
  const bins = metrics.binCount;
  model.edges.forEach((spec, e) => {
    const caller = run.services.find((s) => s.service === spec.from);
    let total = 0;
    let retries = 0;
    if (caller !== undefined) {
      const seen = new Set<number>();
      const a = caller.attempts;
      for (let id = 0; id < a.to.length; id++) {
        if (a.to[id] !== spec.to) continue;
        total++;
        const request = a.request[id] as number;
        if (seen.has(request)) retries++;
        else seen.add(request);
      }
    }
    const summary: EdgeSummary = {
      upstreamRqTotal: total,
      upstreamRqRetry: retries,
      retryRatio: total === 0 ? 0 : Math.round((retries / total) * 1e6) / 1e6,
    };
    const end = caller?.edges[spec.to];
    const open = caller?.gauges.breakerOpen[spec.to] ?? [];
    for (let b = 0; b < bins && b < open.length; b++) metrics.breakersOpen[e * bins + b] = open[b] as number;
    const cb = end?.circuitBreaker;
    if (cb) {
      summary.circuitBreaker = {
        opened: cb.opened ?? 0,
        reopened: cb.reopened ?? 0,
        closedAfterProbes: cb.closedAfterProbes ?? 0,
        rejected: cb.rejected ?? 0,
        rejectedOpen: cb.rejectedOpen ?? 0,
        rejectedHalfOpenFull: cb.rejectedHalfOpenFull ?? 0,
        probes: cb.probes ?? 0,
        probeSuccesses: cb.probeSuccesses ?? 0,
        probeFailures: cb.probeFailures ?? 0,
        openByBin: Array.from(metrics.breakersOpen.subarray(e * bins, (e + 1) * bins)),
      };
    }
    const l = end?.limits;
    if (l) {
      summary.limits = {
        pendingOverflow: l.pendingOverflow ?? 0,
        activeOverflow: l.activeOverflow ?? 0,
        retryOverflow: l.retryOverflow ?? 0,
        requestsTotal: l.requestsTotal ?? 0,
        retriesTotal: l.retriesTotal ?? 0,
      };
    }
    out[`${spec.from} -> ${spec.to}`] = summary;
  });
  return out;
}
