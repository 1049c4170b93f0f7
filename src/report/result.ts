// The simulator's result as the reports see it (the sim⇄CLI contract), and its JSON summary form.

/** One variant × seed: the figures the summary table, summary.json and the HTML table show. */
export interface RunSummary {
  variant: string;
  seed: number;
  userRequests: number;
  successRate: Record<string, number>;
  p99Ms: Record<string, number>;
  goodputPerS: Record<string, number>;
  /** service -> window name or 'total' -> attempts at that service per user request. */
  amplification: Record<string, Record<string, number>>;
  recoverySeconds: number | null;
  wastedWorkFraction: number;
}

/** One 1 s bin of one service in one variant × seed run. */
export interface TimeseriesRow {
  variant: string;
  seed: number;
  /** Bin start, s. */
  t: number;
  service: string;
  arrivals: number;
  /** Entry service only, else null. */
  successRate: number | null;
  goodput: number | null;
  queueLength: number;
  inFlight: number;
  wasted: number;
  budgetTokens: number | null;
}

export interface SimulationResult {
  scenario: string;
  durationS: number;
  windows: Record<string, [number, number]>;
  engine: { events: number; wallMs: number };
  runs: RunSummary[];
  timeseries: TimeseriesRow[];
}

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

/** The interval to shade as the trigger: the `during` window when the scenario has one. */
export function triggerInterval(result: Pick<SimulationResult, 'windows'>): [number, number] | null {
  return result.windows.during ?? null;
}
