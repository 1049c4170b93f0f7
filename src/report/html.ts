// report.html: a self-contained page (inlined Chart.js, embedded data, no network): verdict, topology, charts, figures.
import { buildChartData, type ChartData, type ChartHints, type GroupMetric } from './chart-data.js';
import { REPORT_CLIENT_SCRIPT } from './html-client.js';
import { escapeHtml, jsonForScript, scriptSafe } from './html-escape.js';
import { REPORT_STYLE } from './html-style.js';
import type { SimulationResult } from './result.js';
import { triggerInterval } from './result.js';
import { summaryTableHtml } from './summary-table.js';
import { sameTopology, topologySvg } from './topology.js';
import type { Topology } from './topology-model.js';
import { verdictRows, verdictTableHtml } from './verdict.js';

export { buildChartData, type ChartData, type ChartSpec, mergeIntervals } from './chart-data.js';
export { escapeHtml, jsonForScript, scriptSafe } from './html-escape.js';
export { summaryTableHtml } from './summary-table.js';

export interface HtmlReportOptions extends ChartHints {
  /** The Chart.js UMD bundle's source text (see loadChartJsSource), inlined into the page. */
  chartJsSource: string;
  /** The shell command that reproduces this report, shown on the page. */
  command: string;
  /** Seawall's version, shown in the footer. */
  version?: string;
  /** What the page reports, beside the scenario's name (default "Seawall simulation report"). */
  kind?: string;
  /** Trusted HTML placed right after the verdict (the lab's agreement table); the caller escapes what it embeds. */
  introHtml?: string;
  /** The line under the title, as text (default: the simulated duration, runs and events). */
  meta?: string;
  /** Each variant's services and call policies (topologyOf), drawn as a picture; no picture without them. */
  topologies?: Record<string, Topology>;
}

const METRIC_TITLES: Record<GroupMetric, (entry: string, focus: string) => string> = {
  success: (entry) => `User success at ${entry} (%)`,
  load: (_entry, focus) => `Load at ${focus} (attempts/s)`,
  amplification: (_entry, focus) => `Amplification at ${focus} (attempts per user request)`,
  wasted: (_entry, focus) => `Wasted work at ${focus} (executions/s nobody awaited)`,
};

function chip(variant: string, data: ChartData, scope: string): string {
  const color = data.styles[variant]?.color ?? '#888';
  return `<button type="button" class="chip" data-scope="${scope}" data-variant="${escapeHtml(variant)}" aria-pressed="true"><span class="swatch-line" style="background:${color}"></span>${escapeHtml(variant)}</button>`;
}

function groupsHtml(data: ChartData): string {
  const entry = escapeHtml(data.entryService ?? 'the entry');
  const focus = escapeHtml(data.focusService ?? 'the deepest service');
  return data.groupCharts
    .map((g, i) => {
      const variants = data.groups[i]?.variants ?? [];
      const cards = g.charts
        .map((c) => {
          const title = METRIC_TITLES[c.metric](entry, focus);
          return `<section class="card"><h4>${title}</h4><div class="plot"><canvas id="${c.canvasId}" role="img" aria-label="${escapeHtml(`${g.group}: `)}${title}"></canvas></div></section>`;
        })
        .join('\n');
      return `<div class="group-block" data-group="${escapeHtml(g.group)}">
<h3>${escapeHtml(g.group)}</h3>
<div class="chips">${variants.map((v) => chip(v, data, 'group')).join('')}</div>
<div class="charts four">
${cards}
</div>
</div>`;
    })
    .join('\n');
}

function topologyHtml(
  data: ChartData,
  topologies: Record<string, Topology> | undefined,
  descriptions: Map<string, string | null>,
): string {
  const about = (v: string) => {
    const text = descriptions.get(v);
    return text ? ` — ${escapeHtml(text)}` : '';
  };
  const base = data.baseVariant;
  const baseTopology = base === null ? undefined : topologies?.[base];
  if (base === null || baseTopology === undefined || topologies === undefined) return '';
  const options = data.variants
    .map(
      (v) =>
        `<option value="${escapeHtml(v)}"${v === data.selectedVariant ? ' selected' : ''}>${escapeHtml(v)}</option>`,
    )
    .join('');
  // The base's picture stays; the compared variant's shows beside it (its changes highlighted), or a note that it
  // draws the same picture.
  const variantPanels = data.variants.slice(1).map((v, i) => {
    const topology = topologies[v];
    const hidden = v === data.selectedVariant ? '' : ' hidden';
    const body =
      topology === undefined || sameTopology(topology, baseTopology)
        ? `<p class="same-as-base">${escapeHtml(v)} has the same services and call policies as ${escapeHtml(base)}.</p>`
        : topologySvg(topology, {
            base: baseTopology,
            title: `Services and call policies of ${v}`,
            id: `topology-${i + 1}`,
          });
    return `<div class="topology-panel" data-variant="${escapeHtml(v)}"${hidden}><p class="meta"><strong>${escapeHtml(v)}</strong>${about(v)}</p>${body}</div>`;
  });
  const baseSvg = topologySvg(baseTopology, { title: `Services and call policies of ${base}`, id: 'topology-0' });
  return `<h2>Topology: services and each call's policy</h2>
<div class="topology-grid">
<figure><figcaption>Base: <strong>${escapeHtml(base)}</strong>${about(base)}</figcaption>${baseSvg}</figure>
<figure><figcaption><label>Compare with <select id="variant-select">${options}</select></label> — what it changes is in <span class="changed-key">orange</span></figcaption>
${variantPanels.join('\n')}
</figure>
</div>`;
}

