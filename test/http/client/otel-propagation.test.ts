// Trace context across hops with the real SDK and a global W3C propagator: traceparent out, the caller's trace in.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFetch, loadOpenTelemetry, seawallHandler } from '../../../src/http/index.js';
import { runInCallerTrace } from '../../../src/http/server/telemetry.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { listenLoopback, startServer } from '../../support/loopback.js';
import { sdkMetrics, sdkTracing } from '../otel-sdk.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

let closers: Array<() => Promise<void>> = [];
beforeEach(() => {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterEach(async () => {
  trace.disable();
  propagation.disable();
  context.disable();
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

describe('outbound: traceparent', () => {
  it('is sent with an explicit tracer and meter once the API has loaded', async () => {
    // First in this file, so the fetch is made before the API has loaded in this process.
    const tracing = sdkTracing();
    const telemetry = { tracer: tracing.provider.getTracer('seawall'), meter: sdkMetrics().provider.getMeter('x') };
    const fetch = createFetch({ policy: new RetryPolicy({ budget: false }), telemetry });
    const upstream = await startServer((_req, res) => res.end());
    closers.push(upstream.close);
    expect(await loadOpenTelemetry()).toBe(true);
    await (await fetch(upstream.origin)).arrayBuffer();
    const [span] = tracing.exporter.getFinishedSpans();
    const { traceId, spanId } = span?.spanContext() ?? {};
    expect(upstream.hits[0]?.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });
});

describe('inbound: runInCallerTrace', () => {
  it('makes the caller span of a node-style header record current for the handler', async () => {
    await loadOpenTelemetry();
    const seen = runInCallerTrace({ traceparent: TRACEPARENT }, () => trace.getSpanContext(context.active()));
    expect(seen).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, isRemote: true });
  });

  it('reads Fetch Headers too (Hono, Fetch-style frameworks)', async () => {
    await loadOpenTelemetry();
    const seen = runInCallerTrace(new Headers({ TraceParent: TRACEPARENT }), () =>
      trace.getSpanContext(context.active()),
    );
    expect(seen).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, isRemote: true });
  });

  it('leaves the context alone when the request carries no trace context, and returns what the handler returns', async () => {
    await loadOpenTelemetry();
    const before = context.active();
    expect(runInCallerTrace({ accept: '*/*' }, () => context.active() === before)).toBe(true);
    expect(runInCallerTrace({ traceparent: 'garbage' }, () => trace.getSpan(context.active()))).toBeUndefined();
  });

  it('keeps a span that is already active (an HTTP server instrumentation continued the trace itself)', async () => {
    await loadOpenTelemetry();
    const local = sdkTracing().provider.getTracer('server').startSpan('GET /');
    const seen = context.with(trace.setSpan(context.active(), local), () =>
      runInCallerTrace({ traceparent: TRACEPARENT }, () => trace.getSpan(context.active())),
    );
    expect(seen).toBe(local);
    local.end();
  });

  it('continues the caller trace through a handler that calls the next hop (three real servers)', async () => {
    const tracing = sdkTracing();
    trace.setGlobalTracerProvider(tracing.provider);
    await loadOpenTelemetry();
    const backend = await startServer((_req, res) => res.end('data'));
    closers.push(backend.close);
    const toBackend = createFetch({ policy: new RetryPolicy({ budget: false }) });
    const handler = async (_req: IncomingMessage, res: ServerResponse) => {
      res.end(await (await toBackend(backend.origin)).text());
    };
    const middle = createServer((req, res) => runInCallerTrace(req.headers, () => handler(req, res)));
    const loopback = await listenLoopback(middle);
    closers.push(loopback.close);
    const caller = createFetch({ policy: new RetryPolicy({ budget: false }) });
    const reply = await caller(`${loopback.origin}/`);
    expect(await reply.text()).toBe('data');
    const spans = tracing.exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    const outer = spans.find((span) => span.parentSpanContext === undefined);
    const inner = spans.find((span) => span !== outer);
    expect(inner?.spanContext().traceId).toBe(outer?.spanContext().traceId);
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
    expect(backend.hits[0]?.headers.traceparent).toBe(
      `00-${outer?.spanContext().traceId}-${inner?.spanContext().spanId}-01`,
    );
  });
});

describe('inbound through the middleware: the caller trace is continued for trusted callers only', () => {
  async function serveWith(trustDeadline: boolean) {
    const seen: Array<string | undefined> = [];
    const server = createServer(
      seawallHandler(
        (_req, res) => {
          seen.push(trace.getSpanContext(context.active())?.traceId);
          res.end('ok');
        },
        { meter: false, trustDeadline },
      ),
    );
    const loopback = await listenLoopback(server);
    closers.push(loopback.close);
    return { port: loopback.port, seen };
  }

  async function get(port: number): Promise<void> {
    await (await fetch(`http://127.0.0.1:${port}/`, { headers: { traceparent: TRACEPARENT } })).text();
  }

  it("runs seawallHandler's handler in the trusted caller's trace", async () => {
    await loadOpenTelemetry();
    const { port, seen } = await serveWith(true);
    await get(port);
    expect(seen).toEqual([TRACE_ID]);
  });

  // With trustDeadline: false (a public edge) a stranger must not pick the trace: it would set sampling and ids.
  it('ignores the trace context of a caller trustDeadline does not trust', async () => {
    await loadOpenTelemetry();
    const { port, seen } = await serveWith(false);
    await get(port);
    expect(seen).toEqual([undefined]);
  });
});
