// The lab's report.html: lab and simulator as two lines per variant in the simulator's own charts, and the verdicts.

import { escapeHtml, type HtmlReportOptions, renderReportHtml } from '../report/html.js';
import type { SimulationResult } from '../report/result.js';
import { formatPercent, formatRatio } from '../report/table.js';
import type { LabResult } from './run.js';

const LAB = ' (lab)';
const SIM = ' (simulator)';

/** The verdict table: every check of every variant, lab beside simulator. */
function verdictHtml(result: LabResult): string {
  const rows = result.variants
    .flatMap((v) =>
      v.comparison.checks.map((c, i) => {
        const show = (x: number | string | null) =>
          typeof x === 'number' ? (c.what.startsWith('success') ? `${formatPercent(x)} %` : formatRatio(x)) : String(x);
        const name =
          i === 0
            ? `<td class="name" rowspan="${v.comparison.checks.length}">${escapeHtml(v.variant)}${v.comparison.agrees ? '' : ' <span class="bad">differs</span>'}</td>`
            : '';
        return `<tr>${name}<td class="name">${escapeHtml(c.what)}</td><td>${escapeHtml(show(c.lab))}</td><td>${escapeHtml(show(c.sim))}</td><td class="${c.ok ? 'good' : 'bad'}">${c.ok ? 'agrees' : 'differs'}</td></tr>`;
      }),
    )
    .join('\n');
  return `<h2>Lab against simulator (scale ${result.scale}; ${escapeHtml(result.database)})</h2>
<p class="meta">Recovery verdicts must agree, success rates per window be within 10 points, amplification at the deepest service within 15 % (docs/lab.md).</p>
<div class="table-wrap"><table class="summary verdicts">
<thead><tr><th>variant</th><th>check</th><th>lab</th><th>simulator</th><th>verdict</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`;
}

/** The lab's and the simulator's runs as one result whose "variants" are `<variant> (lab)` and `<variant> (simulator)`. */
export function asSimulationResult(result: LabResult): SimulationResult {
  return {
    scenario: result.scenario,
    durationS: result.durationS,
    windows: result.windows,
    // One group per variant: its verdict rows and charts set the lab beside the simulator.
    variants: result.variants.flatMap((v) => [
      { name: v.variant + LAB, group: v.variant, description: 'measured on real processes' },
      { name: v.variant + SIM, group: v.variant, description: "the simulator's prediction at the same scale" },
    ]),
    engine: { events: 0, wallMs: 0 },
    runs: result.variants.flatMap((v) => [
      { ...v.lab, variant: v.variant + LAB },
      { ...v.sim, variant: v.variant + SIM },
    ]),
    timeseries: result.variants.flatMap((v) => [
      ...v.labTimeseries.map((r) => ({ ...r, variant: v.variant + LAB })),
      ...v.simTimeseries.map((r) => ({ ...r, variant: v.variant + SIM })),
    ]),
  };
}

export function labReportHtml(
  result: LabResult,
  options: Omit<HtmlReportOptions, 'kind' | 'introHtml' | 'meta'>,
): string {
  return renderReportHtml(asSimulationResult(result), {
    ...options,
    kind: 'Seawall lab report',
    meta: `${result.durationS} s per variant on real processes, and the simulator's prediction at the same scale (${result.scale})`,
    introHtml: verdictHtml(result),
  });
}
