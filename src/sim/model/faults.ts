// Faults in force and per-bin gauges: recomputes instances and sources when a fault starts or ends; samples each bin.

import type { LoadShedder } from '../../policy/admission/shed.js';
import { BIN_MS, type Metrics } from '../metrics/collector.js';
import type { FaultSpec } from '../scenario/types.js';
import { faultStateFor, surgeFor } from './fault-state.js';
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
  /** Gives newly freed workers their queued work. */
  drain(instance: Instance): void;
  /** Draws the next arrival of a source at its current rate. */
  scheduleArrival(source: TrafficSource): void;
}

/** Recomputes every instance's and source's state from the faults in force (overlapping faults combine). */
export function applyFaults(target: FaultTarget): void {
  const { faults, faultActive } = target;
  for (const service of target.services) {
    for (const instance of service.instances) {
      const state = faultStateFor(faults, faultActive, service.spec.name, instance.index);
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
  for (const source of target.sources) {
    const multiplier = surgeFor(faults, faultActive, source.spec.to);
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
