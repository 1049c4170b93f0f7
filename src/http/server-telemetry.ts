// Callee-side telemetry: the queue-wait histogram behind stats(), and OpenTelemetry instruments (optional peer).

import { createRequire } from 'node:module';
import type { ServerGate } from './server-core.js';

type Attributes = Record<string, string>;

/** The subset of an OpenTelemetry Meter (@opentelemetry/api) the middleware uses; a real Meter fits. */
export interface ServerMeterLike {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): { record(value: number, attributes?: Attributes): void };
  createObservableCounter(name: string, options?: { description?: string; unit?: string }): object;
  createObservableUpDownCounter(name: string, options?: { description?: string; unit?: string }): object;
  addBatchObservableCallback(
    callback: (result: { observe(observable: object, value: number, attributes?: Attributes): void }) => void,
    observables: object[],
  ): void;
}

/** Upper bounds (ms) of the queue-wait buckets; the last bucket is unbounded. */
export const WAIT_BUCKETS_MS: readonly number[] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

export interface WaitHistogramSnapshot {
  count: number;
  sumMs: number;
  maxMs: number;
  /** Cumulative counts: requests that waited at most `leMs` (Infinity for the last). */
  buckets: { leMs: number; count: number }[];
}

/** Fixed-bucket histogram of queue waits (no per-sample allocation), optionally mirrored to an OTel histogram. */
export class WaitHistogram {
  private readonly counts = new Array<number>(WAIT_BUCKETS_MS.length + 1).fill(0);
  private count = 0;
  private sumMs = 0;
  private maxMs = 0;
  /** @internal */ sink: { record(value: number, attributes?: Attributes): void } | null = null;
  /** @internal */ sinkAttributes: Attributes = {};

  record(waitedMs: number): void {
    let i = 0;
    while (i < WAIT_BUCKETS_MS.length && waitedMs > (WAIT_BUCKETS_MS[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.count++;
    this.sumMs += waitedMs;
    if (waitedMs > this.maxMs) this.maxMs = waitedMs;
    this.sink?.record(waitedMs / 1000, this.sinkAttributes);
  }

  snapshot(): WaitHistogramSnapshot {
    let cumulative = 0;
    const buckets = this.counts.map((n, i) => {
      cumulative += n;
      return { leMs: WAIT_BUCKETS_MS[i] ?? Infinity, count: cumulative };
    });
    return { count: this.count, sumMs: this.sumMs, maxMs: this.maxMs, buckets };
  }
}

/** OpenTelemetry metric names (Envoy's vocabulary: pending = queued, overflow = shed). */
export const SERVER_METRICS = {
  total: 'seawall.server.rq_total',
  admitted: 'seawall.server.rq_admitted',
  pendingTotal: 'seawall.server.rq_pending_total',
  pendingOverflow: 'seawall.server.rq_pending_overflow',
  dropped: 'seawall.server.rq_dropped',
  cancelled: 'seawall.server.rq_cancelled',
  completed: 'seawall.server.rq_completed',
  late: 'seawall.server.rq_late',
  handler5xx: 'seawall.server.rq_handler_5xx',
  malformedHeaders: 'seawall.server.deadline_header_malformed',
  cappedDeadlines: 'seawall.server.deadline_capped',
  untrustedHeaders: 'seawall.server.deadline_header_untrusted',
  active: 'seawall.server.rq_active',
  pendingActive: 'seawall.server.rq_pending_active',
  pendingTime: 'seawall.server.rq_pending_time',
} as const;

/** The global meter of @opentelemetry/api if it is installed, else undefined (it is an optional peer). */
function globalMeter(): ServerMeterLike | undefined {
  try {
    const api = createRequire(import.meta.url)('@opentelemetry/api') as {
      metrics: { getMeter(name: string): ServerMeterLike };
    };
    return api.metrics.getMeter('seawall');
  } catch {
    return undefined;
  }
}

/**
 * Registers the gate's instruments. Counters and gauges are observable (read from stats() at collection time:
 * nothing on the request path); only the queue-wait histogram records per request.
 */
export function instrumentServer(gate: ServerGate, meter: ServerMeterLike | false | undefined, name: string): void {
  const m = meter === undefined ? globalMeter() : meter;
  if (!m) return;
  const base: Attributes = { 'seawall.server.name': name };
  const counter = (metric: string, description: string) =>
    m.createObservableCounter(metric, { description, unit: '{request}' });
  const gauge = (metric: string, description: string) =>
    m.createObservableUpDownCounter(metric, { description, unit: '{request}' });
  const total = counter(SERVER_METRICS.total, 'Requests offered to the load shedder');
  const admitted = counter(SERVER_METRICS.admitted, 'Requests that got a worker');
  const pendingTotal = counter(SERVER_METRICS.pendingTotal, 'Requests that waited in the queue');
  const overflow = counter(SERVER_METRICS.pendingOverflow, 'Requests shed with 503: the queue was full');
  const dropped = counter(SERVER_METRICS.dropped, 'Requests answered 504: deadline passed (seawall.stage)');
  const cancelled = counter(SERVER_METRICS.cancelled, 'Requests whose client went away (seawall.stage)');
  const completed = counter(SERVER_METRICS.completed, 'Requests that released their worker');
  const late = counter(SERVER_METRICS.late, 'Requests that finished after their deadline');
  const errors = counter(SERVER_METRICS.handler5xx, 'Admitted requests the handler answered with a 5xx');
  const malformed = counter(SERVER_METRICS.malformedHeaders, 'Requests with only unusable deadline headers');
  const capped = counter(SERVER_METRICS.cappedDeadlines, 'Deadlines capped to maxDeadline');
  const untrusted = counter(SERVER_METRICS.untrustedHeaders, 'Requests whose Seawall headers were not trusted');
  const active = gauge(SERVER_METRICS.active, 'Requests running now');
  const pendingActive = gauge(SERVER_METRICS.pendingActive, 'Requests waiting now');
  const stage = (value: string): Attributes => ({ ...base, 'seawall.stage': value });
  const arrival = stage('arrival');
  const queue = stage('queue');
  const queued = stage('queued');
  const running = stage('running');
  m.addBatchObservableCallback(
    (result) => {
      const s = gate.stats();
      result.observe(total, s.offered, base);
      result.observe(admitted, s.started, base);
      result.observe(pendingTotal, s.queuedTotal, base);
      result.observe(overflow, s.shed, base);
      result.observe(dropped, s.droppedOnArrival, arrival);
      result.observe(dropped, s.dropped, queue);
      result.observe(cancelled, s.cancelled, queued);
      result.observe(cancelled, s.cancelledRunning, running);
      result.observe(completed, s.completed, base);
      result.observe(late, s.finishedLate, base);
      result.observe(errors, s.handler5xx, base);
      result.observe(malformed, s.malformedHeaders, base);
      result.observe(capped, s.cappedDeadlines, base);
      result.observe(untrusted, s.untrustedHeaders, base);
      result.observe(active, s.running, base);
      result.observe(pendingActive, s.queued, base);
    },
    [total, admitted, pendingTotal, overflow, dropped, cancelled, completed, late, errors].concat([
      malformed,
      capped,
      untrusted,
      active,
      pendingActive,
    ]),
  );
  const histogram = gate.waitHistogram;
  histogram.sink = m.createHistogram(SERVER_METRICS.pendingTime, {
    description: 'Time admitted requests waited for a worker',
    unit: 's',
  });
  histogram.sinkAttributes = base;
}
