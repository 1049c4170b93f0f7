// OpenTelemetry instruments of the client's upstream policies (breaker, limits, outlier detection, balancer), Envoy-named.

import { MAX_TRACKED_UPSTREAMS } from '../../policy/retry/retry.js';
import type { Balancer } from '../../policy/upstream/balancer.js';
import type { CircuitBreaker } from '../../policy/upstream/breaker.js';
import type { ConcurrencyBreaker } from '../../policy/upstream/concurrency.js';
import type { OutlierDetector } from '../../policy/upstream/outlier.js';
import type { AdaptiveThrottle } from '../../policy/upstream/throttle.js';
import { monotonicNowMs } from '../clock.js';
import { SummedSources } from '../telemetry-sum.js';
import { UPSTREAM_REFUSALS, type UpstreamScope, type UpstreamStats, type Upstreams } from './scopes.js';

type Attributes = Record<string, string>;
interface ObservableLike {
  addCallback(callback: (result: { observe(value: number, attributes?: Attributes): void }) => void): void;
}
/** The parts of an OpenTelemetry Meter these instruments use (the up-down counters are skipped on a meter without them). */
export interface UpstreamMeterLike {
  createObservableCounter(name: string, options?: { description?: string; unit?: string }): ObservableLike;
  createObservableUpDownCounter?(name: string, options?: { description?: string; unit?: string }): ObservableLike;
}

type Read = (s: UpstreamStats) => number;

/**
 * Envoy's `cluster.<name>.*` names where Envoy has the signal, with the attribute `seawall.upstream` (the scope's name).
 * The seed's three signals: upstream_rq_pending_overflow (a breaker is tripping), outlier_detection.ejections_active
 * (hosts taken out), and the policy's own upstream_rq_retry / upstream_rq (telemetry.ts).
 */
export const UPSTREAM_COUNTERS: ReadonlyArray<[name: string, read: Read, description: string]> = [
  [
    'seawall.upstream_rq_pending_overflow',
    (s) => s.limits?.pendingOverflow ?? 0,
    'Attempts failed fast at limits.maxPendingRequests or maxRequests (Envoy upstream_rq_pending_overflow)',
  ],
  [
    'seawall.circuit_breakers.rq_retry_overflow',
    (s) => s.limits?.retryOverflow ?? 0,
    'Retries refused by limits.maxRetries or its retry budget (Envoy adds these into upstream_rq_retry_overflow)',
  ],
  ['seawall.circuit_breaker.opened', (s) => s.circuitBreaker?.opened ?? 0, 'Times the circuit breaker opened'],
  [
    'seawall.circuit_breaker.rejected',
    (s) => s.circuitBreaker?.rejected ?? 0,
    'Attempts the circuit breaker failed fast (open or half-open with every probe out)',
  ],
  [
    'seawall.adaptive_throttle.rejected',
    (s) => s.throttle?.throttled ?? 0,
    "Attempts the adaptive throttle refused locally (the callee's recent overload answers)",
  ],
  [
    'seawall.outlier_detection.ejections_enforced_total',
    (s) => s.outlierDetection?.ejectionsEnforcedTotal ?? 0,
    'Endpoints ejected (Envoy outlier_detection.ejections_enforced_total)',
  ],
  [
    'seawall.outlier_detection.ejections_overflow',
    (s) => s.outlierDetection?.ejectionsOverflow ?? 0,
    'Ejections refused by maxEjectionPercent (Envoy outlier_detection.ejections_overflow)',
  ],
  [
    'seawall.lb_healthy_panic',
    (s) => s.loadBalancer?.panics ?? 0,
    'Picks made ignoring ejections: too few endpoints left (Envoy lb_healthy_panic)',
  ],
];

export const UPSTREAM_GAUGES: ReadonlyArray<[name: string, read: Read, description: string]> = [
  [
    'seawall.outlier_detection.ejections_active',
    (s) => s.outlierDetection?.ejectionsActive ?? 0,
    'Endpoints ejected now (Envoy outlier_detection.ejections_active)',
  ],
  [
    'seawall.circuit_breakers.open',
    (s) => (s.circuitBreaker?.state === 'open' ? 1 : 0),
    'Circuit breakers open now (one per upstream)',
  ],
  [
    'seawall.upstream_rq_active',
    (s) => s.limits?.activeRequests ?? 0,
    'Attempts holding a request slot (Envoy upstream_rq_active)',
  ],
  [
    'seawall.upstream_rq_pending_active',
    (s) => s.limits?.pendingRequests ?? 0,
    'Attempts waiting for a connection (Envoy upstream_rq_pending_active)',
  ],
];

const FIELDS = [...UPSTREAM_COUNTERS, ...UPSTREAM_GAUGES];
const MONOTONIC = FIELDS.map((_, i) => i < UPSTREAM_COUNTERS.length);
const NO_FIELDS: number[] = [];

/** What a policy object is, so that its own stats are read (each instrument reads one kind). */
type Kind = 'breaker' | 'limits' | 'outlier' | 'balancer' | 'throttle';
type Policy = CircuitBreaker | ConcurrencyBreaker | OutlierDetector | Balancer | AdaptiveThrottle;

