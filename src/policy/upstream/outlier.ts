// Outlier detection (Envoy's): which hosts of a pool to eject, for how long, and the limit on how many.

import type { Random } from '../core/random.js';
import { ChangeLog } from './changes.js';
import { findOutliers } from './outlier-analysis.js';
import {
  type OutlierDetectionConfig,
  type ResolvedOutlierDetectionConfig,
  resolveOutlierDetectionConfig,
} from './outlier-config.js';
import {
  classifyOutlierResult,
  type EjectionChange,
  type EjectionReason,
  type EjectionVerdict,
  type OutlierEvent,
  type OutlierHostSnapshot,
  type OutlierOutcome,
  type OutlierStats,
  type SweepReport,
} from './outlier-types.js';

export * from './outlier-config.js';
export * from './outlier-types.js';

const VERDICT_RANK: Readonly<Record<EjectionVerdict, number>> = { none: 0, 'not-enforced': 1, overflow: 2, ejected: 3 };
const NOT_DUE: SweepReport = Object.freeze({
  ran: false,
  unejected: Object.freeze([]) as unknown as string[],
  events: Object.freeze([]) as unknown as OutlierEvent[],
  successRateAverage: null,
  successRateEjectionThreshold: null,
});

class HostState {
  ejected = false;
  ejectedAtMs: number | null = null;
  unejectedAtMs: number | null = null;
  multiplier = 0;
  timesEjected = 0;
  lastReason: EjectionReason = 'consecutive-5xx';
  consecutive5xx = 0;
  consecutiveGateway = 0;
  requests = 0;
  successes = 0;
  lastRequests = 0;
  lastSuccesses = 0;
  constructor(readonly key: string) {}
}

/**
 * Envoy's outlier detection for one pool of hosts, sans-I/O. Driver protocol: report every attempt's result with
 * onResult(); call sweep() whenever nextWakeMs() is reached; pick hosts from available(). The interval clock starts
 * at the first call that gives a time (onResult, addHosts or sweep). Hosts are keyed by string and tracked in
 * least-recently-seen order; analysis and eviction follow that order.
 */
export class OutlierDetector {
  private readonly cfg: ResolvedOutlierDetectionConfig;
  private readonly hosts = new Map<string, HostState>();
  private nextSweepMs = Number.POSITIVE_INFINITY;
  private active = 0;
  private readonly detected: Record<EjectionReason, number> = {
    'consecutive-5xx': 0,
    'consecutive-gateway-failure': 0,
    'success-rate': 0,
    'failure-percentage': 0,
  };
  private readonly enforced: Record<EjectionReason, number> = { ...this.detected };
  private overflow = 0;
  private notEnforced = 0;
  private unejections = 0;
  private ejectionsForgotten = 0;
  private hostsForgotten = 0;
  private sweeps = 0;
  /** Ejections and their ends not taken by a driver yet; null until one asks (the simulator never does). */
  private changes: ChangeLog<EjectionChange> | null = null;

  private readonly enforcing: Readonly<Record<EjectionReason, number>>;

  /** Throws ConfigError listing every bad key. */
  constructor(config: OutlierDetectionConfig = {}) {
    const cfg = resolveOutlierDetectionConfig(config);
    this.cfg = cfg;
    this.enforcing = {
      'consecutive-5xx': cfg.enforcingConsecutive5xx,
      'consecutive-gateway-failure': cfg.enforcingConsecutiveGatewayFailure,
      'success-rate': cfg.enforcingSuccessRate,
      'failure-percentage': cfg.enforcingFailurePercentage,
    };
  }

  get config(): ResolvedOutlierDetectionConfig {
    return this.cfg;
  }

