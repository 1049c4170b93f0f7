// An OpenTelemetry SDK registered globally after a middleware or fetch was made: both start exporting (real SDK).
import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, loadOpenTelemetry } from '../../../src/http/index.js';
import { SERVER_METRICS } from '../../../src/http/server/telemetry.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { sdkMetrics } from '../otel-sdk.js';
import { closeAll, send, serve, sleep } from '../server/server-helpers.js';

let upstream: TestServer | undefined;
afterEach(async () => {
  metrics.disable();
  await closeAll();
  await upstream?.close();
  upstream = undefined;
});

/** Both sides look at the global provider again at most once a second. */
const RECHECK_MS = 1100;

describe('an SDK registered after the middleware was made', () => {
  it('starts exporting the middleware metrics at a request after registration', async () => {
    const server = await serve((_req, res) => res.end(), { workers: 2, meter: undefined }); // the global meter
    await loadOpenTelemetry();
    await send(server.port);
    await send(server.port);
    const sdk = sdkMetrics();
    metrics.setGlobalMeterProvider(sdk.provider);
    expect((await sdk.collect()).points(SERVER_METRICS.total)).toEqual([]); // not yet looked at again
    await sleep(RECHECK_MS);
    await send(server.port);
    const collected = await sdk.collect();
    expect(collected.value(SERVER_METRICS.total, { 'seawall.server.name': 'default' })).toBe(3); // read from stats()
    const [waits] = collected.points(SERVER_METRICS.pendingTime);
    expect(waits?.value).toMatchObject({ count: 1 }); // recorded from registration on
  });

  it('exports at once, with no request, a middleware made after registration', async () => {
    const sdk = sdkMetrics();
    metrics.setGlobalMeterProvider(sdk.provider);
    await serve((_req, res) => res.end(), { workers: 2, meter: undefined, name: 'fresh' });
    await loadOpenTelemetry();
    await sleep(0);
    expect((await sdk.collect()).value(SERVER_METRICS.total, { 'seawall.server.name': 'fresh' })).toBe(0);
  });
});

describe('an SDK registered after the fetch was made', () => {
  it('starts exporting the policy counters at a call after registration', async () => {
    upstream = await startServer((_req, res) => res.end());
    const fetch = createFetch({ policy: new RetryPolicy({ budget: false }) });
    await loadOpenTelemetry();
    await (await fetch(upstream.origin)).arrayBuffer();
    const sdk = sdkMetrics();
    metrics.setGlobalMeterProvider(sdk.provider);
    await sleep(RECHECK_MS);
    await (await fetch(upstream.origin)).arrayBuffer();
    const collected = await sdk.collect();
    expect(collected.value('seawall.rq', { 'seawall.policy': 'default' })).toBe(2);
    expect(collected.points('http.client.request.duration')).toHaveLength(1);
  });
});
