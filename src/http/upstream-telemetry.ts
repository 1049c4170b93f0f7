// OpenTelemetry instruments of the client's upstream policies (breaker, limits, outlier detection, balancer), Envoy-named.

import { SummedSources } from './telemetry-sum.js';
import type { UpstreamScope, UpstreamStats, Upstreams } from './upstream.js';

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

function readScope(scope: UpstreamScope): number[] {
  const stats = scope.stats(Date.now());
  return FIELDS.map(([, read]) => read(stats));
}

/** The scopes exported on one meter, summed per `seawall.upstream` name (every client's scopes of one name add up). */
class UpstreamInstruments {
  private readonly byName = new Map<string, { attributes: Attributes; scopes: SummedSources<UpstreamScope> }>();

  constructor(meter: UpstreamMeterLike) {
    FIELDS.forEach(([name, , description], i) => {
      const counter = i < UPSTREAM_COUNTERS.length;
      const options = { description, unit: counter ? '{request}' : '{item}' };
      const instrument = counter
        ? meter.createObservableCounter(name, options)
        : meter.createObservableUpDownCounter?.(name, options);
      instrument?.addCallback((result) => {
        for (const { attributes, scopes } of this.byName.values()) {
          result.observe(scopes.totals(readScope)[i] as number, attributes);
        }
      });
    });
  }

  add(scope: UpstreamScope): void {
    let group = this.byName.get(scope.name);
    if (group === undefined) {
      group = { attributes: { 'seawall.upstream': scope.name }, scopes: new SummedSources(MONOTONIC) };
      this.byName.set(scope.name, group);
    }
    group.scopes.add(scope);
  }
}

const instruments = new WeakMap<object, UpstreamInstruments>();

/**
 * Exports the scopes of `upstreams` on `meter` (instruments created once per meter; scopes held weakly, so a scope the
 * client forgot stops being read and its counters keep their last values).
 */
export function registerUpstreamMetrics(meter: UpstreamMeterLike, upstreams: Upstreams | null): void {
  if (upstreams === null) return;
  let state = instruments.get(meter);
  if (state === undefined) instruments.set(meter, (state = new UpstreamInstruments(meter)));
  const target = state;
  upstreams.watch((scope) => target.add(scope));
}
