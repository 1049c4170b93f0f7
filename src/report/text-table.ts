// Aligned plain-text tables for the terminal, and fitting them into a width: shrink names, then leave columns out.

export interface TextColumn {
  header: string;
  /** Label printed above a run of consecutive columns sharing it. */
  group?: string;
  align: 'left' | 'right';
  /**
   * When the table is too wide, columns with a priority are left out, lowest first (ties: the rightmost first).
   * Columns without one always stay.
   */
  priority?: number;
  /** When the table is too wide, this column's cells are cut (ending in "…") down to this many characters. */
  shrinkTo?: number;
}

/** A cell: its text, and an optional tone used only when colour is on. */
export type TextCell = string | { text: string; tone: Tone };
export type Tone = 'good' | 'warn' | 'bad';

export interface TableOptions {
  /** ANSI colour (only when stdout is a TTY and NO_COLOR is unset: the caller decides). */
  color?: boolean;
  /** Fit every line into this many characters (shrinking, then leaving columns out); unset: no limit. */
  maxWidth?: number;
}

/** The width the lab's table fits (`--wide` lifts it). */
export const DEFAULT_TABLE_WIDTH = 100;

/** The width the simulator's table, lint and help fit when the terminal's is unknown (a pipe, a file, CI). */
export const TERMINAL_COLUMNS = 80;
/** Narrower than this, a table cannot show a name and its figures: fit this many columns instead. */
const MIN_COLUMNS = 40;

/** The width to fit: the terminal's (`process.stdout.columns`) when known, else TERMINAL_COLUMNS. */
export function terminalWidth(columns: number | undefined): number {
  // @ko cli-terminal-columns
  if (columns === undefined || !Number.isInteger(columns) || columns <= 0) return TERMINAL_COLUMNS;
  return Math.max(MIN_COLUMNS, columns);
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
const ELLIPSIS = '…';

// Control characters in names from a scenario file must not move the cursor or recolour the terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const cellText = (cell: TextCell): string => (typeof cell === 'string' ? cell : cell.text).replace(CONTROL, '?');

/** `text` cut to `width` characters, its last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 0 ? '' : `${text.slice(0, width - 1)}${ELLIPSIS}`;
}

/**
 * `text` cut to `width` characters by taking out its middle ("good-no-q…limit"): names that share a prefix (the
 * ablations of one variant) stay told apart by their ends.
 */
export function truncateMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 2) return truncate(text, width);
  const tail = Math.floor((width - 1) / 2);
  return `${text.slice(0, width - 1 - tail)}${ELLIPSIS}${text.slice(text.length - tail)}`;
}

/** Parts joined by `separator` into lines of at most `width`; a part too long for a line is wrapped by words. */
export function packParts(parts: readonly string[], width: number, separator = '; ', indent = '  '): string[] {
  const lines: string[] = [];
  let line = '';
  parts.forEach((part, i) => {
    const text = part.replace(CONTROL, '?') + (i < parts.length - 1 ? separator.trimEnd() : '');
    const candidate = line === '' ? text : `${line} ${text}`;
    if ((lines.length > 0 ? indent.length : 0) + candidate.length <= width) line = candidate;
    else {
      if (line !== '') lines.push(line);
      const wrapped = wrapText(text, width - indent.length);
      line = wrapped.pop() ?? '';
      lines.push(...wrapped);
    }
  });
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : indent + l));
}

/**
 * Words packed into lines of at most `width` characters; a word longer than a line is cut (truncate), or with
 * `long: 'break'` split over lines (text that must be read whole: a lint finding's path).
 */
