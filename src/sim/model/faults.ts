// Faults in force and per-bin gauges: recomputes what a fault hits when it starts or ends; samples each bin.

import type { LoadShedder } from '../../policy/admission/shed.js';
import { BIN_MS, type Metrics } from '../metrics/collector.js';
import type { FaultSpec } from '../scenario/types.js';
import { type FaultsInForce, faultStateOver, surgeOver } from './fault-state.js';
import {
  type EdgeRuntime,
  errorRates,
  type Instance,
  type Request,
  type ServiceRuntime,
  type TrafficSource,
} from './records.js';

export interface FaultTarget {
  readonly services: readonly ServiceRuntime[];
  readonly sources: readonly TrafficSource[];
  readonly faults: readonly FaultSpec[];
  readonly faultActive: boolean[];
  /** The faults in force per service and the surges (kept by applyFault). */
  readonly faultsInForce: FaultsInForce;
  /** Gives newly freed workers their queued work. */
  drain(instance: Instance): void;
  /** Draws the next arrival of a source at its current rate. */
  scheduleArrival(source: TrafficSource): void;
}

/**
 * Fault `index` has started or ended (`faultActive` says which): recomputes the state of the instances it hits and,
 * for a surge, of the sources (overlapping faults combine). Nothing else can change, so nothing else is touched:
 * recomputing every instance over every fault at each start and end was quadratic (1,000 instances and 3,000
 * faults did not finish in 30 s).
 */
export function applyFault(target: FaultTarget, index: number): void {
  const { faults, faultActive, faultsInForce } = target;
  const fault = faults[index] as FaultSpec;
  faultsInForce.set(faults, index, faultActive[index] === true);
  const service = fault.service === null ? undefined : target.services.find((s) => s.spec.name === fault.service);
  if (service !== undefined) {
    const inForce = faultsInForce.of(service.spec.name);
    // In instance order, as the drains have always been made.
    const hit =
      fault.instances === null
        ? service.instances
        : [...fault.instances].sort((a, b) => a - b).map((k) => service.instances[k] as Instance);
    for (const instance of hit) {
      // @ko sim-fault-apply-in-force
      const state = faultStateOver(faults, inForce, instance.index);
      const workers = state.workers ?? service.workers;
      instance.faultErrors = state.errors.map(errorRates);
      instance.extraLatencyMs = state.extraLatencyMs;
      if (workers !== null && workers !== instance.workers) {
        instance.workers = workers;
        // The production shedder's own update(): running work above a lowered limit finishes; raised limits fill at once.
        (instance.shedder as LoadShedder<Request>).update({ workers });
        target.drain(instance);
      }
    }
  }
  if (fault.surge === 1) return;
  for (const source of target.sources) {
    const multiplier = surgeOver(faults, faultsInForce.surges, source.spec.to);
    if (multiplier !== source.multiplier) {
      source.multiplier = multiplier;
      source.generation++;
      target.scheduleArrival(source);
    }
  }
}

/** Gauges at a bin's end: queue length, requests in flight, mean budget level of the service's caller instances. */
export function sampleBin(services: readonly ServiceRuntime[], metrics: Metrics, bin: number): void {
  for (const service of services) {
    let queued = 0;
    let tokens = 0;
    let budgets = 0;
    for (const instance of service.instances) {
      if (instance.shedder !== null) queued += instance.shedder.queued;
      for (const edge of instance.edges) {
        sampleGuards(edge, metrics, bin);
        const level = edge.policy.budgetFor('').level();
        if (Number.isFinite(level)) {
          tokens += level;
          budgets++;
        }
      }
    }
    metrics.sample(service.index, bin, queued, service.inFlight, budgets === 0 ? Number.NaN : tokens / budgets);
  }
}

/** The guards' gauges at the bin's end, added over caller instances: hosts ejected, breakers open (refusing all). */
function sampleGuards(edge: EdgeRuntime, metrics: Metrics, bin: number): void {
  const { detector, breaker } = edge.guards;
  const i = edge.id * metrics.binCount + bin;
  if (detector !== null)
    metrics.ejectionsActive[i] = (metrics.ejectionsActive[i] as number) + detector.stats().ejectionsActive;
  if (breaker !== null) {
    // Read without moving the breaker: while open, nextWakeMs() is the end of the break (half-open, a probe's lease).
    const openUntilMs = breaker.stats().state === 'open' ? breaker.nextWakeMs() : Number.POSITIVE_INFINITY;
    if (Number.isFinite(openUntilMs) && openUntilMs > (bin + 1) * BIN_MS) {
      metrics.breakersOpen[i] = (metrics.breakersOpen[i] as number) + 1;
    }
  }
}
