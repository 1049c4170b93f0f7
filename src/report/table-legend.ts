// The lines under the terminal summary table: what each figure is, which variants it cannot tell apart, what was left out.

import { RECOVERY_HOLD_BINS, RECOVERY_LEVEL } from '../sim/metrics/summary.js';
import { recoveryOverSeeds } from '../sim/metrics/verdict.js';
import { type LoadFigure, loadName } from './after-trigger.js';
import type { RunSummary } from './result.js';
import { meanSpread } from './seed-stats.js';
import { wrapText } from './text-table.js';

export interface LegendFacts {
  /** The deepest service (the load column's), or null when runs disagree on it. */
  deepest: string | null;
  load: LoadFigure;
  seeds: readonly number[];
  wide: boolean;
  /** Whether some recovery shown is marked late. */
  anyLate: boolean;
  /** Groups of variants the table cannot tell apart (tiesOf). */
  ties: readonly Tie[];
  /** Columns left out to fit. */
  hidden: readonly string[];
}

export interface Tie {
  variants: string[];
  /** Their shared success in the after-trigger window, as shown ("100.0"). */
  success: string;
  /** Their shared recovery, as shown ("0.0", "≤0.0"). */
  recovery: string;
}

/**
 * Variants that recover and show the same success after the trigger and the same recovery: on this scenario the
 * table cannot tell them apart (checkout-incident's ablations of good that keep its callee protection). Only
 * recovering variants are grouped: two that never recover tie for a reason the table already shows.
 */
export function tiesOf(
  runs: readonly RunSummary[],
  load: LoadFigure,
  format: { percent: (x: number | undefined) => string; recovery: (runs: readonly RunSummary[]) => string },
): Tie[] {
  if (load.window === 'total') return [];
  const groups = new Map<string, Tie>();
  for (const variant of [...new Set(runs.map((r) => r.variant))]) {
    const own = runs.filter((r) => r.variant === variant);
    if (recoveryOverSeeds(own).verdict !== 'recovers') continue;
    const success = format.percent(meanSpread(own.map((r) => r.successRate[load.window]))?.mean);
    const recovery = format.recovery(own);
    const key = `${success}\u0000${recovery}`;
    const tie = groups.get(key);
    if (tie === undefined) groups.set(key, { variants: [variant], success, recovery });
    else tie.variants.push(variant);
  }
  // @ko table-ties-named
  return [...groups.values()].filter((t) => t.variants.length > 1);
}

function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The legend's lines, each note wrapped to `width` (continuations indented). */
export function legendLines(facts: LegendFacts, width: number): string[] {
  const notes: string[] = [];
  const service = facts.deepest ?? 'the deepest service';
  const when = facts.load.window === 'total' ? 'over the whole run' : `in the ${facts.load.window} window`;
  if (!facts.wide) notes.push(`${loadName(service)}: attempts arriving at ${service} per user request, ${when}.`);
  else notes.push(`SERVICE load: attempts arriving at SERVICE per user request, per window and over the run (total).`);
  // @ko table-footnotes
  notes.push(
    `recovery s: seconds from the trigger's end until success is back to ${RECOVERY_LEVEL * 100} % of its level ` +
      `before it and stays there ${RECOVERY_HOLD_BINS} s; never: not within the run; no trigger: no fault to recover from.`,
  );
  if (facts.anyLate && facts.load.window !== 'total') {
    notes.push(
      `late: recovered only after the ${facts.load.window} window ended, so its success there does not show the recovery.`,
    );
  }
  notes.push(`wasted %: share of ${service}'s executions whose answer nobody was waiting for any more.`);
  if (facts.seeds.length > 1) {
    notes.push(
      "mean rows: mean±spread over the seeds; spread is the largest distance of a seed from the mean; recovery is the slowest seed's (≤).",
    );
  }
  for (const tie of facts.ties) {
    notes.push(
      `${listed(tie.variants)} tie here (${tie.success} % ${facts.load.window}, recovery ${tie.recovery} s): ` +
        'this scenario does not tell them apart.',
    );
  }
  if (facts.hidden.length > 0)
    notes.push(`Left out to fit ${width} columns: ${facts.hidden.join(', ')} (--wide shows every column).`);
  else if (!facts.wide) notes.push('--wide shows every column: p99, goodput, load at every service and window.');
  return notes.flatMap((n) => wrapText(n, width, '  '));
}