export function wrapText(text: string, width: number, indent = '', long: 'cut' | 'break' = 'cut'): string[] {
  const lines: string[] = [];
  let line = '';
  const room = Math.max(1, width - indent.length);
  for (const word of text.replace(CONTROL, '?').split(' ')) {
    if (word === '') continue;
    const candidate = line === '' ? word : `${line} ${word}`;
    if ((lines.length > 0 ? indent.length : 0) + candidate.length <= width) line = candidate;
    else {
      if (line !== '') lines.push(line);
      if (long === 'cut' || word.length <= room) line = truncate(word, room);
      else {
        let rest = word;
        // The first piece may sit on the first line, which has no indent.
        while (rest.length > room) {
          lines.push(rest.slice(0, room));
          rest = rest.slice(room);
        }
        line = rest;
      }
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : indent + l));
}

interface Group {
  label: string;
  from: number;
  to: number;
}

function groupsOf(columns: readonly TextColumn[]): Group[] {
  const groups: Group[] = [];
  columns.forEach((c, i) => {
    const last = groups[groups.length - 1];
    if (c.group !== undefined && last !== undefined && last.label === c.group && last.to === i - 1) last.to = i;
    else if (c.group !== undefined) groups.push({ label: c.group, from: i, to: i });
  });
  return groups;
}

const spanOf = (widths: readonly number[], g: Group): number =>
  widths.slice(g.from, g.to + 1).reduce((a, b) => a + b, 0) + GAP.length * (g.to - g.from);

/**
 * The room a group's label may take: its columns, and the columns after it up to the next group (their header line
 * is empty), so "member-api load" over one narrow column does not widen it.
 */
function labelRoom(widths: readonly number[], groups: readonly Group[], k: number): number {
  const g = groups[k] as Group;
  const next = groups[k + 1]?.from ?? widths.length;
  return spanOf(widths, { label: g.label, from: g.from, to: next - 1 });
}

/** Column widths for these texts; a group label wider than the room it has widens the last of its columns. */
function layout(columns: readonly TextColumn[], texts: readonly string[][], limits: readonly number[]): number[] {
  const widths = columns.map((c, i) =>
    Math.min(limits[i] ?? Number.POSITIVE_INFINITY, Math.max(c.header.length, ...texts.map((r) => r[i]?.length ?? 0))),
  );
  const groups = groupsOf(columns);
  groups.forEach((g, k) => {
    // @ko table-group-label-room
    const room = labelRoom(widths, groups, k);
    if (g.label.length > room) widths[g.to] = (widths[g.to] ?? 0) + g.label.length - room;
  });
  return widths;
}

const totalWidth = (widths: readonly number[]): number =>
  widths.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, widths.length - 1);

/** A table fitted into a width: the lines, and the headers of the columns it left out. */
export interface FittedTable {
  text: string;
  /** "group header" of each column left out to fit, in column order. */
  hidden: string[];
}

/** Renders columns and rows as aligned text lines (no trailing spaces), fitted into `maxWidth` when given. */
export function fitTextTable(columns: TextColumn[], rows: TextCell[][], options: TableOptions = {}): FittedTable {
  const maxWidth = options.maxWidth ?? Number.POSITIVE_INFINITY;
  let keep = columns.map((_, i) => i);
  const textsOf = (idx: number[]) => rows.map((r) => idx.map((i) => cellText(r[i] ?? '')));
  const colsOf = (idx: number[]) => idx.map((i) => columns[i] as TextColumn);
  let limits = keep.map(() => Number.POSITIVE_INFINITY);
  let widths = layout(colsOf(keep), textsOf(keep), limits);
  // @ko table-fits-width
  if (totalWidth(widths) > maxWidth) {
    // First cut the shrinkable columns (names), then leave out the least needed columns one at a time.
    limits = keep.map((i) => columns[i]?.shrinkTo ?? Number.POSITIVE_INFINITY);
    widths = layout(colsOf(keep), textsOf(keep), limits);
    const droppable = keep
      .filter((i) => columns[i]?.priority !== undefined)
      .sort((a, b) => (columns[a]?.priority as number) - (columns[b]?.priority as number) || b - a);
    for (const drop of droppable) {
      if (totalWidth(widths) <= maxWidth) break;
      keep = keep.filter((i) => i !== drop);
      limits = keep.map((i) => columns[i]?.shrinkTo ?? Number.POSITIVE_INFINITY);
      widths = layout(colsOf(keep), textsOf(keep), limits);
    }
    // Give back to the shrunk columns whatever room is left.
    let room = maxWidth - totalWidth(widths);
    limits = limits.map((limit, k) => {
      if (!Number.isFinite(limit) || room <= 0) return limit;
      const natural = Math.max(colsOf(keep)[k]?.header.length ?? 0, ...textsOf(keep).map((r) => r[k]?.length ?? 0));
      const grow = Math.min(room, Math.max(0, natural - (widths[k] ?? 0)));
      room -= grow;
      return (widths[k] ?? 0) + grow;
    });
    widths = layout(colsOf(keep), textsOf(keep), limits);
  }
  const hidden = columns
    .map((c, i) => ({ c, i }))
    .filter(({ i }) => !keep.includes(i))
    .map(({ c }) => (c.group === undefined ? c.header : `${c.group} ${c.header}`));
  const text = render(colsOf(keep), textsOf(keep), rows, keep, widths, options.color === true, maxWidth);
  return { text, hidden };
}

