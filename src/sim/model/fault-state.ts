// What the faults in force do to one instance and one traffic source: the one rule the simulator and the lab apply.

import type { ErrorSpec, FaultSpec } from '../scenario/types.js';

/** One instance's state while some faults hold (overlapping faults combine). */
export interface FaultState {
  /** Workers in force (the last active fault that sets them wins), or null = the service's own. */
  workers: number | null;
  /** Fast errors of the active faults, in fault order, drawn before the service's own. */
  errors: ErrorSpec[];
  /** Extra work time per execution: the active faults' latencies added up. */
  extraLatencyMs: number;
}

/** The state of instance `instance` of `service` while the faults flagged in `active` hold. */
export function faultStateFor(
  faults: readonly FaultSpec[],
  active: readonly boolean[],
  service: string,
  instance: number,
): FaultState {
  const state: FaultState = { workers: null, errors: [], extraLatencyMs: 0 };
  faults.forEach((fault, i) => {
    if (!active[i] || fault.service !== service) return;
    // A fault hits the instances it lists, or all of them.
    // @ko sim-fault-per-instance
    if (fault.instances !== null && !fault.instances.includes(instance)) return;
    if (fault.workers !== null) state.workers = fault.workers;
    if (fault.errors !== null) state.errors.push(fault.errors);
    state.extraLatencyMs += fault.latencyMs;
  });
  return state;
}

/** How many times its normal rate traffic into `to` arrives while the faults flagged in `active` hold. */
export function surgeFor(faults: readonly FaultSpec[], active: readonly boolean[], to: string): number {
  let multiplier = 1;
  faults.forEach((fault, i) => {
    if (active[i] && (fault.service === null || fault.service === to)) multiplier *= fault.surge;
  });
  return multiplier;
}
