// The lab's terminal table: per variant, lab beside simulator for each check compareRuns makes, and the verdict.

import { formatPercent, formatRatio, renderTextTable, type TextCell, type TextColumn } from '../report/table.js';
import type { Check } from './compare.js';
import type { LabResult } from './run.js';

function shown(check: Check, value: number | string | null): string {
  if (typeof value === 'string') return value;
  if (value === null) return '-';
  return check.what.startsWith('success') ? formatPercent(value) : formatRatio(value);
}

/** A check's column: its group ("success %", "member-api ×", or none) and its header (the window). */
function columnOf(what: string): TextColumn {
  const success = /^success (.+)$/.exec(what);
  if (success) return { header: success[1] as string, group: 'success % lab/sim', align: 'right' };
  const amp = /^(.+) amplification (.+)$/.exec(what);
  if (amp) return { header: amp[2] as string, group: `${amp[1]} × lab/sim`, align: 'right' };
  return { header: what, align: 'right' };
}

/** One row per variant: every check as "lab/simulator" (red when they differ beyond the tolerance), and agrees. */
export function formatLabTable(result: LabResult): string {
  const first = result.variants[0];
  if (first === undefined) return 'no variant ran\n';
  const whats = first.comparison.checks.map((c) => c.what);
  const columns: TextColumn[] = [
    { header: 'variant', align: 'left' },
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
  const head = `${result.scenario}: lab (real processes, PostgreSQL) beside the simulator, scale ${result.scale}, ${result.durationS} s per variant\n`;
  return `${head}${renderTextTable(columns, rows)}`;
}
