// Simulator and real HTTP agree on hops: one 3-service chain, the same policies, the same attempt count at every hop.
// A -> B -> C with C answering every request with its own 503. Over HTTP each service is a node:http server with
// Seawall's middleware calling the next with Seawall's fetch; in the simulator the same chain is a scenario. Both
// take their hop rules from src/policy (hop.ts, ownership.ts, retry.ts): if one driver re-decided, the counts split.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, seawallHandler } from '../../src/http/index.js';
import type { RetryPolicyConfig } from '../../src/policy/retry/retry-config.js';
import { runVariant } from '../../src/sim/run.js';
import { parseScenario } from '../../src/sim/scenario/load.js';
import { startServer, type TestServer, within } from '../support/loopback.js';

/** The policy of every hop, in both drivers: 3 attempts, no wait, no budget (503 is in the default retryOn). */
const BASE: RetryPolicyConfig = { maxAttempts: 3, backoff: 'none', budget: false };
const REQUESTS = 8;

interface Mode {
  name: string;
  /** B runs without Seawall: a plain server with a hand-written loop of 3 attempts, no headers, no claims. */
  plainB?: boolean;
  /** A's and B's policies, and the client's / edge's oneLayer. */
  a: RetryPolicyConfig;
  b: RetryPolicyConfig;
  oneLayer: boolean;
  /** Attempts per user request the rules give, at B and at C (the figure both drivers must reach). */
  expected: { b: number; c: number };
}

const MODES: Mode[] = [
  { name: 'plain retries (oneLayer false)', a: {}, b: {}, oneLayer: false, expected: { b: 3, c: 9 } },
  { name: 'one layer (default)', a: {}, b: {}, oneLayer: true, expected: { b: 3, c: 3 } },
  {
    name: 'ownership',
    a: { ownership: true },
    b: { ownership: true },
    oneLayer: true,
    expected: { b: 1, c: 3 },
  },
  {
    name: 'ownership, B without retries (the at-least-once flag)',
    a: { ownership: true },
    b: { ownership: true, maxAttempts: 1 },
    oneLayer: true,
    expected: { b: 3, c: 3 },
  },
  {
    name: 'ownership, B without Seawall (its own loop of 3; A is the nearest Seawall caller)',
    a: { ownership: true },
    b: {},
    oneLayer: true,
    plainB: true,
    expected: { b: 3, c: 9 },
  },
];

const yamlPolicy = (config: RetryPolicyConfig, oneLayer: boolean): string =>
  JSON.stringify({ ...BASE, ...config, ...(oneLayer ? {} : { oneLayer: false }) });

/** Attempts per user request at B and C in the simulator (one request a second, each over in a few ms). */
function simulated(mode: Mode): { b: number; c: number } {
  const scenario = parseScenario(
    `
name: parity
duration: 20s
traffic: [{ to: a, rate: 1, patience: 10s }]
network: { latency: 1ms }
services:
  a: { calls: [b] }
  b: { calls: [c]${mode.plainB === true ? ', seawall: false' : ''} }
  c: { serviceTime: 1ms, errors: { rate: 1, status: 503 } }
calls:
  a -> b: ${yamlPolicy(mode.a, mode.oneLayer)}
  b -> c: ${yamlPolicy(mode.b, mode.oneLayer)}
`,
    'parity',
  );
  const summary = runVariant(scenario, 'default', 1).summary;
  return { b: summary.amplification.b?.total ?? Number.NaN, c: summary.amplification.c?.total ?? Number.NaN };
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(handler: (req: never, res: ServerResponse) => unknown): Promise<TestServer> {
  const protectedHandler = seawallHandler(handler as never, { workers: 64, meter: false, onError: () => {} });
  const server = await startServer((req, res) => protectedHandler(req, res));
  servers.push(server);
  return server;
}

/** A Seawall hop relaying what its call to `down` answered. */
function relay(down: TestServer, config: RetryPolicyConfig, oneLayer: boolean): Promise<TestServer> {
  const fetch = createFetch({ policy: { ...BASE, ...config }, oneLayer, telemetry: false });
  return serve(async (_req, res) => {
    const response = await fetch(`${down.origin}/`);
    await response.arrayBuffer();
    res.writeHead(response.status).end();
  });
}

/** A service without Seawall: no middleware, and a retry loop of its own (3 attempts) with the platform's fetch. */
async function plainRelay(down: TestServer): Promise<TestServer> {
  const server = await startServer(async (_req, res) => {
    let status = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const response = await globalThis.fetch(`${down.origin}/`);
      await response.arrayBuffer();
      status = response.status;
      if (status < 500) break;
    }
    res.writeHead(status).end(); // no claim headers: it does not speak Seawall
  });
  servers.push(server);
  return server;
}

/** Attempts per user request at B and C over real HTTP on loopback. */
async function overHttp(mode: Mode): Promise<{ b: number; c: number }> {
  const c = await serve((_req, res) => res.writeHead(503).end()); // its own error: the middleware claims it
  const b = mode.plainB === true ? await plainRelay(c) : await relay(c, mode.b, mode.oneLayer);
  const a = await relay(b, mode.a, mode.oneLayer);
  for (let i = 0; i < REQUESTS; i++) {
    // The user: plain fetch, no Seawall headers, so A is the outermost Seawall hop (as a traffic source in the sim).
    const response = await within(globalThis.fetch(`${a.origin}/`), 5000, 'A to answer');
    await response.arrayBuffer();
    expect(response.status).toBe(503);
  }
  return { b: b.hits.length / REQUESTS, c: c.hits.length / REQUESTS };
}

describe.each(MODES)('the same chain in the simulator and over HTTP: $name', (mode) => {
  it(`both give ${mode.expected.b} attempts per request at B and ${mode.expected.c} at C`, async () => {
    const sim = simulated(mode);
    const http = await overHttp(mode);
    expect(http).toEqual(mode.expected);
    expect(sim).toEqual(mode.expected);
  });
});
