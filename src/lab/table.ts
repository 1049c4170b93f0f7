// The lab's terminal table: per variant, lab beside simulator for each check compareRuns makes, and the verdict.

import {
  DEFAULT_TABLE_WIDTH,
  fitTextTable,
  formatPercent,
  formatRatio,
  type TextCell,
  type TextColumn,
} from '../report/table.js';
import { packParts, wrapText } from '../report/text-table.js';
import type { Check } from './compare.js';
import type { LabResult } from './run.js';

function shown(check: Check, value: number | string | null): string {
  if (typeof value === 'string') return value;
  if (value === null) return '-';
  return check.what.startsWith('success') ? formatPercent(value) : formatRatio(value);
}

/**
 * A check's column: its group ("success %", "member-api ×", or none) and its header (the window). To fit 100
 * columns, the load columns other than the after window's are left out first, the first ones first.
 */
function columnOf(what: string, index: number): TextColumn {
  const success = /^success (.+)$/.exec(what);
  if (success) return { header: success[1] as string, group: 'success % lab/sim', align: 'right' };
  const amp = /^(.+) amplification (.+)$/.exec(what);
  if (amp) {
    const window = amp[2] as string;
    return {
      header: window,
      group: `${amp[1]} × lab/sim`,
      align: 'right',
      ...(window === 'after' ? {} : { priority: index }),
    };
  }
  return { header: what, align: 'right' };
}

export interface LabTableOptions {
  /** Every check, no 100-column fit (seawall lab --wide). */
  wide?: boolean;
}

/** One row per variant: every check as "lab/simulator" (red when they differ beyond the tolerance), and agrees. */
export function formatLabTable(result: LabResult, options: LabTableOptions = {}): string {
  const width = options.wide === true ? Number.POSITIVE_INFINITY : DEFAULT_TABLE_WIDTH;
  const first = result.variants[0];
  if (first === undefined) return 'no variant ran\n';
  const whats = first.comparison.checks.map((c) => c.what);
  const columns: TextColumn[] = [
    { header: 'variant', align: 'left', shrinkTo: 14 },
    ...whats.map(columnOf),
    { header: 'agrees', align: 'left' },
  ];
  const rows: TextCell[][] = result.variants.map((v) => [
    v.variant,
    ...whats.map((w): TextCell => {
      const check = v.comparison.checks.find((c) => c.what === w);
      if (check === undefined) return '-';
      const text = `${shown(check, check.lab)}/${shown(check, check.sim)}`;
      return check.ok ? text : { text, tone: 'bad' };
    }),
    v.comparison.agrees ? 'yes' : { text: 'NO', tone: 'bad' },
  ]);
  const head = packParts(
    [
      `${result.scenario}: lab (real processes, PostgreSQL) beside the simulator`,
      `scale ${result.scale}, ${result.durationS} s per variant`,
    ],
    width,
    ', ',
  );
  const table = fitTextTable(columns, rows, { maxWidth: width });
  const notes =
    table.hidden.length > 0
      ? wrapText(`Left out to fit ${width} columns: ${table.hidden.join(', ')} (--wide shows them).`, width, '  ')
      : [];
  return `${head.join('\n')}\n${table.text}${notes.map((n) => `${n}\n`).join('')}`;
}
