// What the report's topology picture shows of a variant's model: services, call edges and their policies as labels.

import { validateLoadShedderConfig } from '../policy/admission/shed.js';
import type { ConfigIssue } from '../policy/core/config-error.js';
import type { ResolvedBackoff } from '../policy/retry/backoff.js';
import { describeBudget, describeRetryBreaker } from '../policy/retry/describe.js';
import { retriesAtOneLayer } from '../policy/retry/retry-call.js';
import { validateRetryConfig } from '../policy/retry/retry-config.js';
import { serviceDepths } from '../sim/metrics/summary.js';
import type { ModelSpec } from '../sim/scenario/types.js';

/** A service as drawn: its name, depth from the traffic (column) and the lines under its name. */
export interface TopologyNode {
  name: string;
  depth: number;
  lines: string[];
}

/** A call edge as drawn, with its policy in a few short lines. */
export interface TopologyEdge {
  from: string;
  to: string;
  lines: string[];
}

/** Plain data, so the page can be rendered without the simulator (and compared between variants line by line). */
export interface Topology {
  /** The users: one line per traffic source (rate, patience, entry service). */
  traffic: { to: string; line: string }[];
  nodes: TopologyNode[];
  edges: TopologyEdge[];
}

/** "1 s", "800 ms", "0.2 s" (ms in, short text out). */
export function shortDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '∞';
  if (ms >= 1000 && ms % 100 === 0) return `${ms / 1000} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.round(ms * 10) / 10} ms`;
}

function backoffLine(backoff: ResolvedBackoff): string {
  switch (backoff.kind) {
    case 'none':
      return 'no backoff';
    case 'constant':
      return `wait ${shortDuration(backoff.baseMs)}`;
    default:
      return `${backoff.kind.replace(/-/g, ' ')} backoff ${shortDuration(backoff.baseMs)}–${shortDuration(backoff.capMs)}`;
  }
}

/** Depth of each service from the traffic entries (the simulator's own measure); unreachable: the deepest + 1. */
function depths(model: ModelSpec): Map<string, number> {
  const byIndex = serviceDepths(model);
  const deepest = Math.max(0, ...byIndex);
  return new Map(
    model.services.map((s, i) => [s.name, (byIndex[i] as number) >= 0 ? (byIndex[i] as number) : deepest + 1]),
  );
}

/**
 * The variant's model as labels. Policies are read through the policy's own validator, so defaults shown are the
 * ones the code applies. "1 attempt (one layer)": a Seawall call made inside a request that came from Seawall hops
 * makes one attempt (docs/hops.md); this picture marks an edge so when every call into its caller is such a hop.
 */
export function topologyOf(model: ModelSpec): Topology {
  const depth = depths(model);
  const entries = new Set(model.traffic.map((t) => t.to));
  const byName = new Map(model.services.map((s) => [s.name, s]));
  const nodes: TopologyNode[] = model.services.map((s) => {
    const lines: string[] = [];
    // Read through the shedder's own validator: the defaults drawn are the ones it applies.
    const shed = s.shed === null ? undefined : validateLoadShedderConfig(s.shed, '', [] as ConfigIssue[]);
    if (s.shed !== null && shed === undefined) lines.push('(invalid load shedder)');
    else if (shed !== undefined) {
      const workers = Number.isSafeInteger(shed.workers) && shed.workers < 1e9 ? `${shed.workers} workers` : '';
      const instances = s.instances > 1 ? `${s.instances} × ` : '';
      if (workers) lines.push(instances + workers);
      if (!Number.isFinite(shed.queueLimit)) lines.push('unbounded queue');
      else {
        lines.push(`queue ≤ ${shed.queueLimit}, then 503`);
        lines.push(`  with Retry-After ${shortDuration(shed.retryAfterMs)}`);
      }
      lines.push(
        !s.seawall ? 'ignores deadlines' : shed.dropExpired ? 'drops expired work (504)' : 'runs expired work',
      );
    } else if (s.instances > 1) lines.push(`${s.instances} instances`);
    for (const f of model.faults) {
      if (f.service === s.name && f.workers !== null) {
        lines.push(`fault ${shortDuration(f.startMs)}–${shortDuration(f.endMs)}: ${f.workers} workers`);
      }
    }
    if (!s.seawall) lines.push('no Seawall');
    return { name: s.name, depth: depth.get(s.name) ?? 0, lines };
  });
  const inbound = (name: string) => model.edges.filter((e) => e.to === name);
  const edges: TopologyEdge[] = model.edges.map((e) => {
    const { config } = validateRetryConfig(e.policy);
    const lines: string[] = [];
    if (config === undefined) return { from: e.from, to: e.to, lines: ['(invalid policy)'] };
    const caller = byName.get(e.from);
    const calls = inbound(e.from);
    // Every call into the caller is a Seawall hop (and no user calls it directly): its calls come from Seawall hops.
    const fromSeawallHop =
      caller?.seawall === true && !entries.has(e.from) && calls.length > 0 && calls.every((c) => c.seawall);
    const insideHop = e.seawall && retriesAtOneLayer(fromSeawallHop, e.oneLayer, config.ownership);
    const perTry = Number.isFinite(config.perTryTimeoutMs) ? ` · ${shortDuration(config.perTryTimeoutMs)} per try` : '';
    // @ko report-topology-one-layer
    if (insideHop) lines.push(`1 attempt (one layer)${perTry}`);
    else {
      lines.push(`${config.maxAttempts} attempt${config.maxAttempts === 1 ? '' : 's'}${perTry}`);
      if (config.maxAttempts > 1) {
        lines.push(backoffLine(config.backoff));
        lines.push(describeBudget(config.budget));
        if (config.retryBreaker !== null) lines.push(describeRetryBreaker(config.retryBreaker));
      }
    }
    if (!e.seawall) lines.push('no hop headers');
    else if (config.patienceMs !== null && !insideHop)
      lines.push(
        `deadline ${shortDuration(config.patienceMs)}${config.marginMs > 0 ? ` − ${shortDuration(config.marginMs)}` : ''}${config.propagateDeadline ? ', sent' : ''}`,
      );
    else if (config.propagateDeadline) lines.push('passes the deadline on');
    if (e.circuitBreaker !== null) lines.push('circuit breaker');
    if (e.outlierDetection !== null) lines.push('outlier detection');
    if (e.limits !== null) lines.push('concurrency limits');
    return { from: e.from, to: e.to, lines };
  });
  const traffic = model.traffic.map((t) => ({
    to: t.to,
    line: `${t.ratePerS}/s${t.patienceMs === null ? '' : `, patience ${shortDuration(t.patienceMs)}`}`,
  }));
  return { traffic, nodes, edges };
}
