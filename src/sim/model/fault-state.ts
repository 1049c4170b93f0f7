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

/** Adds one fault in force to an instance's state, if it hits the instance. */
function addFault(state: FaultState, fault: FaultSpec, instance: number): void {
  // A fault hits the instances it lists, or all of them.
  // @ko sim-fault-per-instance
  if (fault.instances !== null && !fault.instances.includes(instance)) return;
  if (fault.workers !== null) state.workers = fault.workers;
  if (fault.errors !== null) state.errors.push(fault.errors);
  state.extraLatencyMs += fault.latencyMs;
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
    if (active[i] && fault.service === service) addFault(state, fault, instance);
  });
  return state;
}

/**
 * The same state from the indices of the service's faults in force, ascending (FaultsInForce): the simulator's
 * form, whose cost is the faults in force, not all the scenario's faults.
 */
export function faultStateOver(faults: readonly FaultSpec[], inForce: readonly number[], instance: number): FaultState {
  const state: FaultState = { workers: null, errors: [], extraLatencyMs: 0 };
  for (const i of inForce) addFault(state, faults[i] as FaultSpec, instance);
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

/** The same multiplier from the indices of the surge faults in force, ascending. */
export function surgeOver(faults: readonly FaultSpec[], inForce: readonly number[], to: string): number {
  let multiplier = 1;
  for (const i of inForce) {
    const fault = faults[i] as FaultSpec;
    if (fault.service === null || fault.service === to) multiplier *= fault.surge;
  }
  return multiplier;
}

/**
 * The faults in force, kept as they start and end: per service, and the surges, each as ascending fault indices
 * (fault order decides which workers win and the order errors are drawn in).
 */
export class FaultsInForce {
  private readonly byService = new Map<string, number[]>();
  readonly surges: number[] = [];

  /** The service's faults in force, ascending. */
  of(service: string): readonly number[] {
    return this.byService.get(service) ?? [];
  }

  /** Fault `index` starts (`on`) or ends. */
  set(faults: readonly FaultSpec[], index: number, on: boolean): void {
    const fault = faults[index] as FaultSpec;
    if (fault.service !== null) {
      let list = this.byService.get(fault.service);
      if (list === undefined) this.byService.set(fault.service, (list = []));
      toggle(list, index, on);
    }
    if (fault.surge !== 1) toggle(this.surges, index, on);
  }
}

/** Inserts `index` into (or removes it from) an ascending list. */
function toggle(list: number[], index: number, on: boolean): void {
  let at = list.length;
  while (at > 0 && (list[at - 1] as number) >= index) at--;
  const present = list[at] === index;
  if (on && !present) list.splice(at, 0, index);
  else if (!on && present) list.splice(at, 1);
}
