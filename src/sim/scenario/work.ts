// The work a scenario asks for, estimated before it runs: service requests over the run, refused beyond a limit.

import type { Problem } from './errors.js';
import type { ModelSpec } from './types.js';

/**
 * Service requests one run of one variant may ask for, at most, unless the file raises it (`maxRequests:`). The
 * simulator does roughly a million a second on one core, so the default is a run of about a minute; `rate: 1e9`
 * asked for 60 billion and ran until it was killed.
 */
export const DEFAULT_MAX_REQUESTS = 50_000_000;

const n = (x: number): string =>
  Number.isFinite(x) && x < 1e15 ? x.toLocaleString('en-US', { maximumFractionDigits: 3 }) : x.toExponential(2);

/**
 * How many service executions one request arriving at each service leads to, at the least: itself, plus one for
 * every call it makes down the graph (first attempts only: retries, hedges and a surge's extra users come on top).
 * Iterative, in an order where callees come first; a service on a call cycle (refused elsewhere) counts as 1.
 */
export function requestsPerArrival(model: ModelSpec): Map<string, number> {
  const byName = new Map(model.services.map((s) => [s.name, s]));
  const per = new Map<string, number>();
  const onPath = new Set<string>();
  for (const root of model.services) {
    if (per.has(root.name)) continue;
    const stack: { name: string; next: number }[] = [{ name: root.name, next: 0 }];
    onPath.add(root.name);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; next: number };
      const calls = byName.get(top.name)?.calls ?? [];
      if (top.next < calls.length) {
        const to = (calls[top.next++] as { to: string }).to;
        if (per.has(to) || onPath.has(to) || !byName.has(to)) continue;
        onPath.add(to);
        stack.push({ name: to, next: 0 });
        continue;
      }
      let total = 1;
      for (const call of calls) total += per.get(call.to) ?? (byName.has(call.to) ? 1 : 0);
      per.set(top.name, total);
      onPath.delete(top.name);
      stack.pop();
    }
  }
  return per;
}

/**
 * Service requests over a run of `durationMs`, at the least: each traffic source's rate × the duration (plus the
 * extra arrivals of the surges into it, each taken alone) × the executions one arrival leads to.
 */
export function estimateRequests(model: ModelSpec, durationMs: number): number {
  const per = requestsPerArrival(model);
  let total = 0;
  for (const source of model.traffic) {
    let seconds = durationMs / 1000;
    for (const fault of model.faults) {
      if (fault.surge <= 1 || (fault.service !== null && fault.service !== source.to)) continue;
      const heldMs = Math.max(0, Math.min(fault.endMs, durationMs) - Math.max(fault.startMs, 0));
      seconds += ((fault.surge - 1) * heldMs) / 1000;
    }
    total += source.ratePerS * seconds * (per.get(source.to) ?? 1);
  }
  return total;
}

/** A problem when the model asks for more than `limit` service requests over the run (nothing when the duration is unknown). */
export function checkWork(model: ModelSpec, durationMs: number, limit: number, problems: Problem[]): void {
  if (!Number.isFinite(durationMs)) return;
  const requests = estimateRequests(model, durationMs);
  // @ko sim-work-estimate-refused
  if (!(requests > limit)) return;
  const rate = model.traffic.reduce((sum, t) => sum + t.ratePerS, 0);
  problems.push({
    path: 'traffic',
    message:
      `asks for at least ${n(Math.round(requests))} service requests over the run (${n(rate)} requests/s × ${n(durationMs / 1000)} s, ` +
      `× the services each request reaches, + surges); at most ${n(limit)}: lower the rates or the duration, or ` +
      'raise the limit with the top-level key `maxRequests` (the run takes about a second per million)',
  });
}
