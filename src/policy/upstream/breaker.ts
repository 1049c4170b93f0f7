// The classic circuit breaker (seed 002, proposal C): closed -> open -> half-open -> closed, with generation-stamped permits.

import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { Outcome } from '../core/types.js';
import {
  type CircuitBreakerConfig,
  type ResolvedCircuitBreakerConfig,
  validateCircuitBreakerConfig,
} from './breaker-config.js';
import { BucketWindow } from './breaker-window.js';
import { ChangeLog } from './changes.js';

export * from './breaker-config.js';

export type BreakerState = 'closed' | 'open' | 'half-open';
export type BreakerRejectReason = 'open' | 'half-open-full';
/** What a report did: changed the breaker's counts, or was ignored (earlier generation, or the permit's second report). */
export type BreakerReportFate = 'counted' | 'stale' | 'duplicate';

export type BreakerEvent = 'acquire' | 'success' | 'failure' | 'cancel' | 'time';
export interface BreakerTransition {
  readonly to: readonly BreakerState[];
  readonly rule: string;
}

/**
 * The whole state machine. Reports are of permits of the current generation; a report of an earlier generation's
 * permit (a call admitted before the last transition) is ignored in every state: it changes no state, no window, no
 * probe slot and no break. `time` is the driver's `nowMs` passing, seen by every method that takes it.
 */
export const BREAKER_TRANSITIONS: {
  readonly [S in BreakerState]: { readonly [E in BreakerEvent]: BreakerTransition };
} = {
  closed: {
    acquire: { to: ['closed'], rule: 'admit as a call' },
    success: { to: ['closed'], rule: 'reset the consecutive failures; the window records a success' },
    failure: {
      to: ['closed', 'open'],
      rule: 'open at failureThreshold consecutive failures, or at percent failures once the window holds minimumCalls',
    },
    cancel: { to: ['closed'], rule: 'record nothing (not an outcome)' },
    time: { to: ['closed'], rule: 'nothing (old buckets leave the window)' },
  },
  open: {
    acquire: { to: ['open'], rule: "reject 'open'" },
    success: { to: [], rule: 'cannot happen: no permit is issued while open' },
    failure: { to: [], rule: 'cannot happen: no permit is issued while open' },
    cancel: { to: [], rule: 'cannot happen: no permit is issued while open' },
    time: { to: ['open', 'half-open'], rule: 'half-open once the break has passed (nextWakeMs)' },
  },
  'half-open': {
    acquire: {
      to: ['half-open'],
      rule: "a probe while fewer than halfOpenMaxProbes are out, else reject 'half-open-full'",
    },
    success: { to: ['half-open', 'closed'], rule: 'free the slot; close at successesToClose probe successes' },
    failure: { to: ['open'], rule: 're-open for break × breakDurationMultiplier (up to maxBreakDuration)' },
    cancel: { to: ['half-open'], rule: 'free the probe slot; record nothing' },
    time: {
      to: ['half-open', 'open'],
      rule: 're-open as a probe failure once a probe is out longer than probeLease (from the lease end)',
    },
  },
};

/** Why the breaker changed state: failures (closed -> open), a probe failed or outlived its lease, the break ended, probes succeeded. */
export type BreakerChangeCause = 'failures' | 'probe-failed' | 'probe-expired' | 'break-over' | 'probes-succeeded';

/** One transition, as data for a driver to publish (CircuitBreaker.recordChanges). */
export interface BreakerChange {
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly cause: BreakerChangeCause;
  /** The break of the open period this change starts (to 'open'), else 0. */
  readonly breakDurationMs: number;
}

/** A call the breaker let through. Report it exactly once: onSuccess, onFailure or onCancel. */
export class BreakerPermit {
  readonly allowed = true as const;
  /** @internal */ settled = false;
  constructor(
    /** The breaker's generation when admitted: a report from an earlier one is ignored. */
    readonly generation: number,
    /** Admitted as a half-open probe (holds a probe slot until reported). */
    readonly probe: boolean,
    /** @internal */ readonly owner: CircuitBreaker,
  ) {}
}

