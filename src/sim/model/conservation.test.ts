// Conservation: every attempt ends in exactly one report to each guard that let it through, and the counters add up.

import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/load.js';
import { EV_GIVE_UP } from './events.js';
import type { EdgeRuntime, UserRequest } from './records.js';
import { World } from './world.js';

// Two layers, every guard on both, cancellation on (timeouts, give-ups and failed siblings abort attempts), one sick
// db instance and a slow spell: attempts end by answers, per-try timeouts, aborts and local refusals alike.
const GUARDS = `maxAttempts: 3, budget: false, deadline: false, retryOn: [timeout, 5xx],
    circuitBreaker: { failureThreshold: 8, breakDuration: 500ms, halfOpenMaxProbes: 2 },
    limits: { maxRequests: 8, maxRetries: 4 },
    outlierDetection: { consecutive5xx: 3, interval: 1s, baseEjectionTime: 2s, maxEjectionPercent: 100 },
    loadBalancer: { kind: p2c, panicThreshold: 0 }`;
const YAML = `
name: conservation
duration: 20s
windows: { all: [0s, 20s] }
traffic: [{ to: api, rate: 150, patience: 600ms }]
network: { latency: { dist: exponential, mean: 2ms } }
cancellation: true
services:
  api: { instances: 2, calls: [mid] }
  mid: { instances: 2, workers: 20, serviceTime: 5ms, calls: [db] }
  db: { instances: 3, workers: 3, serviceTime: { dist: exponential, mean: 15ms }, queueLimit: 10 }
calls:
  api -> mid: { perTryTimeout: 250ms, ${GUARDS} }
  mid -> db: { perTryTimeout: 120ms, oneLayer: false, ${GUARDS} }
faults:
  - { service: db, instances: [0], at: 2s, for: 12s, errors: { rate: 1, status: 503 } }
  - { service: db, at: 6s, for: 4s, latency: 150ms }
  - { service: db, at: 12s, for: 3s, errors: { rate: 0.7, status: 500 } }
  # A slow end, so that some users are surely still waiting when the run ends (whatever the draws).
  - { service: db, at: 19.5s, for: 0.5s, latency: 300ms }
`;

function edgesOf(world: World): EdgeRuntime[] {
  return world.services.flatMap((s) => s.instances.flatMap((i) => i.edges));
}

describe('conservation with every guard on', () => {
  const model = parseScenario(YAML, 'conservation.yaml').variants[0]?.model;
  if (model === undefined) throw new Error('no model');
  const world = new World({
    model,
    durationMs: 20_000,
    windows: [{ name: 'all', startMs: 0, endMs: 20_000 }],
    seed: 3,
  });
  world.run();
  const edges = edgesOf(world);
  // Users still waiting when the run ends each have their give-up pending (every source has a patience): count them
  // by draining what is left of the event queue without handling it.
  const waiting = new Set<UserRequest>();
  world.engine.run(Number.POSITIVE_INFINITY, {
    handle(type, payload) {
      if (type === EV_GIVE_UP && !(payload as UserRequest).ended) waiting.add(payload as UserRequest);
    },
  });

  it('drives every path: answers, timeouts, aborts, refusals by each guard, retries, ejections', () => {
    const sum = (f: (e: EdgeRuntime) => number) => edges.reduce((n, e) => n + f(e), 0);
    expect(sum((e) => e.guards.breaker?.stats().rejectedOpen ?? 0)).toBeGreaterThan(0);
    // Cancels beyond the refusals' are attempts out when their call was aborted.
    const refusals = sum((e) => (e.guards.limits?.stats().pendingOverflow ?? 0) + e.guards.balancer.stats().noEndpoint);
    expect(sum((e) => e.guards.breaker?.stats().cancelled ?? 0)).toBeGreaterThan(refusals);
    expect(sum((e) => e.guards.limits?.stats().pendingOverflow ?? 0)).toBeGreaterThan(0);
    expect(sum((e) => e.guards.limits?.stats().retryOverflow ?? 0)).toBeGreaterThan(0);
    expect(sum((e) => e.guards.detector?.stats().ejectionsEnforcedTotal ?? 0)).toBeGreaterThan(0);
    expect(sum((e) => e.guards.balancer.stats().noEndpoint)).toBeGreaterThan(0);
    expect(sum((e) => e.guards.balancer.stats().avoidedPrevious)).toBeGreaterThan(0);
    expect(sum((e) => e.policy.stats().perTryTimeouts)).toBeGreaterThan(0);
    expect(sum((e) => e.policy.stats().stops.aborted)).toBeGreaterThan(0);
    expect(sum((e) => e.retriesSent)).toBeGreaterThan(0);
  });

  it.each([0, 1, 2, 3])('edge runtime %i: every guard saw each attempt once, and the counts agree', (k) => {
    const edge = edgesOf(world)[k] as EdgeRuntime;
    const breaker = edge.guards.breaker?.stats();
    const limits = edge.guards.limits?.stats();
    const lb = edge.guards.balancer.stats();
    const retry = edge.policy.stats();
    if (breaker === undefined || limits === undefined) throw new Error('guards missing');
    // No permit was reported or released twice.
    expect(breaker.duplicateReports).toBe(0);
    expect(limits.doubleReleases).toBe(0);
    // The breaker's own invariants.
    expect(breaker.offered).toBe(breaker.calls + breaker.probes + breaker.rejected);
    expect(breaker.calls + breaker.probes).toBe(
      breaker.successes + breaker.failures + breaker.cancelled + breaker.inFlight,
    );
    // Attempts still out at the end: the breaker, the limits and the balancer count the same ones.
    const out = edge.guards.balancer.endpoints.reduce((n, _, i) => n + edge.guards.balancer.load(i), 0);
    expect(breaker.inFlight).toBe(out);
    expect(limits.activeRequests).toBe(out);
    // Every begun attempt (RetryCall) asked the breaker; a retry refused by max_retries is never begun (refuseRetry).
    expect(retry.attempts).toBe(breaker.offered);
    // Asked the breaker = sent + refused by the breaker, by max_requests, or for want of a host.
    expect(breaker.offered).toBe(edge.sent + breaker.rejected + limits.pendingOverflow + lb.noEndpoint);
    expect(limits.requestsTotal).toBe(edge.sent);
    // The balancer picks before the limits are asked (Envoy's order): an overflow happens after a pick.
    expect(lb.picks).toBe(edge.sent + limits.pendingOverflow);
    // Retries sent hold a retry unit each; units still held belong to retries in backoff or out.
    expect(limits.retriesTotal).toBeGreaterThanOrEqual(edge.retriesSent);
    expect(limits.activeRetries).toBeLessThanOrEqual(retry.active);
    // Every call ends in exactly one stop reason.
    const stopped = Object.values(retry.stops).reduce((a, b) => a + b, 0);
    expect(retry.calls).toBe(retry.active + stopped);
  });

  it('ends every user request exactly once, by an answer or a give-up', () => {
    const m = world.metrics;
    // Every user ended once (answered or gave up), or is one of those still waiting: none lost, none ended twice.
    expect(m.usersEnded + waiting.size).toBe(m.usersTotal);
    // Only users who arrived in the last patience may still be waiting.
    expect(waiting.size).toBeGreaterThan(0);
    for (const user of waiting) expect(user.arrivalMs).toBeGreaterThanOrEqual(20_000 - 600);
  });
});
