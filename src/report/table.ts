// The terminal summary of a simulation: a 100-column table of the figures a user needs first, or --wide for all.

import { recoveryOverSeeds } from '../sim/metrics/verdict.js';
import { afterTriggerWindow, type RunSummary, type SimulationResult, serviceNames, windowNames } from './result.js';
import { formatMeanSpread, meanSpread } from './seed-stats.js';
import {
  CONTROL,
  DEFAULT_TABLE_WIDTH,
  fitTextTable,
  packParts,
  type TableOptions,
  type TextCell,
  type TextColumn,
  type Tone,
  wrapText,
} from './text-table.js';

export {
  DEFAULT_TABLE_WIDTH,
  fitTextTable,
  renderTextTable,
  type TableOptions,
  type TextCell,
  type TextColumn,
  type Tone,
} from './text-table.js';

/** Formats a fraction in [0, 1] as a percentage with one decimal; non-finite -> "-". */
export function formatPercent(fraction: number | null | undefined): string {
  return typeof fraction === 'number' && Number.isFinite(fraction) ? (fraction * 100).toFixed(1) : '-';
}

export function formatMs(ms: number | null | undefined): string {
  return typeof ms === 'number' && Number.isFinite(ms) ? String(Math.round(ms)) : '-';
}

export function formatRatio(x: number | null | undefined): string {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(2) : '-';
}

/** Seconds with one decimal; null -> "never" (use formatRunRecovery when the run may have had no trigger). */
export function formatRecovery(seconds: number | null | undefined): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds.toFixed(1) : 'never';
}

/** What a run's recovery reads as: seconds, "never", or "no trigger" when it had no fault to recover from. */
export function formatRunRecovery(run: Pick<RunSummary, 'trigger' | 'recoverySeconds'>): string {
  // @ko table-no-trigger
  return run.trigger === null ? 'no trigger' : formatRecovery(run.recoverySeconds);
}

function successTone(fraction: number | undefined): Tone {
  if (fraction === undefined || !Number.isFinite(fraction) || fraction < 0.5) return 'bad';
  return fraction >= 0.99 ? 'good' : 'warn';
}

function recoveryCell(run: RunSummary): TextCell {
  const text = formatRunRecovery(run);
  return run.trigger !== null && run.recoverySeconds === null ? { text, tone: 'bad' } : text;
}

/** What the table is built from, beyond the result: the windows, services and the load column's service. */
interface Shape {
  windows: string[];
  services: string[];
  /** The deepest service (the one whose load the compact table shows), or null when runs disagree on it. */
  deepest: string | null;
  /** The window the load column reads: the one after the trigger, else `total`. */
  loadWindow: string;
  seeds: number[];
  /** Call edges in the order the runs report them. */
  edges: string[];
  wide: boolean;
}

function shapeOf(result: Pick<SimulationResult, 'windows' | 'runs' | 'timeseries'>, wide: boolean): Shape {
  const deepest = [...new Set(result.runs.map((r) => r.deepestService))];
  return {
    windows: windowNames(result),
    services: serviceNames(result),
    deepest: deepest.length === 1 ? (deepest[0] as string) : null,
    loadWindow: afterTriggerWindow(result) ?? 'total',
    seeds: [...new Set(result.runs.map((r) => r.seed))],
    edges: [...new Set(result.runs.flatMap((r) => Object.keys(r.edges)))],
    wide,
  };
}

const VARIANT: TextColumn = { header: 'variant', align: 'left', shrinkTo: 14 };
const SEED: TextColumn = { header: 'seed', align: 'right' };