/** The stats of one policy object, as the part of an UpstreamStats its instruments read (the rest empty). */
function readPolicy(policy: Policy, kind: Kind, nowMs: number): number[] {
  const stats: UpstreamStats = {
    upstream: '',
    attempts: 0,
    retries: 0,
    refused: NO_REFUSALS,
    circuitBreaker: null,
    limits: null,
    loadBalancer: null,
    outlierDetection: null,
    throttle: null,
    endpoints: [],
  };
  if (kind === 'breaker') {
    const breaker = policy as CircuitBreaker;
    breaker.state(nowMs); // an open breaker whose break has passed is half-open now
    stats.circuitBreaker = breaker.stats();
  } else if (kind === 'limits') stats.limits = (policy as ConcurrencyBreaker).stats();
  else if (kind === 'outlier') stats.outlierDetection = (policy as OutlierDetector).stats();
  else if (kind === 'throttle') stats.throttle = (policy as AdaptiveThrottle).stats(nowMs);
  else stats.loadBalancer = (policy as Balancer).stats();
  return FIELDS.map(([, read]) => read(stats));
}
const NO_REFUSALS = Object.freeze(Object.fromEntries(UPSTREAM_REFUSALS.map((r) => [r, 0]))) as UpstreamStats['refused'];

/** One `seawall.upstream` name on one meter: the policy objects exported under it, and the scopes that sweep them. */
interface Group {
  readonly attributes: Attributes;
  /**
   * Each policy object once, whichever scopes and clients hold it: a CircuitBreaker shared by two clients of one name
   * is one breaker (summing per scope would count its openings twice).
   */
  readonly policies: SummedSources<Policy>;
  /** The scopes of this name, for the outlier detector's lazy sweep before its gauge is read. */
  readonly scopes: SummedSources<UpstreamScope>;
}

/**
 * The scopes exported on one meter, summed per `seawall.upstream` name. The names are bounded: a client keyed per
 * origin forgets scopes (Upstreams keeps 1,024), and past MAX_TRACKED_UPSTREAMS names the oldest ones left with
 * nothing live are dropped, so a stream of new origins cannot grow memory or the series exported.
 */
class UpstreamInstruments {
  private readonly byName = new Map<string, Group>();
  private readonly kinds = new WeakMap<Policy, Kind>();
  private readonly registered = new WeakSet<Upstreams>();

  constructor(meter: UpstreamMeterLike) {
    FIELDS.forEach(([name, , description], i) => {
      const counter = i < UPSTREAM_COUNTERS.length;
      const options = { description, unit: counter ? '{request}' : '{item}' };
      const instrument = counter
        ? meter.createObservableCounter(name, options)
        : meter.createObservableUpDownCounter?.(name, options);
      instrument?.addCallback((result) => {
        const now = monotonicNowMs();
        for (const group of this.byName.values()) {
          group.scopes.totals((scope) => {
            scope.wake(now);
            return NO_FIELDS;
          });
          const totals = group.policies.totals((policy) => readPolicy(policy, this.kinds.get(policy) as Kind, now));
          result.observe(totals[i] as number, group.attributes);
        }
      });
    });
  }

  /** Exports `upstreams` (once per meter): its scopes now and to come, forgetting those it forgets. */
  register(upstreams: Upstreams): void {
    if (this.registered.has(upstreams)) return;
    this.registered.add(upstreams);
    upstreams.watch({
      added: (scope) => this.add(upstreams, scope),
      forgotten: (scope) => this.forget(upstreams, scope),
    });
  }

  private add(upstreams: Upstreams, scope: UpstreamScope): void {
    this.group(scope.name).scopes.add(scope);
    for (const [policy, kind] of policiesOf(scope)) {
      this.kinds.set(policy, kind);
      // A shared instance is one policy of the client, under the client's name (not under each per-key scope's).
      this.group(upstreams.isShared(policy) ? upstreams.name : scope.name).policies.add(policy);
    }
  }

  /** A scope the client forgot: its own policies leave its group; what they counted stays in the counters. */
  private forget(upstreams: Upstreams, scope: UpstreamScope): void {
    const group = this.byName.get(scope.name);
    if (group === undefined) return;
    group.scopes.delete(scope);
    for (const [policy] of policiesOf(scope)) if (!upstreams.isShared(policy)) group.policies.delete(policy);
  }

  private group(name: string): Group {
    const byName = this.byName;
    let group = byName.get(name);
    if (group !== undefined) return group;
    group = {
      attributes: { 'seawall.upstream': name },
      policies: new SummedSources(MONOTONIC),
      scopes: new SummedSources<UpstreamScope>([]),
    };
    byName.set(name, group);
    if (byName.size > MAX_TRACKED_UPSTREAMS) {
      // Oldest first; a name with a live policy keeps its series.
      for (const [old, g] of byName) {
        if (byName.size <= MAX_TRACKED_UPSTREAMS) break;
        if (g !== group && g.policies.size === 0 && g.scopes.size === 0) byName.delete(old);
      }
    }
    return group;
  }
}

function policiesOf(scope: UpstreamScope): Array<[Policy, Kind]> {
  const out: Array<[Policy, Kind]> = [];
  if (scope.breaker !== null) out.push([scope.breaker, 'breaker']);
  if (scope.limits !== null) out.push([scope.limits, 'limits']);
  if (scope.outlier !== null) out.push([scope.outlier, 'outlier']);
  if (scope.balancer !== null) out.push([scope.balancer, 'balancer']);
  if (scope.throttle !== null) out.push([scope.throttle, 'throttle']);
  return out;
}

const instruments = new WeakMap<object, UpstreamInstruments>();

/**
 * Exports the scopes of `upstreams` on `meter` (instruments created once per meter; policies held weakly, so a client
 * discarded stops being read and its counters keep their last values).
 */
export function registerUpstreamMetrics(meter: UpstreamMeterLike, upstreams: Upstreams | null): void {
  if (upstreams === null) return;
  let state = instruments.get(meter);
  if (state === undefined) instruments.set(meter, (state = new UpstreamInstruments(meter)));
  state.register(upstreams);
}
