// Telemetry on real HTTP: a span per attempt with resend_count, the duration histogram, Envoy-named counters; no OTel needed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COUNTERS as TELEMETRY_COUNTERS } from '../../../src/driver/telemetry.js';
import { createFetch, loadOpenTelemetry, type MeterLike, type TracerLike } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { startServer, type TestServer, within } from '../../support/loopback.js';

type Attributes = Record<string, string | number | boolean>;

/** An in-memory tracer and meter implementing the parts of the OpenTelemetry API Seawall calls. */
function recorder() {
  const spans: Array<{ name: string; kind?: number; attributes: Attributes; status?: number; ended: boolean }> = [];
  const records: Array<{ name: string; value: number; attributes: Attributes }> = [];
  const callbacks = new Map<string, (result: { observe(v: number, a?: Attributes): void }) => void>();
  const tracer: TracerLike = {
    startSpan(name, options) {
      const span = {
        name,
        kind: options?.kind,
        attributes: { ...options?.attributes },
        ended: false,
      } as (typeof spans)[0];
      spans.push(span);
      return {
        setAttribute: (key, value) => (span.attributes[key] = value),
        setStatus: (status) => (span.status = status.code),
        end: () => (span.ended = true),
      };
    },
  };
  const meter: MeterLike = {
    createHistogram: (name) => ({ record: (value, attributes = {}) => records.push({ name, value, attributes }) }),
    createObservableCounter: (name) => ({ addCallback: (callback) => callbacks.set(name, callback) }),
  };
  const observe = (name: string) => {
    let seen = Number.NaN;
    callbacks.get(name)?.({ observe: (value) => (seen = value) });
    return seen;
  };
  return { tracer, meter, spans, records, observe };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('telemetry', () => {
  it('makes one client span per attempt, with http.request.resend_count from the second on', async () => {
    server = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end());
    const { tracer, meter, spans } = recorder();
    const policy = new RetryPolicy({ backoff: 'none', budget: false });
    await createFetch({ policy, telemetry: { tracer, meter } })(`${server.origin}/x`);
    expect(spans).toHaveLength(2);
    expect(spans.every((s) => s.ended && s.kind === 2 && s.name === 'GET')).toBe(true);
    expect(spans[0]?.attributes).not.toHaveProperty('http.request.resend_count');
    expect(spans[1]?.attributes['http.request.resend_count']).toBe(1);
    expect(spans[0]?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': server.port,
      'url.full': `${server.origin}/x`,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(spans[0]?.status).toBe(2);
    expect(spans[1]?.attributes['http.response.status_code']).toBe(200);
    expect(spans[1]?.status).toBeUndefined();
  });

  it('records http.client.request.duration in seconds for every attempt, timeouts included', async () => {
    server = await startServer((_req, res, _hit, n) => {
      if (n > 1) res.end(); // the first attempt hangs past its per-try timeout
    });
    const { tracer, meter, records } = recorder();
    // 300 ms, not 50: the answered second attempt must never time out too, even on a loaded machine (at 50 ms it did).
    const policy = new RetryPolicy({ backoff: 'none', budget: false, perTryTimeout: 300 });
    // ~310 ms; without the per-try timeout the first attempt would hang to the 15 s default deadline.
    await within(createFetch({ policy, telemetry: { tracer, meter } })(server.origin), 3000, 'the call to end');
    expect(records.map((r) => r.name)).toEqual(['http.client.request.duration', 'http.client.request.duration']);
    expect(records[0]?.attributes['error.type']).toBe('timeout');
    expect(records[0]?.value).toBeGreaterThanOrEqual(0.29); // seconds: 300 in ms would fail the next line
    expect(records[0]?.value).toBeLessThan(2);
    expect(records[1]?.attributes['http.response.status_code']).toBe(200);
  });

  it('exports the policy counters under Envoy names, read from policy.stats()', async () => {
    server = await startServer((_req, res) => res.writeHead(503).end());
    const { tracer, meter, observe } = recorder();
    const policy = new RetryPolicy({ backoff: 'none', budget: false, maxAttempts: 3 });
    await createFetch({ policy, telemetry: { tracer, meter } })(server.origin);
    expect(TELEMETRY_COUNTERS.map(([name]) => name)).toContain('seawall.upstream_rq_retry_overflow');
    expect(observe('seawall.upstream_rq')).toBe(3);
    expect(observe('seawall.upstream_rq_retry')).toBe(2);
    expect(observe('seawall.upstream_rq_retry_limit_exceeded')).toBe(1);
    expect(observe('seawall.rq')).toBe(1);
    expect(policy.stats()).toMatchObject({ calls: 1, attempts: 3, retries: 2, retryLimitExceeded: 1 });
  });

  it('loads the OpenTelemetry API when installed and uses the global providers once an SDK registers them', async () => {
    server = await startServer((_req, res) => res.end());
    expect(await loadOpenTelemetry()).toBe(true);
    const api = await import('@opentelemetry/api');
    const fetch = createFetch({ policy: new RetryPolicy() });
    expect((await fetch(server.origin)).status).toBe(200); // no SDK: the no-op providers, nothing recorded
    const { tracer, meter, spans, records } = recorder();
    api.trace.setGlobalTracerProvider({ getTracer: () => tracer as never });
    api.metrics.setGlobalMeterProvider({ getMeter: () => meter as never });
    try {
      const traced = createFetch({ policy: new RetryPolicy() });
      await traced(server.origin);
      expect(spans).toHaveLength(1);
      expect(records).toHaveLength(1);
    } finally {
      api.trace.disable();
      api.metrics.disable();
    }
  });

  it('works when @opentelemetry/api is not installed', async () => {
    vi.resetModules();
    vi.doMock('@opentelemetry/api', () => {
      throw new Error("Cannot find package '@opentelemetry/api'");
    });
    try {
      const http = await import('../../../src/http/index.js');
      const policy = await import('../../../src/policy/index.js');
      server = await startServer((_req, res) => res.end('ok'));
      expect(await http.loadOpenTelemetry()).toBe(false);
      const response = await http.createFetch({ policy: new policy.RetryPolicy() })(server.origin);
      expect(await response.text()).toBe('ok');
      const { runInCallerTrace } = await import('../../../src/http/server/telemetry.js');
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      expect(runInCallerTrace({ traceparent }, () => 'handled')).toBe('handled');
    } finally {
      vi.doUnmock('@opentelemetry/api');
      vi.resetModules();
    }
  });
});
