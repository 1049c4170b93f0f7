// Load generators for the overload bench: shared types, autocannon (closed loop) and max-throughput runs.
// The open-loop generator is in open-loop.ts.
import autocannon from 'autocannon';
import { LatencyHistogram } from './histogram.js';

export interface LoadSpec {
  url: string;
  ratePerS: number;
  durationS: number;
  /** The client's deadline: sent as grpc-timeout; a reply later than this is not goodput. */
  deadlineMs: number;
  connections: number;
}

export interface LoadResult {
  /** Requests the generator issued (arrivals). */
  offered: number;
  /** 2xx answered within the deadline (goodput). */
  ok: number;
  /** 2xx answered after the client's deadline (the client had given up: autocannon never sees these). */
  okLate: number;
  /** Other statuses by code. */
  statuses: Record<string, number>;
  timeouts: number;
  errors: number;
  /** Latency of the goodput replies, measured from the scheduled arrival (no coordinated omission). */
  p50Ms: number;
  p99Ms: number;
}

/**
 * autocannon with overallRate: a closed loop per connection, and each connection sends its per-second quota as
 * fast as replies come back (fast 503s burn it early in the second). Offered for comparison with the open loop.
 */
export async function closedLoop(spec: LoadSpec): Promise<LoadResult> {
  const histogram = new LatencyHistogram();
  const statuses: Record<string, number> = {};
  let ok = 0;
  let okLate = 0;
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    overallRate: spec.ratePerS,
    duration: spec.durationS,
    timeout: Math.max(1, spec.deadlineMs / 1000),
    headers: { 'grpc-timeout': `${spec.deadlineMs}m` },
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    if (statusCode >= 200 && statusCode < 300) {
      if (responseTimeMs <= spec.deadlineMs) {
        ok++;
        histogram.record(responseTimeMs);
      } else okLate++;
    } else statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const r = await instance;
  return {
    offered: r.requests.sent,
    ok,
    okLate,
    statuses,
    timeouts: r.timeouts,
    errors: r.errors - r.timeouts,
    p50Ms: histogram.quantile(0.5),
    p99Ms: histogram.quantile(0.99),
  };
}

/** Max throughput of a trivial handler (closed loop, no rate limit): req/s. */
export async function maxThroughput(url: string, durationS: number, connections = 50): Promise<number> {
  const r = await autocannon({ url, connections, duration: durationS });
  return r.requests.average;
}
