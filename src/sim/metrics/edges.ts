// Per-edge figures of a run: retries / requests (the seed's 5 % alert) and each attempt guard's stats, Envoy's names.

import type { BalancerStats } from '../../policy/upstream/balancer.js';
import type { BreakerStats } from '../../policy/upstream/breaker.js';
import type { ConcurrencyStats } from '../../policy/upstream/concurrency.js';
import type { OutlierStats } from '../../policy/upstream/outlier-types.js';
import type { ThrottleCounts } from '../../policy/upstream/throttle.js';
import type { EdgeRuntime, ServiceRuntime } from '../model/records.js';
import type { ModelSpec } from '../scenario/types.js';
import type { Metrics } from './collector.js';

/**
 * One call edge (`caller -> callee`), summed over the caller's instances. The seed tells three mechanisms apart by
 * three signals: `limits.pendingOverflow` (did the concurrency breaker trip), `outlierDetection.ejectionsActive` (did
 * outlier detection take hosts out) and `retryRatio` (are retries already part of the load: alert above 0.05).
 * Guard blocks appear only when the edge configures that guard (`loadBalancer` when the callee has several instances).
 */
export interface EdgeSummary {
  /** Attempts sent over the wire (Envoy upstream_rq_total); attempts a local guard refused are not sent. */
  upstreamRqTotal: number;
  /** Of them, retries (upstream_rq_retry). */
  upstreamRqRetry: number;
  /** upstreamRqRetry / upstreamRqTotal (0 when nothing was sent). */
  retryRatio: number;
  circuitBreaker?: {
    /** closed -> open and half-open -> open, of which reopened (a probe failed). */
    opened: number;
    reopened: number;
    closedAfterProbes: number;
    /** Attempts failed fast: refused while open or with every probe slot taken. */
    rejected: number;
    rejectedOpen: number;
    rejectedHalfOpenFull: number;
    probes: number;
    probeSuccesses: number;
    probeFailures: number;
    /** Per 1 s bin, at its end: caller instances whose circuit is open (refusing every attempt). */
    openByBin: number[];
  };
  limits?: {
    /** Envoy upstream_rq_pending_overflow: attempts refused by max_requests (no pool is modelled: none wait). */
    pendingOverflow: number;
    activeOverflow: number;
    /** upstream_rq_retry_overflow: retries refused by max_retries or the retry budget. */
    retryOverflow: number;
    requestsTotal: number;
    retriesTotal: number;
  };
  outlierDetection?: {
    ejectionsEnforcedTotal: number;
    /** Detections refused by maxEjectionPercent. */
    ejectionsOverflow: number;
    ejectionsDetectedConsecutive5xx: number;
    ejectionsDetectedConsecutiveGatewayFailure: number;
    ejectionsDetectedSuccessRate: number;
    ejectionsDetectedFailurePercentage: number;
    ejectionsNotEnforced: number;
    unejectionsTotal: number;
    /** The largest ejectionsActive of any bin. */
    ejectionsActiveMax: number;
    /** Per 1 s bin, at its end: hosts ejected, summed over caller instances (the seed's alert signal). */
    ejectionsActive: number[];
  };
  /** The adaptive throttle (when the edge has one), summed over caller instances. */
  throttle?: {
    /** Attempts refused locally (the throttle's draw), never sent. */
    throttled: number;
    /** Attempts the throttle let through and counted sent. */
    sent: number;
    /** Of those, ended with the callee's own overload answer (429, 503, pushback; relayed errors do not count). */
    rejected: number;
  };
  loadBalancer?: {
    /** Picks made with ejections ignored (Envoy lb_healthy_panic). */
    healthyPanic: number;
    /** Attempts refused because every host was ejected (Envoy upstream_cx_none_healthy; panicThreshold 0). */
    noneHealthy: number;
    /** Retries sent to another host than the one that failed. */
    avoidedPrevious: number;
    /** Attempts sent to each callee instance (instance order), per window and in `total`. */
    upstreamRqByHost: Record<string, number[]>;
  };
}

function sum<T extends object>(items: readonly T[], key: keyof T): number {
  let total = 0;
  for (const item of items) total += item[key] as number;
  return total;
}

function series(array: Float64Array, edge: number, bins: number): number[] {
  return Array.from(array.subarray(edge * bins, (edge + 1) * bins));
}

