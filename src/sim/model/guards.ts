// The simulator's thin driver of the guard pipeline (policy/upstream): builds an edge's guards, admits attempts, wakes sweeps.

import type { Random } from '../../policy/core/random.js';
import { Balancer, DEFAULT_PANIC_THRESHOLD } from '../../policy/upstream/balancer.js';
import { CircuitBreaker } from '../../policy/upstream/breaker.js';
import { ConcurrencyBreaker } from '../../policy/upstream/concurrency.js';
import { OutlierDetector } from '../../policy/upstream/outlier.js';
import { GuardPipeline, type GuardTime } from '../../policy/upstream/pipeline.js';
import { AdaptiveThrottle } from '../../policy/upstream/throttle.js';
import type { Metrics } from '../metrics/collector.js';
import type { EdgeSpec } from '../scenario/types.js';
import type { Call, EdgeGuards, EdgeRuntime, Instance, ServiceRuntime } from './records.js';

/**
 * The status a caller answers with when a local guard refused its call's attempt (an open breaker, a limit's
 * overflow, no endpoint to pick): Envoy's local 503 for circuit-breaker overflow and "no healthy upstream".
 */
export const LOCAL_REFUSAL_STATUS = 503;

/**
 * The guards of one caller instance's edge. Endpoints are the callee's instance indices as strings, listed from the
 * caller's own round-robin offset (caller instance k starts at callee instance k mod n, as the simulator always has),
 * so round-robin without ejections cycles exactly as before. Each policy draws from its own stream, forked by name:
 * a round-robin edge without a detector draws nothing new.
 */
export function buildGuards(
  spec: EdgeSpec | undefined,
  callee: ServiceRuntime,
  callerIndex: number,
  windowCount: number,
  fork: (name: string) => Random,
): EdgeGuards {
  const n = callee.instances.length;
  const offset = callerIndex % n;
  const targets = callee.instances.map((_, i) => callee.instances[(offset + i) % n] as Instance);
  const endpoints = targets.map((t) => String(t.index));
  const od = spec?.outlierDetection ?? null;
  const detector = od === null ? null : new OutlierDetector(od);
  // The detector's denominator for maxEjectionPercent is the pool it knows: declare it (Envoy knows its membership).
  detector?.addHosts(endpoints, 0);
  const lb = spec?.loadBalancer ?? { kind: 'round-robin', panicThreshold: DEFAULT_PANIC_THRESHOLD };
  const balancer = new Balancer(endpoints, lb, detector);
  const breaker = spec?.circuitBreaker == null ? null : new CircuitBreaker(spec.circuitBreaker);
  const limits = spec?.limits == null ? null : new ConcurrencyBreaker(spec.limits);
  const pickDraws = lb.kind === 'p2c' ? fork('lb') : null;
  const outlierDraws = detector === null ? null : fork('outlier');
  // @ko sim-throttle-built
  const throttle = spec?.throttle === undefined ? null : new AdaptiveThrottle(spec.throttle);
  const throttleDraws = throttle === null ? null : fork('throttle');
  const parts = { breaker, limits, balancer, outlier: detector, pickDraws, outlierDraws, throttle, throttleDraws };
  const pipeline = new GuardPipeline(parts);
  return {
    pipeline,
    balancer,
    targets,
    breaker,
    limits,
    detector,
    throttle,
    // With a choice to make, the run summary reports the balancer's block, with the attempts each instance got.
    sentByHostWindow: pipeline.choice ? new Float64Array(n * (windowCount + 1)) : null,
  };
}

/**
 * Admits the call's next attempt (RetryCall.beginAttempt already granted it) through the edge's guard pipeline
 * (policy/upstream/pipeline.ts: breaker, endpoint pick, limits). Returns the callee instance, or null when a guard
 * refused it (it then holds nothing). What is counted here is the simulator's own: attempts by host and window.
 */
export function admitAttempt(call: Call, clock: GuardTime, metrics: Metrics): Instance | null {
  const g = call.edge.guards;
  if (!g.pipeline.admit(call, clock, call.retry.attempts, null)) return null;
  const target = g.targets[call.endpoint] as Instance;
  const byHost = g.sentByHostWindow;
  if (byHost !== null) countByWindow(byHost, target.index, g.targets.length, metrics.windowMaskAt(clock.nowMs));
  return target;
}

/** One more attempt to callee instance `instance`: in its total and in each window of `windowMask`. */
function countByWindow(byHost: Float64Array, instance: number, hosts: number, windowMask: number): void {
  const stride = byHost.length / hosts;
  const base = instance * stride;
  byHost[base + stride - 1] = (byHost[base + stride - 1] as number) + 1;
  let mask = windowMask;
  for (let w = base; mask !== 0; w++, mask >>>= 1) {
    if ((mask & 1) !== 0) byHost[w] = (byHost[w] as number) + 1;
  }
}

/** Runs what the edge's pipeline has due now (the outlier sweep) and answers when it next needs waking. */
export function wakeEdge(edge: EdgeRuntime, nowMs: number): number {
  const pipeline = edge.guards.pipeline;
  pipeline.wake(nowMs);
  return pipeline.nextWakeAt(nowMs);
}
