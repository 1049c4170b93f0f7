// The simulator's result as the reports see it (the sim⇄CLI contract), and its JSON summary form.

// The types are the simulator's own: one definition, so a report can never drift from what the simulator produces.
export type { RunSummary, SimulationResult, TimeseriesRow } from '../sim/index.js';

import type { SimulationResult } from '../sim/index.js';

/** What `--json` prints and summary.json holds: the result without its time series, key order kept. */
export type SimulationSummary = Omit<SimulationResult, 'timeseries'>;

export function toSummary(result: SimulationResult): SimulationSummary {
  const { timeseries: _timeseries, ...summary } = result;
  return summary;
}

/** The summary as one JSON document (2-space indent, trailing newline). */
export function summaryJson(result: SimulationResult): string {
  return `${JSON.stringify(toSummary(result), null, 2)}\n`;
}

/** Window names in the result's order (e.g. before, during, after). */
export function windowNames(result: Pick<SimulationResult, 'windows'>): string[] {
  return Object.keys(result.windows);
}

/** Services in the order the runs report them (first appearance wins), for stable columns. */
export function serviceNames(result: Pick<SimulationResult, 'runs' | 'timeseries'>): string[] {
  const seen = new Set<string>();
  for (const run of result.runs) for (const service of Object.keys(run.amplification)) seen.add(service);
  for (const row of result.timeseries) seen.add(row.service);
  return [...seen];
}

/**
 * The window that shows the load after the trigger (the README's "member-api load after the trigger"): the one named
 * `after`, else the first that starts at or after the end of the first run's trigger; null when there is none.
 */
export function afterTriggerWindow(result: Pick<SimulationResult, 'windows' | 'runs'>): string | null {
  if ('after' in result.windows) return 'after';
  const trigger = result.runs.find((r) => r.trigger !== null)?.trigger;
  if (trigger === undefined || trigger === null) return null;
  const found = Object.entries(result.windows).find(([, [startS]]) => startS >= trigger.endS);
  return found === undefined ? null : found[0];
}

/** The interval to shade as the trigger: the `during` window when the scenario has one. */
export function triggerInterval(result: Pick<SimulationResult, 'windows'>): [number, number] | null {
  return result.windows.during ?? null;
}