/** The guards' stats of every caller instance's runtime of each edge, summed; keys in a fixed order. */
export function edgeSummaries(
  model: ModelSpec,
  services: readonly ServiceRuntime[],
  metrics: Metrics,
): Record<string, EdgeSummary> {
  const runtimes: EdgeRuntime[][] = model.edges.map(() => []);
  for (const service of services) {
    for (const instance of service.instances) for (const edge of instance.edges) runtimes[edge.id]?.push(edge);
  }
  const bins = metrics.binCount;
  const out: Record<string, EdgeSummary> = {};
  model.edges.forEach((spec, id) => {
    const edges = runtimes[id] as EdgeRuntime[];
    const total = sum(edges, 'sent');
    const retries = sum(edges, 'retriesSent');
    const summary: EdgeSummary = {
      upstreamRqTotal: total,
      upstreamRqRetry: retries,
      retryRatio: total === 0 ? 0 : Math.round((retries / total) * 1e6) / 1e6,
    };
    const breakers = edges.flatMap((e) => (e.guards.breaker === null ? [] : [e.guards.breaker.stats()]));
    if (breakers.length > 0) {
      const b = (key: keyof BreakerStats) => sum(breakers, key);
      summary.circuitBreaker = {
        opened: b('opened'),
        reopened: b('reopened'),
        closedAfterProbes: b('closedAfterProbes'),
        rejected: b('rejected'),
        rejectedOpen: b('rejectedOpen'),
        rejectedHalfOpenFull: b('rejectedHalfOpenFull'),
        probes: b('probes'),
        probeSuccesses: b('probeSuccesses'),
        probeFailures: b('probeFailures'),
        openByBin: series(metrics.breakersOpen, id, bins),
      };
    }
    const limits = edges.flatMap((e) => (e.guards.limits === null ? [] : [e.guards.limits.stats()]));
    if (limits.length > 0) {
      const l = (key: keyof ConcurrencyStats) => sum(limits, key);
      summary.limits = {
        pendingOverflow: l('pendingOverflow'),
        activeOverflow: l('activeOverflow'),
        retryOverflow: l('retryOverflow'),
        requestsTotal: l('requestsTotal'),
        retriesTotal: l('retriesTotal'),
      };
    }
    const detectors = edges.flatMap((e) => (e.guards.detector === null ? [] : [e.guards.detector.stats()]));
    if (detectors.length > 0) {
      const o = (key: keyof OutlierStats) => sum(detectors, key);
      const active = series(metrics.ejectionsActive, id, bins);
      summary.outlierDetection = {
        ejectionsEnforcedTotal: o('ejectionsEnforcedTotal'),
        ejectionsOverflow: o('ejectionsOverflow'),
        ejectionsDetectedConsecutive5xx: o('ejectionsDetectedConsecutive5xx'),
        ejectionsDetectedConsecutiveGatewayFailure: o('ejectionsDetectedConsecutiveGatewayFailure'),
        ejectionsDetectedSuccessRate: o('ejectionsDetectedSuccessRate'),
        ejectionsDetectedFailurePercentage: o('ejectionsDetectedFailurePercentage'),
        ejectionsNotEnforced: o('ejectionsNotEnforced'),
        unejectionsTotal: o('unejectionsTotal'),
        ejectionsActiveMax: Math.max(0, ...active),
        ejectionsActive: active,
      };
    }
    const throttles = edges.flatMap((e) => (e.guards.throttle === null ? [] : [e.guards.throttle.counts()]));
    if (throttles.length > 0) {
      const t = (key: keyof ThrottleCounts) => sum(throttles, key);
      summary.throttle = { throttled: t('throttled'), sent: t('sent'), rejected: t('rejected') };
    }
    const hosts = services.find((s) => s.spec.name === spec.to)?.instances.length ?? 1;
    if (hosts > 1 || detectors.length > 0) {
      const lb = edges.map((e) => e.guards.balancer.stats());
      const s = (key: keyof BalancerStats) => sum(lb, key);
      summary.loadBalancer = {
        healthyPanic: s('panics'),
        noneHealthy: s('noEndpoint'),
        avoidedPrevious: s('avoidedPrevious'),
        upstreamRqByHost: byHost(edges, hosts, metrics),
      };
    }
    out[`${spec.from} -> ${spec.to}`] = summary;
  });
  return out;
}

/** Attempts per callee instance, per window and in total (attempts outside every window count in total only). */
function byHost(edges: readonly EdgeRuntime[], hosts: number, metrics: Metrics): Record<string, number[]> {
  const stride = metrics.windows.length + 1;
  const count = (k: number, slot: number) =>
    edges.reduce((n, e) => n + (e.guards.sentByHostWindow?.[k * stride + slot] ?? 0), 0);
  const out: Record<string, number[]> = {};
  metrics.windows.forEach((w, i) => {
    out[w.name] = Array.from({ length: hosts }, (_, k) => count(k, i));
  });
  out.total = Array.from({ length: hosts }, (_, k) => count(k, stride - 1));
  return out;
}
