// Counters of a RetryPolicy, named in Envoy's spirit (upstream_rq_total, upstream_rq_retry, upstream_rq_retry_overflow...).

import { STOP_REASONS, type StopReason } from '../core/types.js';

/** A snapshot of a policy's counters. `calls === active + sum(stops)` always holds. */
export interface RetryStats {
  /** Calls started (Envoy upstream_rq_total counts attempts; this counts logical calls). */
  calls: number;
  /** Calls started and not yet ended. */
  active: number;
  /** Attempts begun, first attempts included. */
  attempts: number;
  /** Retries granted (upstream_rq_retry). */
  retries: number;
  /** Calls that succeeded after at least one retry (upstream_rq_retry_success). */
  retrySuccess: number;
  /** Retries the budget refused (upstream_rq_retry_overflow). */
  retryOverflow: number;
  /** Calls that used every attempt (upstream_rq_retry_limit_exceeded). */
  retryLimitExceeded: number;
  /** Attempts whose per-try timeout fired (upstream_rq_per_try_timeout). */
  perTryTimeouts: number;
  /** Calls stopped by their deadline (deadline-exceeded or deadline-would-pass). */
  deadlineExceeded: number;
  /** Ended calls by stop reason. */
  stops: Record<StopReason, number>;
}

function zeroStops(): Record<StopReason, number> {
  const stops = {} as Record<StopReason, number>;
  for (const reason of STOP_REASONS) stops[reason] = 0;
  return stops;
}

/** Mutable counters a policy and its calls update in place. */
export class RetryCounters {
  calls = 0;
  active = 0;
  attempts = 0;
  retries = 0;
  retrySuccess = 0;
  retryOverflow = 0;
  retryLimitExceeded = 0;
  perTryTimeouts = 0;
  deadlineExceeded = 0;
  private readonly stops = zeroStops();

  callStarted(): void {
    this.calls++;
    this.active++;
  }

  callEnded(reason: StopReason, attempts: number): void {
    this.active--;
    this.stops[reason]++;
    if (reason === 'succeeded' && attempts > 1) this.retrySuccess++;
    if (reason === 'deadline-exceeded' || reason === 'deadline-would-pass') this.deadlineExceeded++;
  }

  snapshot(): RetryStats {
    return {
      calls: this.calls,
      active: this.active,
      attempts: this.attempts,
      retries: this.retries,
      retrySuccess: this.retrySuccess,
      retryOverflow: this.retryOverflow,
      retryLimitExceeded: this.retryLimitExceeded,
      perTryTimeouts: this.perTryTimeouts,
      deadlineExceeded: this.deadlineExceeded,
      stops: { ...this.stops },
    };
  }
}