export interface BreakerRejection {
  readonly allowed: false;
  readonly reason: BreakerRejectReason;
}
export type BreakerVerdict = BreakerPermit | BreakerRejection;

const REJECT_OPEN: BreakerRejection = Object.freeze({ allowed: false, reason: 'open' });
const REJECT_FULL: BreakerRejection = Object.freeze({ allowed: false, reason: 'half-open-full' });

const ADMISSIONS = ['offered', 'calls', 'probes', 'rejectedOpen', 'rejectedHalfOpenFull', 'inFlight'] as const;
const REPORTS = ['successes', 'failures', 'cancelled', 'staleReports', 'duplicateReports'] as const;
/** Probe outcomes and the transitions. */
const TRANSITIONS = [
  'probeSuccesses',
  'probeFailures',
  'probesExpired',
  'opened',
  'reopened',
  'halfOpened',
  'closedAfterProbes',
] as const;
type Counter = (typeof ADMISSIONS)[number] | (typeof REPORTS)[number] | (typeof TRANSITIONS)[number];

/**
 * Counters since construction, and gauges. offered: tryAcquire() calls; calls / probes: admitted while closed /
 * half-open; successes, failures, cancelled: reports, one per permit, of any generation; staleReports: those of an
 * earlier generation (ignored); duplicateReports: second reports (ignored, counted nowhere else); inFlight: permits not
 * reported yet; opened: closed -> open and half-open -> open; reopened: of those, half-open -> open (a probe failed);
 * probesExpired: probes out longer than probeLease, each re-opening the circuit (its late report is then stale).
 * Invariants: offered = calls + probes + rejected; calls + probes = successes + failures + cancelled + inFlight;
 * opened = halfOpened + (open ? 1 : 0); halfOpened = closedAfterProbes + reopened + (half-open ? 1 : 0);
 * reopened = probeFailures + probesExpired.
 */
export interface BreakerStats extends Record<Counter, number> {
  state: BreakerState;
  /** Bumped at every transition; permits carry the one they were admitted in. */
  generation: number;
  /** rejectedOpen + rejectedHalfOpenFull. */
  rejected: number;
  probesInFlight: number;
  consecutiveFailures: number;
  windowCalls: number;
  windowFailures: number;
  /** The break of the current (or last) open period. */
  breakDurationMs: number;
}

/**
 * Sans-I/O circuit breaker: every method takes the driver's `nowMs`; nothing reads a clock or sets a timer. A driver
 * asks tryAcquire() before each call and reports each permit once (onSuccess, onFailure or onCancel). To see the
 * open -> half-open change when it happens (for a gauge or a log), it wakes at nextWakeMs() and calls state(nowMs).
 */
export class CircuitBreaker {
  readonly config: ResolvedCircuitBreakerConfig;
  private readonly window: BucketWindow | null;
  /** A count window's position is the call's ordinal, a time window's `nowMs`. */
  private readonly windowByCalls: boolean;
  private windowCallNo = 0;
  private current: BreakerState = 'closed';
  private generation = 0;
  private consecutive = 0;
  private openUntilMs = Infinity;
  private breakMs: number;
  private reopens = 0;
  private probeSlots = 0;
  private halfOpenSuccesses = 0;
  /** The probes of this half-open not reported yet, each with the end of its lease. */
  private readonly leases = new Map<BreakerPermit, number>();
  /** The earliest of those lease ends; Infinity when none is out. */
  private leaseEndsMs = Infinity;
  private lastNowMs = 0;
  /** Transitions not taken yet by a driver; null until one asks (the simulator never does). */
  private changes: ChangeLog<BreakerChange> | null = null;
  private readonly n = Object.fromEntries(
    [...ADMISSIONS, ...REPORTS, ...TRANSITIONS].map((name) => [name, 0]),
  ) as Record<Counter, number>;

  /** Throws ConfigError listing every problem. */
  constructor(config: CircuitBreakerConfig = {}) {
    const issues: ConfigIssue[] = [];
    const resolved = validateCircuitBreakerConfig(config, '', issues);
    if (resolved === undefined) throw new ConfigError(issues);
    this.config = resolved;
    this.breakMs = resolved.breakDurationMs;
    const w = resolved.failureRate?.window;
    this.windowByCalls = w?.kind === 'count';
    if (w === undefined) this.window = null;
    else if (w.kind === 'count') this.window = new BucketWindow(1, w.size);
    else this.window = new BucketWindow(w.durationMs / w.buckets, w.buckets);
  }