function columnsOf(shape: Shape): TextColumn[] {
  const { windows, services, wide } = shape;
  if (!wide) {
    // Left out first when 100 columns are not enough: the success of the later windows, then of the earlier ones
    // (the window after the trigger stays longest), then waste.
    const priority = (w: string, i: number) => (w === shape.loadWindow ? 15 : 10 - i);
    return [
      VARIANT,
      ...(shape.seeds.length > 1 ? [SEED] : []),
      ...windows.map(
        (w, i): TextColumn => ({ header: w, group: 'success %', align: 'right', priority: priority(w, i) }),
      ),
      { header: shape.loadWindow, group: `${shape.deepest ?? 'deepest'} ×`, align: 'right' },
      { header: 'recovery s', align: 'right' },
      { header: 'wasted %', align: 'right', priority: 20 },
    ];
  }
  return [
    VARIANT,
    SEED,
    ...windows.map((w): TextColumn => ({ header: w, group: 'success %', align: 'right' })),
    ...windows.map((w): TextColumn => ({ header: w, group: 'p99 ms', align: 'right' })),
    ...windows.map((w): TextColumn => ({ header: w, group: 'goodput /s', align: 'right' })),
    ...services.flatMap((s) =>
      [...windows, 'total'].map((w): TextColumn => ({ header: w, group: `${s} ×`, align: 'right' })),
    ),
    { header: 'recovery s', align: 'right' },
    { header: 'wasted %', align: 'right' },
    { header: 'max', group: 'retry radius', align: 'right' },
    { header: 'mean', group: 'retry radius', align: 'right' },
    ...shape.edges.map((e): TextColumn => ({ header: e, group: 'retry %', align: 'right' })),
  ];
}

/** One run's row, matching columnsOf. */
function runRow(run: RunSummary, shape: Shape): TextCell[] {
  const { windows, services, edges } = shape;
  const success = windows.map(
    (w): TextCell => ({
      text: formatPercent(run.successRate[w]),
      tone: successTone(run.successRate[w]),
    }),
  );
  if (!shape.wide) {
    return [
      run.variant,
      ...(shape.seeds.length > 1 ? [String(run.seed)] : []),
      ...success,
      // @ko table-load-after-trigger
      formatRatio(run.amplification[run.deepestService]?.[shape.loadWindow]),
      recoveryCell(run),
      formatPercent(run.wastedWorkFraction),
    ];
  }
  return [
    run.variant,
    String(run.seed),
    ...success,
    ...windows.map((w) => formatMs(run.p99Ms[w])),
    ...windows.map((w) => formatRatio(run.goodputPerS[w])),
    ...services.flatMap((s) => [...windows, 'total'].map((w) => formatRatio(run.amplification[s]?.[w]))),
    recoveryCell(run),
    formatPercent(run.wastedWorkFraction),
    String(run.retryRadius.max),
    formatRatio(run.retryRadius.mean),
    ...edges.map((e) => formatPercent(run.edges[e]?.retryRatio)),
  ];
}

/** A variant's recovery over seeds (the one verdict, recoveryOverSeeds): its slowest seed, or how many never did. */
function recoveryOverSeedsCell(runs: readonly RunSummary[]): TextCell {
  const { verdict, triggered, recovered, slowestS } = recoveryOverSeeds(runs);
  if (verdict === 'no-trigger') return 'no trigger';
  if (verdict === 'never') return { text: 'never', tone: 'bad' };
  if (verdict === 'some-seeds') return { text: `${triggered - recovered}/${triggered} never`, tone: 'bad' };
  return `≤${(slowestS as number).toFixed(1)}`;
}

/** The "mean" row of a variant run with several seeds: each figure as mean±spread (seed-stats.ts). */
function meanRow(runs: readonly RunSummary[], shape: Shape): TextCell[] {
  const first = runs[0] as RunSummary;
  const pct = (pick: (r: RunSummary) => number | undefined): string =>
    formatMeanSpread(runs.map(pick), (x) => formatPercent(x));
  const ratio = (pick: (r: RunSummary) => number | undefined): string =>
    formatMeanSpread(runs.map(pick), (x) => formatRatio(x));
  const success = shape.windows.map((w): TextCell => {
    const stats = meanSpread(runs.map((r) => r.successRate[w]));
    return { text: pct((r) => r.successRate[w]), tone: successTone(stats?.mean) };
  });
  const recovery = recoveryOverSeedsCell(runs);
  const wasted = pct((r) => r.wastedWorkFraction);
  if (!shape.wide) {
    const load = ratio((r) => r.amplification[r.deepestService]?.[shape.loadWindow]);
    return [first.variant, 'mean', ...success, load, recovery, wasted];
  }
  return [
    first.variant,
    'mean',
    ...success,
    ...shape.windows.map((w) =>
      formatMeanSpread(
        runs.map((r) => r.p99Ms[w]),
        formatMs,
      ),
    ),
    ...shape.windows.map((w) => ratio((r) => r.goodputPerS[w])),
    ...shape.services.flatMap((s) => [...shape.windows, 'total'].map((w) => ratio((r) => r.amplification[s]?.[w]))),
    recovery,
    wasted,
    formatMeanSpread(
      runs.map((r) => r.retryRadius.max),
      (x) => x.toFixed(1),
    ),
    ratio((r) => r.retryRadius.mean),
    ...shape.edges.map((e) => pct((r) => r.edges[e]?.retryRatio)),
  ];
}

