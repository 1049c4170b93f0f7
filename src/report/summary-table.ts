// The full summary table at the foot of report.html: the terminal table's columns, one row per run.

import { loadFigure, loadOf } from './after-trigger.js';
import { escapeHtml } from './html-escape.js';
import type { SimulationResult } from './result.js';
import { windowNames } from './result.js';
import { formatMs, formatPercent, formatRatio, formatRunRecovery } from './table.js';

/** The summary table as HTML (same columns as the terminal table). Numbers are not coloured: the verdict says it. */
export function summaryTableHtml(result: SimulationResult): string {
  const windows = windowNames(result);
  const services = [...new Set(result.runs.flatMap((r) => Object.keys(r.amplification)))];
  // The same load figure as the terminal table and the verdict (after-trigger.ts): one name, one value per service.
  const load = loadFigure(result);
  const th = (text: string, attrs = '') => `<th${attrs}>${escapeHtml(text)}</th>`;
  const group = (label: string, n: number) => (n > 0 ? th(label, ` colspan="${n}" class="group"`) : '');
  const head1 = [
    th('variant', ' rowspan="2"'),
    th('seed', ' rowspan="2"'),
    group('success %', windows.length),
    group('p99 ms', windows.length),
    group(`load, ${load.when}`, services.length),
    th('recovery s', ' rowspan="2"'),
    th('wasted %', ' rowspan="2"'),
  ].join('');
  const head2 = [...windows, ...windows, ...services].map((h) => th(h)).join('');
  const body = result.runs
    .map((run) => {
      const cells = [
        `<td class="name">${escapeHtml(run.variant)}</td>`,
        `<td>${run.seed}</td>`,
        ...windows.map((w) => `<td>${formatPercent(run.successRate[w])}</td>`),
        ...windows.map((w) => `<td>${formatMs(run.p99Ms[w])}</td>`),
        ...services.map((s) => `<td>${formatRatio(loadOf(run, s, load))}</td>`),
        run.trigger !== null && run.recoverySeconds === null
          ? '<td class="bad">never</td>'
          : `<td>${formatRunRecovery(run)}</td>`,
        `<td>${formatPercent(run.wastedWorkFraction)}</td>`,
      ];
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<table class="summary">\n<thead><tr>${head1}</tr><tr>${head2}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}
