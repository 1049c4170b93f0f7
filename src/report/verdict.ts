// The verdict table at the top of report.html: per variant, recovers or not, success by window, load at the deepest service.

import { type RecoveryVerdict, recoveryOverSeeds } from '../sim/metrics/verdict.js';
import { loadFigure, loadName, loadOf, recoveredLate } from './after-trigger.js';
import type { VariantGroup } from './groups.js';
import { escapeHtml } from './html-escape.js';
import type { RunSummary, SimulationResult } from './result.js';
import { windowNames } from './result.js';
import { formatPercent, formatRatio } from './table.js';

/** What a variant's runs say about recovery: the simulator's one verdict over seeds (src/sim/metrics/verdict.ts). */
export type { RecoveryVerdict } from '../sim/metrics/verdict.js';

export interface VerdictRow {
  variant: string;
  group: string;
  description: string | null;
  verdict: RecoveryVerdict;
  /** Seeds that recovered, of `seeds`. */
  recovered: number;
  seeds: number;
  /** The slowest recovery among the seeds that recovered, s; null when none did. */
  recoveryS: number | null;
  /** Mean over seeds, per shown window. */
  success: Record<string, number | null>;
  /** Attempts at the deepest service per user request, mean over seeds: after the trigger when there is an `after`. */
  load: number | null;
  wasted: number | null;
  /** The recovery came only after the after-trigger window ended (recoveredLate): said in words beside the mark. */
  late: boolean;
  /** That window's name, for the words. */
  lateWindow: string;
}

/** The windows the verdict shows: before, during and after when the scenario has them, else every window (at most 4). */
export function verdictWindows(result: Pick<SimulationResult, 'windows'>): string[] {
  const names = windowNames(result);
  const story = ['before', 'during', 'after'].filter((w) => names.includes(w));
  return story.length >= 2 ? story : names.slice(0, 4);
}

function mean(values: (number | undefined)[]): number | null {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return finite.length === 0 ? null : finite.reduce((a, b) => a + b, 0) / finite.length;
}

/**
 * The rows, grouped. Reads only RunSummary fields: successRate[window], amplification[deepest][after | total],
 * trigger and recoverySeconds (through recoveryOverSeeds, the one verdict: the slowest seed counts) and
 * wastedWorkFraction.
 */
export function verdictRows(
  result: SimulationResult,
  groups: readonly VariantGroup[],
  options: { deepest: string | null },
): VerdictRow[] {
  const windows = verdictWindows(result);
  const load = loadFigure(result);
  const describe = new Map((result.variants ?? []).map((v) => [v.name, v.description]));
  return groups.flatMap((group) =>
    group.variants.map((variant): VerdictRow => {
      const runs: RunSummary[] = result.runs.filter((r) => r.variant === variant);
      const recovery = recoveryOverSeeds(runs);
      const success: Record<string, number | null> = {};
      for (const w of windows) success[w] = mean(runs.map((r) => r.successRate[w]));
      const deepest = options.deepest;
      return {
        variant,
        group: group.name,
        description: describe.get(variant) ?? null,
        verdict: recovery.verdict,
        recovered: recovery.recovered,
        seeds: runs.length,
        recoveryS: recovery.slowestS,
        success,
        load: deepest === null ? null : mean(runs.map((r) => loadOf(r, deepest, load))),
        wasted: mean(runs.map((r) => r.wastedWorkFraction)),
        late: recoveredLate(result, runs.find((r) => r.trigger !== null)?.trigger ?? null, recovery.slowestS),
        lateWindow: load.window,
      };
    }),
  );
}

function verdictCell(row: VerdictRow): string {
  const after = row.recoveryS === null ? '' : row.recoveryS === 0 ? ' at once' : ` in ${row.recoveryS.toFixed(1)} s`;
  switch (row.verdict) {
    case 'recovers': {
      // A late recovery keeps its mark, with the words that explain the low success beside it.
      const late = row.late ? ` <small>(late: after the ${escapeHtml(row.lateWindow)} window)</small>` : '';
      return `<td class="verdict recovers"><span class="mark">✓</span> recovers${after}${late}</td>`;
    }
    case 'never':
      return `<td class="verdict never"><span class="mark">✗</span> never recovers</td>`;
    case 'some-seeds':
      return `<td class="verdict some-seeds"><span class="mark">~</span> ${row.recovered} of ${row.seeds} seeds recover</td>`;
    case 'no-trigger':
      return `<td class="verdict no-trigger">no trigger</td>`;
  }
}

/**
 * A number with a light bar behind it (its share of `max`): read the size, not a colour. `label` names it where the
 * table is shown as one card per variant, without its header (a phone).
 */
function barCell(value: number | null, text: string, max: number, label: string): string {
  const named = ` data-label="${escapeHtml(label)}"`;
  if (value === null) return `<td class="num"${named}>-</td>`;
  const width = max > 0 ? Math.max(0, Math.min(100, (value / max) * 100)) : 0;
  return `<td class="num bar"${named} style="--bar:${width.toFixed(1)}%">${escapeHtml(text)}</td>`;
}

/** The verdict table as HTML. Rows carry data-variant and data-verdict for tests and the page's script. */
export function verdictTableHtml(
  result: SimulationResult,
  rows: readonly VerdictRow[],
  options: { deepest: string | null; styles: Record<string, { color: string }> },
): string {
  const windows = verdictWindows(result);
  const loadWhen = loadFigure(result).when;
  const maxLoad = Math.max(1, ...rows.map((r) => r.load ?? 0));
  const th = (text: string, attrs = '') => `<th${attrs}>${text}</th>`;
  const rowspan = ' rowspan="2"';
  const head1 = [
    th('variant', rowspan),
    th('verdict', rowspan),
    th('user success', ` colspan="${windows.length}" class="span"`),
    options.deepest === null
      ? ''
      : th(
          `${escapeHtml(loadName(options.deepest))}<br><small>attempts per user request, ${loadWhen}</small>`,
          `${rowspan} class="num"`,
        ),
    th('wasted<br><small>at the deepest service</small>', `${rowspan} class="num"`),
    th('what it is', rowspan),
  ].join('');
  const head2 = windows.map((w) => th(escapeHtml(w), ' class="win"')).join('');
  const columns = 4 + windows.length + (options.deepest === null ? 0 : 1);
  let group = '';
  const body: string[] = [];
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      body.push(`<tr class="group-row"><th colspan="${columns}">${escapeHtml(group)}</th></tr>`);
    }
    const color = options.styles[row.variant]?.color ?? '#888';
    const cells = [
      `<td class="name"><span class="swatch-line" style="background:${color}"></span>${escapeHtml(row.variant)}</td>`,
      verdictCell(row),
      ...windows.map((w) => barCell(row.success[w] ?? null, `${formatPercent(row.success[w])} %`, 1, w)),
      options.deepest === null ? '' : barCell(row.load, `${formatRatio(row.load)}×`, maxLoad, 'load'),
      barCell(row.wasted, `${formatPercent(row.wasted)} %`, 1, 'wasted'),
      row.description === null
        ? '<td class="desc"></td>'
        : `<td class="desc" title="${escapeHtml(row.description)}"><div>${escapeHtml(row.description)}</div></td>`,
    ];
    body.push(
      `<tr class="variant-row" data-variant="${escapeHtml(row.variant)}" data-verdict="${row.verdict}">${cells.join('')}</tr>`,
    );
  }
  return `<table class="verdict-table">
<thead><tr>${head1}</tr><tr>${head2}</tr></thead>
<tbody>
${body.join('\n')}
</tbody>
</table>`;
}