/** The whole report page. Pure: the same result and options give the same bytes. */
export function renderReportHtml(result: SimulationResult, options: HtmlReportOptions): string {
  const data = buildChartData(result, options);
  const kind = options.kind ?? 'Seawall simulation report';
  const title = options.kind === undefined ? `Seawall simulation: ${result.scenario}` : `${kind}: ${result.scenario}`;
  const windows = Object.entries(result.windows)
    .map(([name, [from, to]]) => `${escapeHtml(name)} ${from}–${to} s`)
    .join(' · ');
  const seedControl =
    data.seeds.length > 1
      ? `<label>seed <select id="seed-select">${data.seeds.map((s) => `<option value="${s}">${s}</option>`).join('')}</select></label>`
      : `<span>seed ${data.seeds.map(String).join(', ')}</span>`;
  const spans = data.triggers.map(([from, to]) => `${from}–${to} s`).join(', ');
  const trigger =
    data.triggers.length === 0
      ? ''
      : `<span><span class="swatch"></span>trigger (${triggerInterval(result) ? 'the <code>during</code> window' : 'fault intervals'}: ${spans})</span>`;
  const groupToggles = data.groups
    .map(
      (g) =>
        `<label><input type="checkbox" class="group-toggle" data-group="${escapeHtml(g.name)}" checked> ${escapeHtml(g.name)}</label>`,
    )
    .join('');
  const rows = verdictRows(result, data.groups, { deepest: data.focusService });
  const verdict = verdictTableHtml(result, rows, { deepest: data.focusService, styles: data.styles });
  const cards = data.charts
    .map(
      (c) =>
        `<section class="card"><h4>${escapeHtml(c.title)}</h4><div class="plot"><canvas id="${c.canvasId}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div></section>`,
    )
    .join('\n');
  const runs = `${result.runs.length} run${result.runs.length === 1 ? '' : 's'}`;
  const description = result.description ? `<p class="lede">${escapeHtml(result.description)}</p>\n` : '';
  const meta =
    options.meta === undefined
      ? `${result.durationS} s simulated · ${runs} · ${result.engine.events.toLocaleString('en-US')} events`
      : escapeHtml(options.meta);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(result.scenario)} <small>${escapeHtml(kind)}</small></h1>
${description}<p class="meta">${meta}${windows ? ` · windows: ${windows}` : ''} · <a href="#reproduce">reproduce</a></p>
<h2>Verdict</h2>
<div class="table-wrap">${verdict}</div>
<p class="meta">Recovers: after the trigger ends, user success is back to 95 % of its level before the trigger and stays there for 5 s (the time is how long that took). Load: attempts arriving at ${escapeHtml(data.focusService ?? 'the deepest service')} per user request. Click a variant to compare it below.</p>
${options.introHtml === undefined ? '' : `${options.introHtml}\n`}${topologyHtml(data, options.topologies, new Map((result.variants ?? []).map((v) => [v.name, v.description])))}
<h2>Over time, group by group</h2>
<div class="controls">${seedControl}${trigger}<span>groups:</span>${groupToggles}<span>Click a variant's chip to hide or show it.</span></div>
<p id="chart-status">Charts need JavaScript.</p>
${groupsHtml(data)}
<h2>Load per service: the base and the compared variant</h2>
<div class="controls"><label><input type="checkbox" id="log-scale"> log scale</label><span>add or remove variants:</span></div>
<div class="chips" id="detail-chips">${data.variants.map((v) => chip(v, data, 'detail')).join('')}</div>
<div class="charts detail">
${cards}
</div>
<h2>All figures</h2>
<div class="table-wrap">${summaryTableHtml(result)}</div>
<h2 id="reproduce">Reproduce</h2>
<pre class="cmd"><code>${escapeHtml(options.command)}</code></pre>
<footer><p>Success rate: share of user requests arriving in the window (or second) that got a successful answer within their patience; the last patience of the run is not charted (its users may still be waiting when the run stops).
Amplification: attempts arriving at a service per user request. Recovery: seconds from the end of the trigger until success is back to 95 % of its pre-trigger level for 5 s.
Wasted: executions of the deepest service nobody was waiting for any more.${options.version ? ` Generated by seawall ${escapeHtml(options.version)}.` : ''}</p></footer>
</main>
<script type="application/json" id="seawall-data">${jsonForScript(data)}</script>
<script>${scriptSafe(options.chartJsSource)}</script>
<script>${REPORT_CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
