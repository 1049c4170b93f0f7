// Plain-text summary table for the terminal: one row per variant × seed, aligned, colour only on request.
import type { RunSummary, SimulationResult } from './result.js';
import { serviceNames, windowNames } from './result.js';

export interface TextColumn {
  header: string;
  /** Label printed above a run of consecutive columns sharing it. */
  group?: string;
  align: 'left' | 'right';
}

/** A cell: its text, and an optional tone used only when colour is on. */
export type TextCell = string | { text: string; tone: Tone };
export type Tone = 'good' | 'warn' | 'bad';

export interface TableOptions {
  /** ANSI colour (only when stdout is a TTY and NO_COLOR is unset: the caller decides). */
  color?: boolean;
}

const ANSI: Record<Tone | 'bold' | 'dim', string> = {
  good: '\x1b[32m',
  warn: '\x1b[33m',
  bad: '\x1b[31m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
};
const RESET = '\x1b[0m';
const GAP = '  ';

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

export function formatRecovery(seconds: number | null | undefined): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds.toFixed(1) : 'never';
}

function successTone(fraction: number | undefined): Tone {
  if (fraction === undefined || !Number.isFinite(fraction) || fraction < 0.5) return 'bad';
  return fraction >= 0.99 ? 'good' : 'warn';
}

// Control characters in names from a scenario file must not move the cursor or recolour the terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const cellText = (cell: TextCell): string => (typeof cell === 'string' ? cell : cell.text).replace(CONTROL, '?');

/** Renders columns and rows as aligned text lines (no trailing spaces). */
export function renderTextTable(columns: TextColumn[], rows: TextCell[][], options: TableOptions = {}): string {
  const color = options.color === true;
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => cellText(r[i] ?? '').length)));
  // A group label wider than its columns widens the last column of its run.
  const groups: { label: string; from: number; to: number }[] = [];
  columns.forEach((c, i) => {
    const last = groups[groups.length - 1];
    if (c.group !== undefined && last !== undefined && last.label === c.group && last.to === i - 1) last.to = i;
    else if (c.group !== undefined) groups.push({ label: c.group, from: i, to: i });
  });
  for (const g of groups) {
    const span = widths.slice(g.from, g.to + 1).reduce((a, b) => a + b, 0) + GAP.length * (g.to - g.from);
    if (g.label.length > span) widths[g.to] = (widths[g.to] ?? 0) + g.label.length - span;
  }
  const pad = (text: string, i: number): string => {
    const w = widths[i] ?? text.length;
    return columns[i]?.align === 'right' ? text.padStart(w) : text.padEnd(w);
  };
  const paint = (text: string, code: string | undefined): string => (color && code ? code + text + RESET : text);
  const lines: string[] = [];
  if (groups.length > 0) {
    let line = '';
    let col = 0;
    for (const g of groups) {
      while (col < g.from) line += ' '.repeat(widths[col++] ?? 0) + GAP;
      const span = widths.slice(g.from, g.to + 1).reduce((a, b) => a + b, 0) + GAP.length * (g.to - g.from);
      line += paint(g.label, ANSI.dim) + ' '.repeat(span - g.label.length) + GAP;
      col = g.to + 1;
    }
    lines.push(line.trimEnd());
  }
  // Paint after trimming so no padding hides inside an escape sequence.
  const header = columns
    .map((c, i) => pad(cellText(c.header), i))
    .join(GAP)
    .trimEnd();
  lines.push(paint(header, ANSI.bold));
  for (const row of rows) {
    const cells = columns.map((_, i) => {
      const cell = row[i] ?? '';
      const text = pad(cellText(cell), i);
      return typeof cell === 'string' ? text : paint(text, ANSI[cell.tone]);
    });
    lines.push(cells.join(GAP).trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

/** The columns of the summary table for this result's windows and services. */
export function summaryColumns(result: Pick<SimulationResult, 'windows' | 'runs' | 'timeseries'>): TextColumn[] {
  const windows = windowNames(result);
  return [
    { header: 'variant', align: 'left' },
    { header: 'seed', align: 'right' },
    ...windows.map((w): TextColumn => ({ header: w, group: 'success %', align: 'right' })),
    ...windows.map((w): TextColumn => ({ header: w, group: 'p99 ms', align: 'right' })),
    ...serviceNames(result).map((s): TextColumn => ({ header: s, group: 'amplification (total)', align: 'right' })),
    { header: 'recovery s', align: 'right' },
    { header: 'wasted %', align: 'right' },
  ];
}

/** The cells of one run's row, matching summaryColumns. */
export function summaryRow(run: RunSummary, windows: string[], services: string[]): TextCell[] {
  return [
    run.variant,
    String(run.seed),
    ...windows.map((w) => ({ text: formatPercent(run.successRate[w]), tone: successTone(run.successRate[w]) })),
    ...windows.map((w) => formatMs(run.p99Ms[w])),
    ...services.map((s) => formatRatio(run.amplification[s]?.total)),
    run.recoverySeconds === null ? { text: formatRecovery(null), tone: 'bad' } : formatRecovery(run.recoverySeconds),
    formatPercent(run.wastedWorkFraction),
  ];
}

/** One line naming the scenario, its windows and the engine's effort. */
export function summaryHeadline(result: SimulationResult): string {
  const windows = Object.entries(result.windows)
    .map(([name, [from, to]]) => `${name} ${from}-${to} s`)
    .join(', ');
  const events = result.engine.events.toLocaleString('en-US');
  const wallS = (result.engine.wallMs / 1000).toFixed(2);
  const runs = `${result.runs.length} run${result.runs.length === 1 ? '' : 's'}`;
  const line = `${result.scenario}: ${result.durationS} s simulated; windows ${windows || 'none'}; ${runs}, ${events} events in ${wallS} s`;
  return line.replace(CONTROL, '?');
}

/** The whole terminal summary: headline, blank line, table. */
export function formatSummaryTable(result: SimulationResult, options: TableOptions = {}): string {
  const windows = windowNames(result);
  const services = serviceNames(result);
  const rows = result.runs.map((run) => summaryRow(run, windows, services));
  return `${summaryHeadline(result)}\n\n${renderTextTable(summaryColumns(result), rows, options)}`;
}