  /** Bytes held by the failure-rate window: none before the first call, then grown with use up to 16 × its size. */
  get windowBytes(): number {
    return this.window?.bytes ?? 0;
  }

  /** From now on, record every transition in the log returned (the same log for every driver that asks). */
  recordChanges(): ChangeLog<BreakerChange> {
    this.changes ??= new ChangeLog();
    return this.changes;
  }

  /** The state at `nowMs` (an open circuit whose break has passed half-opens here). */
  state(nowMs: number): BreakerState {
    this.advance(nowMs);
    return this.current;
  }

  /**
   * When the state changes by time alone (quinn's poll_timeout): the end of the break while open, the earliest probe
   * lease end while half-open with probes out, else Infinity.
   */
  nextWakeMs(): number {
    return this.current === 'open' ? this.openUntilMs : this.leaseEndsMs;
  }

  tryAcquire(nowMs: number): BreakerVerdict {
    this.advance(nowMs);
    const n = this.n;
    n.offered++;
    if (this.current === 'open') {
      // @ko breaker-open-fails-fast
      n.rejectedOpen++;
      return REJECT_OPEN;
    }
    const probe = this.current === 'half-open';
    if (probe) {
      // A bounded number of probes, never everyone (opossum #119).
      // @ko breaker-half-open-bounded
      if (this.probeSlots >= this.config.halfOpenMaxProbes) {
        n.rejectedHalfOpenFull++;
        return REJECT_FULL;
      }
      this.probeSlots++;
      n.probes++;
    } else n.calls++;
    n.inFlight++;
    const permit = new BreakerPermit(this.generation, probe, this);
    if (probe) this.lease(permit, this.lastNowMs + this.config.probeLeaseMs);
    return permit;
  }

  onSuccess(permit: BreakerPermit, nowMs: number): BreakerReportFate {
    const fate = this.settle(permit, nowMs, 'successes');
    if (fate !== 'counted') return fate;
    if (permit.probe) {
      this.probeSlots--;
      this.lease(permit, null);
      this.n.probeSuccesses++;
      if (++this.halfOpenSuccesses >= this.config.successesToClose) this.enter('closed', nowMs, 'probes-succeeded');
    } else {
      this.consecutive = 0;
      this.record(false, nowMs);
    }
    return fate;
  }

  onFailure(permit: BreakerPermit, nowMs: number): BreakerReportFate {
    const fate = this.settle(permit, nowMs, 'failures');
    if (fate !== 'counted') return fate;
    if (permit.probe) {
      // No slot to free: re-opening frees every probe slot (enter).
      this.n.probeFailures++;
      this.enter('open', nowMs, 'probe-failed');
      return fate;
    }
    this.consecutive++;
    const w = this.record(true, nowMs);
    const rate = this.config.failureRate;
    // @ko breaker-rate-minimum-volume
    // @eq breaker-ratetrips-rate-calls-rate
    const rateTrips = w !== null && rate !== null && w.calls >= rate.minimumCalls;
    // @ko breaker-consecutive-failures
    if (this.consecutive >= this.config.failureThreshold || (rateTrips && w.failures * 100 >= rate.percent * w.calls)) {
      this.enter('open', nowMs, 'failures');
    }
    return fate;
  }

  /** The call was abandoned before it said anything about the upstream: a probe's slot is freed, nothing recorded. */
  onCancel(permit: BreakerPermit): BreakerReportFate {
    const fate = this.settle(permit, Number.NaN, 'cancelled');
    if (fate === 'counted' && permit.probe) {
      this.probeSlots--;
      this.lease(permit, null);
    }
    return fate;
  }

  stats(): BreakerStats {
    const n = this.n;
    return {
      ...n,
      state: this.current,
      generation: this.generation,
      rejected: n.rejectedOpen + n.rejectedHalfOpenFull,
      probesInFlight: this.probeSlots,
      consecutiveFailures: this.consecutive,
      windowCalls: this.window?.calls ?? 0,
      windowFailures: this.window?.failures ?? 0,
      breakDurationMs: this.breakMs,
    };
  }