  /**
   * Records one attempt's result. A consecutive-failure detector that reaches its threshold on a host not already
   * ejected detects it, and the host is ejected if maxEjectionPercent allows and the enforcing percentage's draw
   * agrees: `u` is that draw, uniform in [0, 1), needed only when an enforcing percentage is strictly between 0 and
   * 100 (both detectors firing on one result share it). Throws RangeError if it is needed and missing or out of range.
   */
  onResult(host: string, outcome: OutlierOutcome, nowMs: number, u?: number): EjectionVerdict {
    const cls = classifyOutlierResult(outcome);
    if (cls === 'ignored') return 'none';
    this.startClock(nowMs);
    const h = this.touch(host);
    const cfg = this.cfg;
    h.requests++;
    if (cls === 'success') {
      h.successes++;
      h.consecutive5xx = 0;
      h.consecutiveGateway = 0;
      return 'none';
    }
    let verdict: EjectionVerdict = 'none';
    // Envoy checks the gateway counter first, then the 5xx counter; each detection resets its own counter, but
    // a host already ejected is not detected again (its counters are reset when it is un-ejected).
    if (cls === 'gateway-failure') {
      h.consecutiveGateway++;
      const threshold = cfg.consecutiveGatewayFailure;
      if (threshold > 0 && h.consecutiveGateway >= threshold && !h.ejected) {
        this.detected['consecutive-gateway-failure']++;
        verdict = this.tryEject(h, 'consecutive-gateway-failure', nowMs, u);
        h.consecutiveGateway = 0;
      }
    } else {
      h.consecutiveGateway = 0;
    }
    h.consecutive5xx++;
    if (cfg.consecutive5xx > 0 && h.consecutive5xx >= cfg.consecutive5xx && !h.ejected) {
      this.detected['consecutive-5xx']++;
      const v = this.tryEject(h, 'consecutive-5xx', nowMs, u);
      // @eq outlier-verdict-rank-verdict-rank
      if (VERDICT_RANK[v] > VERDICT_RANK[verdict]) verdict = v;
      h.consecutive5xx = 0;
    }
    return verdict;
  }

  /**
   * The interval sweep, run when nextWakeMs() is reached (earlier calls change nothing): un-ejects hosts whose time
   * has passed, closes the interval's success counts, runs success-rate then failure-percentage analysis over the
   * hosts not ejected, and lowers the multiplier of hosts healthy for an interval since their un-ejection.
   * `random` gives the enforcement draws, taken only for enforcing percentages strictly between 0 and 100.
   */
  sweep(nowMs: number, random: Random): SweepReport {
    if (this.nextSweepMs === Number.POSITIVE_INFINITY) {
      this.startClock(nowMs);
      return NOT_DUE;
    }
    if (nowMs < this.nextSweepMs) return NOT_DUE;
    const cfg = this.cfg;
    const snapshot = Array.from(this.hosts.values());
    const unejected: string[] = [];
    for (const h of snapshot) {
      if (h.ejected && this.ejectionTimeMs(h) <= nowMs - (h.ejectedAtMs as number)) {
        this.uneject(h, nowMs);
        unejected.push(h.key);
      }
      // Envoy's two buckets: the interval just closed is analysed, a fresh one collects the next.
      h.lastRequests = h.requests;
      h.lastSuccesses = h.successes;
      h.requests = 0;
      h.successes = 0;
    }
    const report: SweepReport = {
      ran: true,
      unejected,
      events: [],
      successRateAverage: null,
      successRateEjectionThreshold: null,
    };
    this.analyse(snapshot, nowMs, random, report);
    // Envoy: a host not ejected, un-ejected at least an interval ago, loses one step of its ejection multiplier.
    for (const h of snapshot) {
      // @eq outlier-ejected-unejectedatms-multiplier
      if (h.ejected || h.unejectedAtMs === null || h.multiplier === 0) continue;
      // @ko outlier-multiplier-decays
      if (nowMs - h.unejectedAtMs >= cfg.intervalMs) h.multiplier--;
    }
    // Envoy re-arms its timer after the sweep: the next one is an interval after this one ran.
    this.nextSweepMs = nowMs + cfg.intervalMs;
    this.sweeps++;
    return report;
  }

  private analyse(snapshot: HostState[], nowMs: number, random: Random, report: SweepReport): void {
    findOutliers(snapshot, this.hosts.size, this.cfg, report, (h, reason) => {
      this.detectAtSweep(h, reason, nowMs, random, report);
    });
  }

  private detectAtSweep(h: HostState, reason: EjectionReason, nowMs: number, random: Random, report: SweepReport) {
    this.detected[reason]++;
    const verdict = this.tryEject(h, reason, nowMs, random) as OutlierEvent['verdict'];
    report.events.push({ host: h.key, reason, verdict });
  }

