// Faults in force and per-bin gauges: recomputes services and sources when a fault starts or ends; samples each bin.

import type { LoadShedder } from '../../policy/shed.js';
import type { Metrics } from '../metrics/collector.js';
import type { FaultSpec } from '../scenario/types.js';
import { errorRates, type Instance, type Request, type ServiceRuntime, type TrafficSource } from './records.js';

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

/** Recomputes every service's and source's state from the faults in force (overlapping faults combine). */
export function applyFaults(target: FaultTarget): void {
  const { faults, faultActive } = target;
  for (const service of target.services) {
    let workers = service.spec.shed === null ? null : service.spec.shed.workers;
    service.faultErrors = [];
    service.extraLatencyMs = 0;
    faults.forEach((fault, i) => {
      if (!faultActive[i] || fault.service !== service.spec.name) return;
      if (fault.workers !== null) workers = fault.workers;
      if (fault.errors !== null) service.faultErrors.push(errorRates(fault.errors));
      service.extraLatencyMs += fault.latencyMs;
    });
    if (workers !== null && workers !== service.workers) {
      service.workers = workers;
      for (const instance of service.instances) {
        // The production shedder's own update(): running work above a lowered limit finishes; raised limits fill at once.
        (instance.shedder as LoadShedder<Request>).update({ workers });
        target.drain(instance);
      }
    }
  }
  for (const source of target.sources) {
    let multiplier = 1;
    faults.forEach((fault, i) => {
      if (faultActive[i] && (fault.service === null || fault.service === source.spec.to)) multiplier *= fault.surge;
    });
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