/** Renders columns and rows as aligned text lines (no trailing spaces); see fitTextTable for `maxWidth`. */
export function renderTextTable(columns: TextColumn[], rows: TextCell[][], options: TableOptions = {}): string {
  return fitTextTable(columns, rows, options).text;
}

function render(
  columns: TextColumn[],
  texts: string[][],
  rows: TextCell[][],
  keep: number[],
  widths: number[],
  color: boolean,
  maxWidth: number,
): string {
  const pad = (text: string, i: number): string => {
    const w = widths[i] ?? text.length;
    // @ko table-names-cut-in-the-middle
    const cut = columns[i]?.shrinkTo !== undefined ? truncateMiddle(text, w) : truncate(text, w);
    return columns[i]?.align === 'right' ? cut.padStart(w) : cut.padEnd(w);
  };
  const paint = (text: string, code: string | undefined): string => (color && code ? code + text + RESET : text);
  // Whatever still does not fit (only columns that must stay) is cut at the edge, never wrapped.
  const edge = (line: string): string => truncate(line.trimEnd(), maxWidth);
  const lines: string[] = [];
  const groups = groupsOf(columns);
  if (groups.length > 0) {
    let line = '';
    let col = 0;
    groups.forEach((g, k) => {
      while (col < g.from) line += ' '.repeat(widths[col++] ?? 0) + GAP;
      const span = spanOf(widths, g);
      const room = labelRoom(widths, groups, k);
      const label = truncate(g.label.replace(CONTROL, '?'), room);
      if (label.length <= span) {
        line += label + ' '.repeat(span - label.length) + GAP;
        col = g.to + 1;
        return;
      }
      // The label runs on over the ungrouped columns after it: skip the ones it covers.
      line += label;
      let end = span;
      col = g.to + 1;
      while (end < label.length && col < widths.length) end += GAP.length + (widths[col++] ?? 0);
      line += ' '.repeat(end - label.length) + GAP;
    });
    lines.push(paint(edge(line), ANSI.dim));
  }
  // Paint after trimming so no padding hides inside an escape sequence.
  lines.push(paint(edge(columns.map((c, i) => pad(cellText(c.header), i)).join(GAP)), ANSI.bold));
  rows.forEach((row, r) => {
    const cells = keep.map((_, i) => pad(texts[r]?.[i] ?? '', i));
    const line = edge(cells.join(GAP));
    if (!color || line.length < cells.join(GAP).trimEnd().length) {
      lines.push(line);
      return;
    }
    lines.push(
      keep
        .map((source, i) => {
          const cell = row[source] ?? '';
          return typeof cell === 'string' ? (cells[i] as string) : paint(cells[i] as string, ANSI[cell.tone]);
        })
        .join(GAP)
        .trimEnd(),
    );
  });
  return `${lines.join('\n')}\n`;
}