  /** Envoy's ejectHost: the limit first (a refusal is an overflow), then the enforcing percentage, then ejection. */
  private tryEject(h: HostState, reason: EjectionReason, nowMs: number, draw: Random | number | undefined) {
    if (!this.ejectionAllowed()) {
      this.overflow++;
      return 'overflow';
    }
    const percent = this.enforcing[reason];
    // Envoy's runtime featureEnabled: enforced when a draw in [0, 100) is below the percentage.
    if (!(percent >= 100 || (percent > 0 && drawOf(draw, reason, percent) * 100 < percent))) {
      this.notEnforced++;
      return 'not-enforced';
    }
    const cfg = this.cfg;
    h.ejected = true;
    h.ejectedAtMs = nowMs;
    h.timesEjected++;
    // Envoy grows the multiplier only while base × multiplier < max + base, so it stops one step past the cap.
    // @ko outlier-ejection-time-grows
    if (h.multiplier * cfg.baseEjectionTimeMs < cfg.maxEjectionTimeMs + cfg.baseEjectionTimeMs) h.multiplier++;
    this.active++;
    this.enforced[reason]++;
    h.lastReason = reason;
    // @ko outlier-changes-recorded
    this.changed(h, true, this.ejectionTimeMs(h));
    return 'ejected';
  }

  /**
   * max_ejection_percent, as Envoy applies it since envoyproxy/envoy#27909 (2023): eject only if the share ejected *after* this ejection is at
   * most the limit, i.e. at most floor(percent × hosts / 100) hosts are out (10 % of 9 hosts is none). With
   * alwaysEjectOneHost one host may go when none is out, whatever the limit.
   */
  private ejectionAllowed(): boolean {
    const cfg = this.cfg;
    // @ko outlier-max-ejection-percent
    if (100 * (this.active + 1) <= cfg.maxEjectionPercent * this.hosts.size) return true;
    return cfg.alwaysEjectOneHost && this.active === 0;
  }

  private ejectionTimeMs(h: HostState): number {
    return Math.min(this.cfg.baseEjectionTimeMs * h.multiplier, this.cfg.maxEjectionTimeMs);
  }

  private uneject(h: HostState, nowMs: number): void {
    h.ejected = false;
    h.unejectedAtMs = nowMs;
    // Envoy resets the consecutive counters so a few new errors do not re-eject a host at once.
    h.consecutive5xx = 0;
    h.consecutiveGateway = 0;
    this.active--;
    this.unejections++;
    this.changed(h, false, nowMs - (h.ejectedAtMs as number));
  }

  private changed(h: HostState, ejected: boolean, ms: number): void {
    this.changes?.add({ host: h.key, ejected, reason: h.lastReason, ejectionTimeMs: ms, ejectionsActive: this.active });
  }

  /** From now on, record every ejection and its end in the log returned (one log, whoever asks). */
  recordChanges(): ChangeLog<EjectionChange> {
    this.changes ??= new ChangeLog();
    return this.changes;
  }

  /**
   * Is `host` out of the pool at `nowMs`? Un-ejection happens at sweeps, as in Envoy; when the sweep due by `nowMs`
   * is late (a driver's timer fired late), a host that sweep would return is already answered as available.
   */
  isEjected(host: string, nowMs: number): boolean {
    const h = this.hosts.get(host);
    if (h === undefined || !h.ejected) return false;
    return !(nowMs >= this.nextSweepMs && this.ejectionTimeMs(h) <= nowMs - (h.ejectedAtMs as number));
  }

  /**
   * The hosts a balancer may pick, in the given order. May be empty (maxEjectionPercent 100): what to do then is the
   * balancer's choice (Envoy's panic threshold sends to every host).
   */
  available(hosts: readonly string[], nowMs: number): string[] {
    return hosts.filter((host) => !this.isEjected(host, nowMs));
  }

  /** When sweep() must next be called (absolute ms); Infinity until the detector has been given a time. */
  nextWakeMs(): number {
    return this.nextSweepMs;
  }

  /** Declares pool members (Envoy's cluster membership), so maxEjectionPercent counts hosts not yet seen. */
  addHosts(hosts: Iterable<string>, nowMs: number): void {
    this.startClock(nowMs);
    for (const host of hosts) this.touch(host);
  }

