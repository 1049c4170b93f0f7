// The guards between a call's retry loop and the wire: Balancer, CircuitBreaker, ConcurrencyBreaker, OutlierDetector.

import { Balancer, DEFAULT_PANIC_THRESHOLD, NO_ENDPOINT } from '../../policy/balancer.js';
import { breakerReportOf, CircuitBreaker } from '../../policy/breaker.js';
import { ConcurrencyBreaker } from '../../policy/concurrency.js';
import { OutlierDetector } from '../../policy/outlier.js';
import type { Random } from '../../policy/random.js';
import type { Outcome } from '../../policy/types.js';
import type { Metrics } from '../metrics/collector.js';
import type { EdgeSpec } from '../scenario/types.js';
import {
  type Call,
  type EdgeGuards,
  type EdgeRuntime,
  type Instance,
  Permits,
  type ServiceRuntime,
} from './records.js';

/**
 * The status a caller answers with when a local guard refused its call's attempt (an open breaker, a limit's
 * overflow, no endpoint to pick): Envoy's local 503 for circuit-breaker overflow and "no healthy upstream".
 */
export const LOCAL_REFUSAL_STATUS = 503;

/**
 * The simulator's clock (the engine), read only where a policy needs the time: a double passed to a call that is not
 * inlined is boxed, and the simulator makes millions of attempts.
 */
export interface Clock {
  readonly nowMs: number;
}

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
  // The balancer has a choice to make (several instances, or a detector that can eject the one there is): the run
  // summary then reports its block, with the attempts each instance got.
  const choice = n > 1 || detector !== null;
  return {
    balancer: new Balancer(endpoints, lb, detector),
    targets,
    lbRandom: lb.kind === 'p2c' ? fork('lb') : null,
    breaker: spec?.circuitBreaker == null ? null : new CircuitBreaker(spec.circuitBreaker),
    limits: spec?.limits == null ? null : new ConcurrencyBreaker(spec.limits),
    detector,
    detectorRandom: detector === null ? null : fork('outlier'),
    guarded: detector !== null || spec?.circuitBreaker != null || spec?.limits != null,
    choice,
    sentByHostWindow: choice ? new Float64Array(n * (windowCount + 1)) : null,
  };
}

/**
 * Admits the call's next attempt (RetryCall.beginAttempt already granted it) through the edge's guards, in Envoy's
 * order: the circuit breaker (the client's, outside Envoy), the balancer's pick ("no healthy upstream"), then the
 * limits of the cluster. Returns the callee instance, or null when a guard refused it; a refused attempt holds
 * nothing (the breaker's permit, if taken, is cancelled: it reached no upstream).
 */
export function admitAttempt(call: Call, clock: Clock, metrics: Metrics): Instance | null {
  const nowMs = clock.nowMs;
  const edge = call.edge;
  const g = edge.guards;
  const breaker = g.breaker;
  if (breaker !== null) {
    const verdict = breaker.tryAcquire(nowMs);
    if (!verdict.allowed) return null;
    permitsOf(call).breaker = verdict;
  }
  // The endpoint of the call's last attempt (-1 before the first): the balancer sends a retry elsewhere if it can.
  const previous = call.endpoint;
  const random = g.lbRandom;
  // One endpoint that nothing can eject leaves the balancer no choice (its pick is always 0): the call is skipped,
  // because passing the time to it costs the meltdown variants ~8 % CPU (a boxed double per attempt).
  const index = !g.choice
    ? 0
    : random === null
      ? g.balancer.pick(nowMs, previous, 0, 0)
      : g.balancer.pick(nowMs, previous, random.next(), random.next());
  if (index === NO_ENDPOINT) return refuse(call, breaker);
  const limits = g.limits;
  if (limits !== null) {
    // No connection pool is modelled: every attempt is a request on a ready connection (Envoy's max_requests).
    const verdict = limits.tryAcquire('request');
    if (!verdict.allowed) return refuse(call, breaker);
    permitsOf(call).request = verdict;
  }
  g.balancer.started(index);
  call.endpoint = index;
  edge.sent++;
  if (call.retry.attempts > 1) edge.retriesSent++;
  const target = g.targets[index] as Instance;
  const byHost = g.sentByHostWindow;
  if (byHost !== null) countByWindow(byHost, target.index, g.targets.length, metrics.windowMaskAt(nowMs));
  return target;
}

function permitsOf(call: Call): Permits {
  let permits = call.permits;
  if (permits === null) permits = call.permits = new Permits();
  return permits;
}

/** A refused attempt reached no upstream: the breaker's permit (if taken) is cancelled, not counted as a result. */
function refuse(call: Call, breaker: CircuitBreaker | null): null {
  const permits = call.permits;
  if (permits !== null && permits.breaker !== null) {
    (breaker as CircuitBreaker).onCancel(permits.breaker);
    permits.breaker = null;
  }
  return null;
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

/**
 * The attempt out ended (an answer, its per-try timeout, or an abort): the one report each guard gets for it. The
 * balancer's in-flight count drops, the detector records the result, the breaker's permit is reported by the
 * policy's rule (breakerReportOf), and the limits' request and retry units are released.
 */
export function attemptEnded(call: Call, outcome: Outcome, clock: Clock): void {
  const g = call.edge.guards;
  g.balancer.ended(call.endpoint);
  if (g.guarded) reportEnd(call, g, outcome, clock.nowMs);
}

function reportEnd(call: Call, g: EdgeGuards, outcome: Outcome, nowMs: number): void {
  const detector = g.detector;
  if (detector !== null) {
    detector.onResult(
      g.balancer.endpoints[call.endpoint] as string,
      outcome,
      nowMs,
      (g.detectorRandom as Random).next(),
    );
  }
  const permits = call.permits;
  if (permits === null) return;
  const permit = permits.breaker;
  if (permit !== null) {
    permits.breaker = null;
    const breaker = g.breaker as CircuitBreaker;
    switch (breakerReportOf(outcome)) {
      case 'success':
        breaker.onSuccess(permit, nowMs);
        break;
      case 'failure':
        breaker.onFailure(permit, nowMs);
        break;
      default:
        breaker.onCancel(permit);
    }
  }
  if (permits.request !== null) {
    (g.limits as ConcurrencyBreaker).release(permits.request);
    permits.request = null;
  }
  releaseRetry(call);
}

/**
 * A retry was decided: it takes a unit of Envoy's max_retries (or retry budget) now and holds it through the backoff
 * until its attempt ends. False when the limit is reached: the retry is not made (upstream_rq_retry_overflow).
 */
export function takeRetry(call: Call): boolean {
  const limits = call.edge.guards.limits;
  if (limits === null) return true;
  const verdict = limits.tryAcquire('retry');
  if (!verdict.allowed) return false;
  permitsOf(call).retry = verdict;
  return true;
}

/** Releases the call's retry unit if it holds one (its attempt ended, or the call ended before making it). */
export function releaseRetry(call: Call): void {
  const permits = call.permits;
  if (permits !== null && permits.retry !== null) {
    (call.edge.guards.limits as ConcurrencyBreaker).release(permits.retry);
    permits.retry = null;
  }
}

/** Runs the edge's outlier sweep (due now) and answers when the next one is due. */
export function sweepEdge(edge: EdgeRuntime, nowMs: number): number {
  const g = edge.guards;
  const detector = g.detector as OutlierDetector;
  detector.sweep(nowMs, g.detectorRandom as Random);
  return detector.nextWakeMs();
}