  private record(failed: boolean, nowMs: number): BucketWindow | null {
    this.window?.record(failed, this.windowByCalls ? this.windowCallNo++ : nowMs);
    return this.window;
  }

  /** Marks the permit reported (once) under `counter`; says whether the report is of the current generation. */
  private settle(permit: BreakerPermit, nowMs: number, counter: Counter): BreakerReportFate {
    if (permit.owner !== this) throw new Error('CircuitBreaker: a permit reported to a breaker that did not issue it');
    const n = this.n;
    if (permit.settled) {
      n.duplicateReports++;
      return 'duplicate';
    }
    permit.settled = true;
    n.inFlight--;
    n[counter]++;
    this.advance(nowMs);
    // The generation changes at every transition: a late report cannot restart a break or close a circuit.
    // @ko breaker-stale-reports
    if (permit.generation !== this.generation) {
      n.staleReports++;
      return 'stale';
    }
    return 'counted';
  }

  /** Gives a probe its lease (until `endsMs`), or takes it back (null: reported). */
  private lease(permit: BreakerPermit, endsMs: number | null): void {
    const leases = this.leases;
    if (endsMs === null) leases.delete(permit);
    else leases.set(permit, endsMs);
    let earliest = Infinity;
    for (const end of leases.values()) if (end < earliest) earliest = end;
    this.leaseEndsMs = earliest;
  }

  private advance(nowMs: number): void {
    if (Number.isFinite(nowMs)) this.lastNowMs = nowMs;
    // A probe out longer than its lease is a failed probe (issue #25): a hung one cannot hold half-open for ever.
    // @ko breaker-probe-lease
    if (this.current === 'half-open' && nowMs >= this.leaseEndsMs) {
      this.n.probesExpired++;
      this.enter('open', this.leaseEndsMs, 'probe-expired');
    }
    if (this.current === 'open' && nowMs >= this.openUntilMs) this.enter('half-open', nowMs, 'break-over');
    else if (this.current === 'closed' && !this.windowByCalls) this.window?.advance(nowMs);
  }

  private enter(next: BreakerState, nowMs: number, cause: BreakerChangeCause): void {
    const cfg = this.config;
    const n = this.n;
    const from = this.current;
    this.current = next;
    this.generation++;
    // Probes of the generation that ends are stale from here on: they hold no slot, and no lease, of the next one.
    this.probeSlots = 0;
    this.leases.clear();
    this.leaseEndsMs = Infinity;
    this.consecutive = 0;
    if (next === 'open') {
      n.opened++;
      if (from === 'half-open') {
        n.reopened++;
        this.reopens++;
      }
      this.breakMs = Math.min(
        cfg.breakDurationMs * cfg.breakDurationMultiplier ** this.reopens,
        cfg.maxBreakDurationMs,
      );
      this.openUntilMs = (Number.isFinite(nowMs) ? nowMs : this.lastNowMs) + this.breakMs;
    } else if (next === 'half-open') {
      n.halfOpened++;
      this.halfOpenSuccesses = 0;
      this.openUntilMs = Infinity;
    } else {
      n.closedAfterProbes++;
      this.reopens = 0;
      this.window?.reset();
      this.windowCallNo = 0;
    }
    // @ko breaker-changes-recorded
    this.changes?.add({ from, to: next, cause, breakDurationMs: next === 'open' ? this.breakMs : 0 });
  }
}

/**
 * How a driver reports an attempt's outcome to the breaker: an answer below 500 shows a live upstream (success); a 5xx,
 * a timeout, a reset or a failed connect is a failure; an abort or a local refusal says nothing about it (cancel).
 */
export function breakerReportOf(outcome: Outcome): 'success' | 'failure' | 'cancel' {
  switch (outcome.kind) {
    case 'response':
      return outcome.status >= 500 ? 'failure' : 'success';
    case 'connect-failure':
    case 'reset':
    case 'timeout':
      return 'failure';
    default:
      return 'cancel';
  }
}