  /** Forgets a host that left the pool; an ejected one ends its ejection (counted in ejectionsForgotten). */
  removeHost(host: string): boolean {
    const h = this.hosts.get(host);
    if (h === undefined) return false;
    this.forget(h);
    return true;
  }

  /** One host's state; undefined for a host not tracked. */
  inspect(host: string): OutlierHostSnapshot | undefined {
    const h = this.hosts.get(host);
    if (h === undefined) return undefined;
    return {
      ejected: h.ejected,
      ejectedAtMs: h.ejectedAtMs,
      ejectionTimeMs: this.ejectionTimeMs(h),
      multiplier: h.multiplier,
      timesEjected: h.timesEjected,
      consecutive5xx: h.consecutive5xx,
      consecutiveGatewayFailure: h.consecutiveGateway,
      requests: h.requests,
      successes: h.successes,
      lastIntervalRequests: h.lastRequests,
      lastIntervalSuccesses: h.lastSuccesses,
    };
  }

  /** Tracked hosts, least recently seen first. */
  trackedHosts(): string[] {
    return Array.from(this.hosts.keys());
  }

  stats(): OutlierStats {
    const d = this.detected;
    const e = this.enforced;
    return {
      ejectionsActive: this.active,
      ejectionsEnforcedTotal:
        e['consecutive-5xx'] + e['consecutive-gateway-failure'] + e['success-rate'] + e['failure-percentage'],
      ejectionsOverflow: this.overflow,
      ejectionsDetectedConsecutive5xx: d['consecutive-5xx'],
      ejectionsEnforcedConsecutive5xx: e['consecutive-5xx'],
      ejectionsDetectedConsecutiveGatewayFailure: d['consecutive-gateway-failure'],
      ejectionsEnforcedConsecutiveGatewayFailure: e['consecutive-gateway-failure'],
      ejectionsDetectedSuccessRate: d['success-rate'],
      ejectionsEnforcedSuccessRate: e['success-rate'],
      ejectionsDetectedFailurePercentage: d['failure-percentage'],
      ejectionsEnforcedFailurePercentage: e['failure-percentage'],
      ejectionsNotEnforced: this.notEnforced,
      unejectionsTotal: this.unejections,
      ejectionsForgotten: this.ejectionsForgotten,
      hostsTracked: this.hosts.size,
      hostsForgotten: this.hostsForgotten,
      sweeps: this.sweeps,
    };
  }

  private startClock(nowMs: number): void {
    if (this.nextSweepMs === Number.POSITIVE_INFINITY) this.nextSweepMs = nowMs + this.cfg.intervalMs;
  }

  /** The host's state, now the most recently seen; a new host may push the least recently seen one out. */
  private touch(key: string): HostState {
    let h = this.hosts.get(key);
    if (h !== undefined) {
      this.hosts.delete(key); // most recently seen goes last
      this.hosts.set(key, h);
      return h;
    }
    if (this.hosts.size >= this.cfg.maxHosts) this.evictOne();
    h = new HostState(key);
    this.hosts.set(key, h);
    return h;
  }

  /** Forgets the least recently seen host that is not ejected; only if every host is ejected, the oldest of them. */
  private evictOne(): void {
    let oldest: HostState | undefined;
    for (const h of this.hosts.values()) {
      if (!h.ejected) {
        this.forget(h);
        return;
      }
      oldest ??= h;
    }
    // @eq outlier-oldest-forget-oldest
    if (oldest !== undefined) this.forget(oldest);
  }

  private forget(h: HostState): void {
    this.hosts.delete(h.key);
    this.hostsForgotten++;
    if (h.ejected) {
      this.active--;
      this.ejectionsForgotten++;
    }
  }
}

function drawOf(draw: Random | number | undefined, reason: EjectionReason, percent: number): number {
  const u = typeof draw === 'object' && draw !== null ? draw.next() : draw;
  if (typeof u !== 'number' || !(u >= 0 && u < 1)) {
    throw new RangeError(
      `OutlierDetector: ${reason} ejection is enforced at ${percent} %, which needs a draw u in [0, 1) (got ${u})`,
    );
  }
  return u;
}
