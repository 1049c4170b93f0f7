// The terminal summary of a simulation: a table of the figures a user needs first that fits the terminal, or --wide.

import { recoveryOverSeeds } from '../sim/metrics/verdict.js';
import { type LoadFigure, loadFigure, loadName, loadOf, recoveredLate } from './after-trigger.js';
import { type RunSummary, type SimulationResult, serviceNames, windowNames } from './result.js';
import { formatMeanSpread, meanSpread } from './seed-stats.js';
import { legendLines, tiesOf } from './table-legend.js';
import {
  CONTROL,
  fitTextTable,
  packParts,
  type TableOptions,
  TERMINAL_COLUMNS,
  type TextCell,
  type TextColumn,
  type Tone,
} from './text-table.js';

const cellTextOf = (cell: TextCell): string => (typeof cell === 'string' ? cell : cell.text);

export {
  DEFAULT_TABLE_WIDTH,
  fitTextTable,
  renderTextTable,
  type TableOptions,
  TERMINAL_COLUMNS,
  type TextCell,
  type TextColumn,
  type Tone,
  terminalWidth,
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

/** The word a recovery gets when it came only after the after-trigger window (recoveredLate). */
const LATE = 'late';

function recoveryCell(run: RunSummary, shape: Shape): TextCell {
  const text = formatRunRecovery(run);
  if (run.trigger !== null && run.recoverySeconds === null) return { text, tone: 'bad' };
  return shape.late(run.trigger, run.recoverySeconds) ? { text: `${text} ${LATE}`, tone: 'warn' } : text;
}

/** What the table is built from, beyond the result: the windows, services and the load column's service. */
interface Shape {
  windows: string[];
  services: string[];
  /** The deepest service (the one whose load the compact table shows), or null when runs disagree on it. */
  deepest: string | null;
  /** The one load figure (after-trigger.ts): the window the load column reads, the one after the trigger or total. */
  load: LoadFigure;
  /** Whether a recovery of this many seconds after this trigger came only once the after-trigger window ended. */
  late: (trigger: RunSummary['trigger'], recoveryS: number | null) => boolean;
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
    load: loadFigure(result),
    late: (trigger, recoveryS) => recoveredLate(result, trigger, recoveryS),
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
    // Left out first when the terminal is too narrow: the success of the later windows, then of the earlier ones
    // (the window after the trigger stays longest), then waste.
    const priority = (w: string, i: number) => (w === shape.load.window ? 15 : 10 - i);
    return [
      VARIANT,
      ...(shape.seeds.length > 1 ? [SEED] : []),
      ...windows.map(
        (w, i): TextColumn => ({ header: w, group: 'success %', align: 'right', priority: priority(w, i) }),
      ),
      { header: shape.load.window, group: loadName(shape.deepest ?? 'deepest'), align: 'right' },
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
      [...windows, 'total'].map((w): TextColumn => ({ header: w, group: loadName(s), align: 'right' })),
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
      formatRatio(loadOf(run, run.deepestService, shape.load)),
      recoveryCell(run, shape),
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
    recoveryCell(run, shape),
    formatPercent(run.wastedWorkFraction),
    String(run.retryRadius.max),
    formatRatio(run.retryRadius.mean),
    ...edges.map((e) => formatPercent(run.edges[e]?.retryRatio)),
  ];
}

/** A variant's recovery over seeds (the one verdict, recoveryOverSeeds): its slowest seed, or how many never did. */
function recoveryOverSeedsCell(runs: readonly RunSummary[], shape: Shape): TextCell {
  const { verdict, triggered, recovered, slowestS } = recoveryOverSeeds(runs);
  if (verdict === 'no-trigger') return 'no trigger';
  if (verdict === 'never') return { text: 'never', tone: 'bad' };
  if (verdict === 'some-seeds') return { text: `${triggered - recovered}/${triggered} never`, tone: 'bad' };
  const text = `≤${(slowestS as number).toFixed(1)}`;
  const trigger = runs.find((r) => r.trigger !== null)?.trigger ?? null;
  return shape.late(trigger, slowestS) ? { text: `${text} ${LATE}`, tone: 'warn' } : text;
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
  const recovery = recoveryOverSeedsCell(runs, shape);
  const wasted = pct((r) => r.wastedWorkFraction);
  if (!shape.wide) {
    const load = ratio((r) => loadOf(r, r.deepestService, shape.load));
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

export interface SummaryTableOptions extends TableOptions {
  /** Every column (every service, every window, p99s), no width limit. Default: fit `maxWidth` (TERMINAL_COLUMNS). */
  wide?: boolean;
}

/** The whole terminal summary: headline, blank line, table, legend. */
export function formatSummaryTable(result: SimulationResult, options: SummaryTableOptions = {}): string {
  const shape = shapeOf(result, options.wide === true);
  // @ko table-terminal-width
  const width = options.wide === true ? Number.POSITIVE_INFINITY : (options.maxWidth ?? TERMINAL_COLUMNS);
  const headline = shape.wide ? [summaryHeadline(result)] : packParts(headlineParts(result), width);
  const rows = summaryRows(result, shape);
  const table = fitTextTable(summaryColumns(result, { wide: shape.wide }), rows, {
    ...(options.color !== undefined ? { color: options.color } : {}),
    maxWidth: width,
  });
  const legend = legendLines(
    {
      deepest: shape.deepest,
      load: shape.load,
      seeds: shape.seeds,
      wide: shape.wide,
      anyLate: result.runs.some((r) => shape.late(r.trigger, r.recoverySeconds)),
      ties: tiesOf(result.runs, shape.load, {
        percent: formatPercent,
        recovery: (runs) =>
          cellTextOf(runs.length > 1 ? recoveryOverSeedsCell(runs, shape) : recoveryCell(runs[0] as RunSummary, shape)),
      }),
      hidden: table.hidden,
    },
    width,
  );
  return `${headline.join('\n')}\n\n${table.text}\n${legend.join('\n')}\n`;
}
