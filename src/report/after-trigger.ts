// What the reports say about the window after the trigger: the one load figure, its name, and late recoveries.

import type { RunSummary, SimulationResult } from './result.js';
import { afterTriggerWindow } from './result.js';

/**
 * The one load figure of a result, as the terminal table, its legend, report.html's verdict and its summary table all
 * name and show it: attempts arriving at a service per user request, in the window after the trigger (`after`, else
 * the first window starting after the trigger ends), or over the whole run (`total`) when there is none.
 */
export interface LoadFigure {
  /** The key of `amplification[service]` the figure reads: a window name, or `total`. */
  window: string;
  /** "after the trigger" or "over the whole run". */
  when: string;
}

export function loadFigure(result: Pick<SimulationResult, 'windows' | 'runs'>): LoadFigure {
  const after = afterTriggerWindow(result);
  // @ko report-one-load-figure
  return after === null
    ? { window: 'total', when: 'over the whole run' }
    : { window: after, when: 'after the trigger' };
}

/** The figure's name for a service: "member-api load". */
export function loadName(service: string): string {
  return `${service} load`;
}

/** One run's figure at `service` (undefined when the run did not report it). */
export function loadOf(
  run: Pick<RunSummary, 'amplification'>,
  service: string,
  figure: LoadFigure,
): number | undefined {
  return run.amplification[service]?.[figure.window];
}

/**
 * A recovery that came only once the after-trigger window had ended (checkout-incident's budget-only: 0 % success
 * in `after`, recovered 18 s after the trigger): the window's success does not show it, so the recovery is named
 * "late" wherever it is shown. `recoveryS` is the run's (or the slowest seed's) recovery time; false without one.
 */
export function recoveredLate(
  result: Pick<SimulationResult, 'windows' | 'runs'>,
  trigger: RunSummary['trigger'],
  recoveryS: number | null,
): boolean {
  if (trigger === null || recoveryS === null) return false;
  const window = afterTriggerWindow(result);
  const end = window === null ? undefined : result.windows[window]?.[1];
  // @ko report-late-recovery
  return end !== undefined && trigger.endS + recoveryS >= end;
}
