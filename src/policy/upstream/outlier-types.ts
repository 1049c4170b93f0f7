// Outlier detection's vocabulary: how a result counts, what a detection led to, stats, sweep reports, host snapshots.

import type { Outcome } from '../core/types.js';

/**
 * What one result says about a host, in Envoy's default mode (split_external_local_origin_errors = false):
 * - `success`: any response below 500 (a 404 is the host working);
 * - `5xx`: a 5xx other than 502/503/504: counts for consecutive 5xx, and breaks a run of gateway failures;
 * - `gateway-failure`: 502, 503, 504, or a locally originated failure (connect failure, reset, timeout): counts for
 *   both consecutive gateway failures and consecutive 5xx;
 * - `ignored`: the attempt never tested the host (aborted by the caller, shed locally, a local error).
 */
export type OutlierResultClass = 'success' | '5xx' | 'gateway-failure' | 'ignored';

/** A result as drivers report it: the policy's Outcome, or just the status a host answered with. */
export type OutlierOutcome = Outcome | number;

export type EjectionReason = 'consecutive-5xx' | 'consecutive-gateway-failure' | 'success-rate' | 'failure-percentage';

/**
 * What a detection led to: `ejected`; `overflow` (maxEjectionPercent refused it); `not-enforced` (the enforcing
 * percentage's draw said no). onResult answers `none` when nothing was detected.
 */
export type EjectionVerdict = 'none' | 'ejected' | 'overflow' | 'not-enforced';

export interface OutlierEvent {
  host: string;
  reason: EjectionReason;
  verdict: Exclude<EjectionVerdict, 'none'>;
}

/** An ejection or its end, as data for a driver to publish (OutlierDetector.recordChanges). */
export interface EjectionChange {
  readonly host: string;
  /** true: ejected now; false: back in the pool (its time was up, at a sweep). */
  readonly ejected: boolean;
  /** Why it was ejected (for its end: why it had been). A host removed from the pool says nothing. */
  readonly reason: EjectionReason;
  /** How long it stays out (ejected), or how long it was out (back). */
  readonly ejectionTimeMs: number;
  /** Hosts out of the pool after this change. */
  readonly ejectionsActive: number;
}

/** What sweep() did. */
export interface SweepReport {
  /** False when the sweep was not due (nowMs < nextWakeMs()): then nothing changed. */
  ran: boolean;
  /** Hosts whose ejection time had passed, back in service. */
  unejected: string[];
  /** Success-rate and failure-percentage detections, in the order they were decided. */
  events: OutlierEvent[];
  /** Mean success rate (%) of the hosts analysed, and mean − stdev × factor; null when the analysis did not run. */
  successRateAverage: number | null;
  successRateEjectionThreshold: number | null;
}

/** Counters named as Envoy's `outlier_detection.*` stats (camelCase), then Seawall's own. */
export interface OutlierStats {
  /** Gauge: hosts ejected now (Envoy `ejections_active`). */
  ejectionsActive: number;
  ejectionsEnforcedTotal: number;
  /** Detections refused by maxEjectionPercent (Envoy `ejections_overflow`). */
  ejectionsOverflow: number;
  ejectionsDetectedConsecutive5xx: number;
  ejectionsEnforcedConsecutive5xx: number;
  ejectionsDetectedConsecutiveGatewayFailure: number;
  ejectionsEnforcedConsecutiveGatewayFailure: number;
  ejectionsDetectedSuccessRate: number;
  ejectionsEnforcedSuccessRate: number;
  ejectionsDetectedFailurePercentage: number;
  ejectionsEnforcedFailurePercentage: number;
  /** Seawall: detections within the limit that the enforcing percentage's draw did not enforce. */
  ejectionsNotEnforced: number;
  /** Seawall: hosts returned to service at a sweep. */
  unejectionsTotal: number;
  /** Seawall: ejected hosts forgotten (removeHost, or maxHosts with every tracked host ejected) before their time. */
  ejectionsForgotten: number;
  /** Seawall: hosts tracked now, and forgotten so far (removeHost or the maxHosts bound). */
  hostsTracked: number;
  hostsForgotten: number;
  /** Seawall: sweeps that ran. */
  sweeps: number;
}

/** One host's state, for tests, debugging and an admin page (Envoy's /clusters shows the same facts). */
export interface OutlierHostSnapshot {
  ejected: boolean;
  ejectedAtMs: number | null;
  /** How long the current (or last) ejection lasts: min(base × multiplier, max). */
  ejectionTimeMs: number;
  /** Envoy's eject-time backoff: +1 per ejection (while below max/base + 1), −1 per healthy interval. */
  multiplier: number;
  timesEjected: number;
  consecutive5xx: number;
  consecutiveGatewayFailure: number;
  /** Results in the interval being collected, and in the last complete one (what the last sweep analysed). */
  requests: number;
  successes: number;
  lastIntervalRequests: number;
  lastIntervalSuccesses: number;
}

/** Classifies one result the way Envoy's host monitor does (see OutlierResultClass). */
export function classifyOutlierResult(outcome: OutlierOutcome): OutlierResultClass {
  if (typeof outcome === 'number') return statusClass(outcome);
  switch (outcome.kind) {
    case 'response':
      return statusClass(outcome.status);
    // Locally originated: Envoy maps a connect failure to 503 and a timeout to 504, both gateway errors.
    case 'connect-failure':
    case 'reset':
    case 'timeout':
      return 'gateway-failure';
    default:
      return 'ignored';
  }
}

function statusClass(status: number): OutlierResultClass {
  if (!(status >= 500 && status < 600)) return 'success';
  return status === 502 || status === 503 || status === 504 ? 'gateway-failure' : '5xx';
}
