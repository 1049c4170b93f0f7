// The PromQL in docs/client.md and docs/server.md against what the real @opentelemetry/exporter-prometheus serves.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { listenLoopback, startServer, type TestServer } from '../../support/loopback.js';
import { closeAll, send, serve, waitFor } from './server-helpers.js';

let upstream: TestServer | undefined;
afterEach(async () => {
  await closeAll();
  await upstream?.close();
  upstream = undefined;
});

/** The fenced code blocks of the section of `file` whose heading is `heading`. */
function promqlIn(file: string, heading: string): string[] {
  const text = readFileSync(new URL(`../../../docs/${file}`, import.meta.url), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/${file} has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```promql\n([\s\S]*?)```/g)].map((match) => (match[1] as string).trim());
}

/** Metric names a PromQL expression selects (the first argument of each rate()). */
function metricNames(expression: string): string[] {
  return [...expression.matchAll(/rate\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/g)].map((match) => match[1] as string);
}

/** A MeterProvider whose reader is the real Prometheus exporter, scraped over 127.0.0.1 as Prometheus would. */
async function prometheus() {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const endpoint = createServer((req, res) => exporter.getMetricsRequestHandler(req, res));
  const loopback = await listenLoopback(endpoint);
  const scrape = async () => {
    const response = await fetch(`${loopback.origin}/metrics`);
    return parseExposition(await response.text());
  };
  const close = async () => {
    await loopback.close();
    await provider.shutdown();
  };
  return { meter: provider.getMeter('seawall'), scrape, close };
}

/** Sample name -> sum of its samples over every label set (what `sum(...)` of one scrape is). */
function parseExposition(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const name = match[1] as string;
    sums.set(name, (sums.get(name) ?? 0) + Number(match[2]));
  }
  return sums;
}

describe('the documented alerts name what the Prometheus exporter emits', () => {
  it('docs/client.md: the retry-ratio alert selects exported series, and fires at 1 retry in 11 attempts', async () => {
    const [alert, ...others] = promqlIn('client.md', 'Telemetry');
    expect(others).toEqual([]);
    const [retries, attempts] = metricNames(alert as string);
    expect([retries, attempts]).toEqual([expect.any(String), expect.any(String)]);
    const threshold = Number(/>\s*([0-9.]+)\s*$/.exec(alert as string)?.[1]);
    expect(threshold).toBe(0.05);

    const exporter = await prometheus();
    try {
      // Ten calls; the first one's first attempt gets a 503 and is retried: 1 retry, 11 attempts.
      upstream = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end());
      const policy = new RetryPolicy({ backoff: 'none', budget: false });
      const fetch = createFetch({ policy, telemetry: { meter: exporter.meter } });
      for (let i = 0; i < 10; i++) await (await fetch(upstream.origin)).arrayBuffer();
      const samples = await exporter.scrape();
      expect(samples.has(retries as string), `${retries} in ${[...samples.keys()]}`).toBe(true);
      expect(samples.has(attempts as string), `${attempts} in ${[...samples.keys()]}`).toBe(true);
      // Over a window that starts before the calls, rate(a) / rate(b) is the ratio of the counters' increases.
      const ratio = (samples.get(retries as string) as number) / (samples.get(attempts as string) as number);
      expect(ratio).toBeCloseTo(1 / 11, 10);
      expect(ratio).toBe(policy.stats().retries / policy.stats().attempts);
      expect(ratio > threshold).toBe(true);
    } finally {
      await exporter.close();
    }
  });

  it('docs/server.md: the shedding alerts select exported series', async () => {
    const alerts = promqlIn('server.md', 'Stats and OpenTelemetry');
    const names = alerts.flatMap(metricNames);
    expect(names.length).toBeGreaterThanOrEqual(3);
    const exporter = await prometheus();
    try {
      const server = await serve((_req, res) => res.end(), { workers: 1, meter: exporter.meter });
      await send(server.port);
      await waitFor(() => server.stats().completed === 1);
      const samples = await exporter.scrape();
      for (const name of names) expect(samples.has(name), `${name} in ${[...samples.keys()]}`).toBe(true);
    } finally {
      await exporter.close();
    }
  });
});
