// Simulator and real HTTP agree on the upstream guards: the same outcomes give the same picks, refusals, ejections and stats.
// api -> db over three db endpoints. Over HTTP: Seawall's fetch with `endpoints` on three node:http servers on 127.0.0.1,
// calls made one after another; in the simulator: the same edge as a scenario, calls far enough apart never to overlap.
// Each attempt's answer depends only on the endpoint it went to, so if both drivers run the one guard pipeline
// (src/policy/upstream/pipeline.ts) in one order, every pick, refusal and counter is the same.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createFetch, SeawallError } from '../../src/http/index.js';
import { RetryPolicy } from '../../src/policy/retry/retry.js';
import type { BalancerStats } from '../../src/policy/upstream/balancer.js';
import type { BreakerStats } from '../../src/policy/upstream/breaker.js';
import type { ConcurrencyStats } from '../../src/policy/upstream/concurrency.js';
import type { UpstreamRefusal } from '../../src/policy/upstream/hold.js';
import type { OutlierStats } from '../../src/policy/upstream/outlier.js';
import { World } from '../../src/sim/model/world.js';
import { parseScenario } from '../../src/sim/scenario/load.js';
import { serversClosedAfterEach } from '../http/client/upstream-helpers.js';

const start = serversClosedAfterEach();

/** What both drivers must agree on. */
interface Observed {
  calls: number;
  /** The endpoint index of every attempt sent, in order. */
  picks: number[];
  attempts: number;
  retries: number;
  refused: Record<UpstreamRefusal, number>;
  balancer: BalancerStats;
  breaker: BreakerStats | null;
  limits: ConcurrencyStats | null;
  outlier: OutlierStats | null;
}

interface Case {
  name: string;
  /** Endpoints that answer 503 (the others 200). */
  sick: number[];
  /** The edge's guards in the scenario's YAML and as the client's options: the same values. */
  guards: {
    circuitBreaker?: Record<string, unknown>;
    limits?: Record<string, unknown>;
    outlierDetection?: Record<string, unknown>;
  };
  check(o: Observed): void;
}

// Nothing in either run depends on the passing of time: no sweep is due (1 h interval), no ejection or break ends.
const CASES: Case[] = [
  {
    name: 'one sick endpoint: retries go elsewhere, it is ejected after two 503s, the others share the rest',
    sick: [1],
    guards: {
      circuitBreaker: { failureThreshold: 5, failureRate: false, breakDuration: '1h' },
      limits: { maxRequests: 10, maxRetries: 2 },
      outlierDetection: { consecutive5xx: 2, interval: '1h', baseEjectionTime: '1h', maxEjectionPercent: 100 },
    },
    check(o) {
      expect(o.outlier?.ejectionsEnforcedTotal).toBe(1);
      // The first 503's retry avoids the sick one; the second ejects it, so its retry's pick has nothing to avoid.
      expect(o.balancer.avoidedPrevious).toBe(1);
      expect(o.picks.filter((p) => p === 1)).toHaveLength(2);
      expect(o.breaker?.opened).toBe(0);
    },
  },
  {
    name: 'an open breaker: refused attempts never ask the balancer (no pick, the round-robin cursor stays)',
    sick: [0, 1, 2],
    guards: {
      circuitBreaker: { failureThreshold: 3, failureRate: false, breakDuration: '1h' },
      limits: { maxRequests: 10 },
    },
    check(o) {
      expect(o.picks).toEqual([0, 1, 2]); // the first call's 3 attempts open the breaker
      expect(o.balancer.picks).toBe(3);
      expect(o.refused['breaker-open']).toBe(o.calls - 1); // every later call refused at its first attempt
      expect(o.breaker?.rejectedOpen).toBe(o.calls - 1);
      expect(o.limits?.requestsTotal).toBe(3);
    },
  },
];

const POLICY = { maxAttempts: 3, backoff: 'none', budget: false, retryOn: [503] } as const;

/** The simulator: calls at 0.5/s for 60 s, each over in a few ms; the seed's arrivals never overlap. */
function simulated(c: Case): Observed {
  const edge = JSON.stringify({ ...POLICY, deadline: false, perTryTimeout: '1s', ...c.guards });
  const yaml = `
name: guards-parity
duration: 60s
traffic: [{ to: api, rate: 0.5, patience: 10s }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { instances: 3, serviceTime: 1ms }
calls:
  api -> db: ${edge}
faults:
  - { service: db, instances: ${JSON.stringify(c.sick)}, at: 0s, for: 1h, errors: { rate: 1, status: 503 } }
`;
  const model = parseScenario(yaml, 'guards-parity.yaml').variants[0]?.model;
  if (model === undefined) throw new Error('no model');
  const world = new World({
    model,
    durationMs: 60_000,
    windows: [{ name: 'all', startMs: 0, endMs: 60_000 }],
    seed: 1,
  });
  const e = world.services[0]?.instances[0]?.edges[0];
  if (e === undefined) throw new Error('no edge');
  const g = e.guards;
  const picks: number[] = [];
  const started = g.balancer.started.bind(g.balancer);
  g.balancer.started = (index: number) => {
    picks.push(index);
    started(index);
  };
  world.run();
  const policy = e.policy.stats();
  expect(policy.active).toBe(0);
  return {
    calls: policy.calls,
    picks,
    attempts: e.sent,
    retries: e.retriesSent,
    refused: { ...g.pipeline.refused },
    balancer: g.balancer.stats(),
    breaker: g.breaker?.stats() ?? null,
    limits: g.limits?.stats() ?? null,
    outlier: g.detector?.stats() ?? null,
  };
}

/** Real HTTP: `calls` calls one after another through Seawall's fetch onto three loopback servers. */
async function overHttp(c: Case, calls: number): Promise<Observed> {
  const picks: number[] = [];
  const responder = (i: number) => (_req: unknown, res: ServerResponse) => {
    picks.push(i);
    if (c.sick.includes(i)) res.writeHead(503).end('down');
    else res.end('ok');
  };
  const servers = await start(responder(0), responder(1), responder(2));
  const fetch = createFetch({
    policy: new RetryPolicy({ ...POLICY, retryOn: [...POLICY.retryOn] }),
    endpoints: servers.map((s) => s.origin),
    loadBalancer: 'round-robin',
    seed: 1,
    ...c.guards,
  });
  for (let i = 0; i < calls; i++) {
    try {
      await (await fetch('http://db.invalid/x')).text();
    } catch (error) {
      expect(error).toBeInstanceOf(SeawallError); // a refusal by a guard
    }
  }
  const stats = fetch.stats();
  const u = stats.upstreams[0];
  if (u === undefined) throw new Error('no upstream');
  return {
    calls: stats.policy.calls,
    picks,
    attempts: u.attempts,
    retries: u.retries,
    refused: u.refused,
    balancer: u.loadBalancer as BalancerStats,
    breaker: u.circuitBreaker,
    limits: u.limits,
    outlier: u.outlierDetection,
  };
}

describe('the guard pipeline: simulator and HTTP agree', () => {
  it.each(CASES)('$name', async (c) => {
    const sim = simulated(c);
    expect(sim.calls).toBeGreaterThan(10);
    const http = await overHttp(c, sim.calls);
    expect(http).toEqual(sim);
    c.check(sim);
  });
});