/** The columns of the summary table for this result (compact unless `wide`). */
export function summaryColumns(
  result: Pick<SimulationResult, 'windows' | 'runs' | 'timeseries'>,
  options: { wide?: boolean } = {},
): TextColumn[] {
  return columnsOf(shapeOf(result, options.wide === true));
}

/** The rows: one per run, in the result's order, and after a variant's runs a mean row when several seeds ran. */
function summaryRows(result: SimulationResult, shape: Shape): TextCell[][] {
  const rows: TextCell[][] = [];
  const variants = [...new Set(result.runs.map((r) => r.variant))];
  for (const variant of variants) {
    const runs = result.runs.filter((r) => r.variant === variant);
    for (const run of runs) rows.push(runRow(run, shape));
    // @ko table-mean-rows
    if (runs.length > 1) rows.push(meanRow(runs, shape));
  }
  return rows;
}

/** One line naming the scenario, its windows and the engine's effort. */
export function summaryHeadline(result: SimulationResult): string {
  return headlineParts(result).join('; ');
}

function headlineParts(result: SimulationResult): string[] {
  const windows = Object.entries(result.windows)
    .map(([name, [from, to]]) => `${name} ${from}-${to} s`)
    .join(', ');
  const events = result.engine.events.toLocaleString('en-US');
  const wallS = (result.engine.wallMs / 1000).toFixed(2);
  const runs = `${result.runs.length} run${result.runs.length === 1 ? '' : 's'}`;
  const seeds = [...new Set(result.runs.map((r) => r.seed))];
  const seedText = `seed${seeds.length === 1 ? '' : 's'} ${seeds.join(', ')}`;
  return [
    `${result.scenario}: ${result.durationS} s simulated`,
    `windows ${windows || 'none'}`,
    `${runs} (${seedText}), ${events} events in ${wallS} s`,
  ].map((part) => part.replace(CONTROL, '?'));
}

/** The lines under the table: what the load column and the mean rows are, and what was left out to fit. */
function legend(shape: Shape, hidden: readonly string[], width: number): string[] {
  const notes: string[] = [];
  if (!shape.wide) {
    const service = shape.deepest ?? 'the deepest service';
    const when = shape.loadWindow === 'total' ? 'over the whole run' : `in the ${shape.loadWindow} window`;
    notes.push(`${service} ×: attempts arriving at ${service} per user request, ${when}.`);
  }
  if (shape.seeds.length > 1) {
    notes.push(
      "mean rows: mean±spread over the seeds; spread is the largest distance of a seed from the mean; recovery is the slowest seed's (≤).",
    );
  }
  if (hidden.length > 0)
    notes.push(`Left out to fit ${width} columns: ${hidden.join(', ')} (--wide shows every column).`);
  else if (!shape.wide) notes.push('--wide shows every column: p99, goodput, load at every service and window.');
  return notes.flatMap((n) => wrapText(n, width, '  '));
}

export interface SummaryTableOptions extends TableOptions {
  /** Every column (every service, every window, p99s), no width limit. Default: fit DEFAULT_TABLE_WIDTH. */
  wide?: boolean;
}

/** The whole terminal summary: headline, blank line, table, legend. */
export function formatSummaryTable(result: SimulationResult, options: SummaryTableOptions = {}): string {
  const shape = shapeOf(result, options.wide === true);
  const width = options.wide === true ? Number.POSITIVE_INFINITY : (options.maxWidth ?? DEFAULT_TABLE_WIDTH);
  const headline = shape.wide ? [summaryHeadline(result)] : packParts(headlineParts(result), width);
  const table = fitTextTable(summaryColumns(result, { wide: shape.wide }), summaryRows(result, shape), {
    ...(options.color !== undefined ? { color: options.color } : {}),
    maxWidth: width,
  });
  return `${headline.join('\n')}\n\n${table.text}\n${legend(shape, table.hidden, width).join('\n')}\n`;
}
