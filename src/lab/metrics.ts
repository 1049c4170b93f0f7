// From the lab's records to the simulator's RunSummary and timeseries: the same collector, the same definitions.

import { Metrics, type WindowDef } from '../sim/metrics/collector.js';
import type { EdgeSummary } from '../sim/metrics/edges.js';
import { type RunSummary, summarize, type TimeseriesRow, timeseries } from '../sim/metrics/summary.js';
import { type WorkChain, wastedOnChain } from '../sim/model/wasted.js';
import type { ModelSpec } from '../sim/scenario/types.js';
import type { ServiceRecords, UserRecords } from './records.js';

export interface LabRun {
  users: UserRecords;
  services: ServiceRecords[];
}

/** An attempt's key in the logs (`<service index>.<attempt id>`), read. */
interface AttemptLink {
  service: ServiceRecords;
  id: number;
}

/**
 * Wasted work, the simulator's rule (src/sim/model/wasted.ts wastedOnChain) over the lab's logs: this class is the
 * lab's WorkChain, a link being the key of the request that brought an execution (`u.<id>` for a user's request,
 * `<service>.<attempt>` for an attempt). An attempt is awaited at time T when the caller got its answer (which the
 * request below it produced, so it waited past T) or was still waiting at T; the request it was made for is still
 * handled at T when it had not ended by then.
 *
 * The processes' clocks agree to within an IPC round trip (run.ts measures each offset), a few tens of µs, but an
 * answer crosses loopback in about as little: so the chain compares times of one process wherever the logs allow.
 * An answered link needs no comparison; the request it was made for is in hand if it ended after the answer came (one
 * clock); only a link that gave up (a timeout, an abort) or a request ended early is compared with T across clocks.
 */
export class ChainJudge implements WorkChain<string> {
  private readonly byIndex: Map<number, ServiceRecords>;

  constructor(
    private readonly run: LabRun,
    private readonly durationMs: number,
  ) {
    this.byIndex = new Map(run.services.map((s) => [s.index, s]));
  }

  /** Is the execution that `parent` (the key of the request that brought it) started wasted when it ends at `t`? */
  wasted(parent: string, t: number): boolean {
    // @ko lab-wasted-whole-chain
    return wastedOnChain(this, parent, t);
  }

  isUser(link: string): boolean {
    return /^u\.\d+$/.test(link);
  }

  userWaits(link: string, t: number): boolean {
    const id = Number(link.slice(2));
    const end = this.run.users.endMs[id];
    if (end === undefined) return false;
    // Answered: by the entry request, which was in hand at t, so the user waited past t.
    if ((this.run.users.status[id] ?? 0) !== 0) return true;
    return end < 0 || end >= this.durationMs || end > t;
  }

  awaited(link: string, t: number): boolean {
    const a = this.attempt(link);
    if (a === null) return false;
    const end = a.service.attempts.endMs[a.id] as number;
    return a.service.attempts.answered[a.id] === 1 || end < 0 || end > t;
  }

  callerHandling(link: string, t: number): boolean {
    const a = this.attempt(link) as AttemptLink;
    const attempts = a.service.attempts;
    const handled = a.service.inbound.endMs[attempts.request[a.id] as number] ?? -1;
    const answeredBefore = attempts.answered[a.id] === 1 && handled >= (attempts.endMs[a.id] as number);
    return handled < 0 || answeredBefore || handled >= t;
  }

  up(link: string): string {
    const a = this.attempt(link) as AttemptLink;
    return a.service.inbound.parent[a.service.attempts.request[a.id] as number] ?? '';
  }

  private attempt(link: string): AttemptLink | null {
    const key = /^(\d+)\.(\d+)$/.exec(link);
    if (key === null) return null;
    const service = this.byIndex.get(Number(key[1]));
    const id = Number(key[2]);
    if (service === undefined || service.attempts.endMs[id] === undefined) return null;
    return { service, id };
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
      metrics.executionFinished(si, judge.wasted(r.parent[i] as string, end), end);
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
