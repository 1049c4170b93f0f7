// The middleware's metrics through the real OpenTelemetry SDK (a meter given explicitly): buckets, same-name series, names.
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { COUNTERS } from '../../../src/driver/telemetry.js';
import type { ServerGate, ServerStats } from '../../../src/http/server/core.js';
import {
  instrumentServer,
  SERVER_METRICS,
  WAIT_BUCKETS_MS,
  WaitHistogram,
} from '../../../src/http/server/telemetry.js';
import { LatencyHistogram } from '../../../src/policy/core/latency-histogram.js';
import { collectGarbage, sdkMetrics } from '../otel-sdk.js';
import { closeAll, send, serve, waitFor } from './server-helpers.js';

afterEach(closeAll);

const ZERO: Omit<ServerStats, 'queueWait' | 'deadlineSkew'> = {
  offered: 0,
  admittedImmediately: 0,
  queuedTotal: 0,
  shed: 0,
  droppedOnArrival: 0,
  dropped: 0,
  cancelled: 0,
  started: 0,
  completed: 0,
  running: 0,
  queued: 0,
  peakQueued: 0,
  malformedHeaders: 0,
  cappedDeadlines: 0,
  untrustedHeaders: 0,
  cancelledRunning: 0,
  finishedLate: 0,
  handler5xx: 0,
};

/** What instrumentServer reads of a gate: stats() and the wait histogram. */
function stubGate(stats: Partial<ServerStats> & { deadlineSkew?: number } = {}): ServerGate {
  const waitHistogram = new WaitHistogram();
  return { waitHistogram, stats: () => ({ ...ZERO, ...stats, queueWait: waitHistogram.snapshot() }) } as never;
}

describe('queue-wait histogram', () => {
  it('puts a 20 ms and a 300 ms wait in different buckets, whose bounds are in seconds', async () => {
    const { provider, collect } = sdkMetrics();
    const gate = stubGate();
    instrumentServer(gate, provider.getMeter('seawall'), 'member-api');
    gate.waitHistogram.record(20);
    gate.waitHistogram.record(300);
    const points = (await collect()).points(SERVER_METRICS.pendingTime);
    expect(points).toHaveLength(1);
    const { buckets, count, sum } = (points[0] as DataPoint<Histogram>).value;
    expect(count).toBe(2);
    expect(sum).toBeCloseTo(0.32, 6);
    expect(buckets.boundaries).toEqual(WAIT_BUCKETS_MS.map((ms) => ms / 1000));
    const filled = buckets.counts.flatMap((n, i) => (n > 0 ? [i] : []));
    expect(filled).toHaveLength(2); // one bucket each
    expect(buckets.boundaries[filled[0] as number]).toBe(0.02); // 20 ms: le 0.02 s
    expect(buckets.boundaries[filled[1] as number]).toBe(0.5); // 300 ms: le 0.5 s
  });
});

describe('queue-wait snapshot', () => {
  it("is what the server's queue-wait snapshot reads: the same counts at its bucket bounds", () => {
    const waits = new WaitHistogram();
    const one = new LatencyHistogram();
    for (const v of [0, 1, 2.5, 20, 20, 300, 4999, 5000, 10_001]) {
      waits.record(v, 0);
      one.record(v);
    }
    const snapshot = waits.snapshot();
    expect(snapshot).toMatchObject({ count: one.count, sumMs: one.sumMs, maxMs: one.maxMs });
    for (const b of snapshot.buckets) expect(b.count).toBe(one.countAtMost(b.leMs));
    expect(snapshot.buckets.find((b) => b.leMs === 20)?.count).toBe(5);
    expect(snapshot.buckets.find((b) => b.leMs === 5000)?.count).toBe(8);
    expect(snapshot.buckets.at(-1)).toEqual({ leMs: Infinity, count: 9 });
  });
});

describe('series of one name', () => {
  it('adds up two middlewares on one meter under the default name (4 + 5 requests export 9)', async () => {
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    const first = await serve((_req, res) => res.end(), { workers: 2, meter });
    const second = await serve((_req, res) => res.end(), { workers: 2, meter });
    for (let i = 0; i < 4; i++) await send(first.port);
    for (let i = 0; i < 5; i++) await send(second.port);
    await waitFor(() => first.stats().completed === 4 && second.stats().completed === 5);
    const collected = await collect();
    const name = { 'seawall.server.name': 'default' };
    expect(collected.points(SERVER_METRICS.total)).toHaveLength(1);
    expect(collected.value(SERVER_METRICS.total, name)).toBe(9);
    expect(collected.value(SERVER_METRICS.completed, name)).toBe(9);
    expect(collected.value(SERVER_METRICS.active, name)).toBe(0);
    const [waits] = collected.points(SERVER_METRICS.pendingTime);
    expect(waits?.value).toMatchObject({ count: 9 });
  });

  it('keeps middlewares of different names in different series', async () => {
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    instrumentServer(stubGate({ offered: 4, running: 1 }), meter, 'members');
    instrumentServer(stubGate({ offered: 5, running: 2 }), meter, 'orders');
    instrumentServer(stubGate({ offered: 6, running: 3 }), meter, 'orders');
    const collected = await collect();
    expect(collected.value(SERVER_METRICS.total, { 'seawall.server.name': 'members' })).toBe(4);
    expect(collected.value(SERVER_METRICS.total, { 'seawall.server.name': 'orders' })).toBe(11);
    expect(collected.value(SERVER_METRICS.active, { 'seawall.server.name': 'orders' })).toBe(5);
  });

  it('does not keep a discarded middleware alive; its counters keep what they exported, its gauges drop it', async () => {
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    const kept = stubGate({ offered: 1, running: 1 });
    instrumentServer(kept, meter, 'default');
    const discarded = (() => {
      const gate = stubGate({ offered: 2, running: 2 });
      instrumentServer(gate, meter, 'default');
      return new WeakRef(gate);
    })();
    let collected = await collect();
    expect(collected.value(SERVER_METRICS.total)).toBe(3);
    expect(collected.value(SERVER_METRICS.active)).toBe(3);
    await collectGarbage();
    expect(discarded.deref()).toBeUndefined();
    collected = await collect();
    expect(collected.value(SERVER_METRICS.total)).toBe(3);
    expect(collected.value(SERVER_METRICS.active)).toBe(1);
    expect(kept.stats().offered).toBe(1);
  });
});

describe('instrument names', () => {
  it('exports seawall.server.deadline_skew from stats().deadlineSkew', async () => {
    const { provider, collect } = sdkMetrics();
    instrumentServer(stubGate({ deadlineSkew: 7 }), provider.getMeter('seawall'), 'default');
    instrumentServer(stubGate(), provider.getMeter('seawall'), 'older'); // a gate without the field counts 0
    const collected = await collect();
    expect(collected.value(SERVER_METRICS.deadlineSkew, { 'seawall.server.name': 'default' })).toBe(7);
    expect(collected.value(SERVER_METRICS.deadlineSkew, { 'seawall.server.name': 'older' })).toBe(0);
  });

  it('ends no instrument name in _total (OTel semconv; the Prometheus exporter appends it to counters)', () => {
    const names = [...Object.values(SERVER_METRICS), ...COUNTERS.map(([name]) => name)];
    expect(names.filter((name) => name.endsWith('_total'))).toEqual([]);
    expect(names).toContain('seawall.server.rq');
    expect(names).toContain('seawall.upstream_rq');
    expect(names).toContain('seawall.rq');
  });
});
