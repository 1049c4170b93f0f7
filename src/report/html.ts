// report.html: a self-contained page (inlined Chart.js, embedded data, no network) with charts and the summary table.
import { REPORT_CLIENT_SCRIPT } from './html-client.js';
import type { SimulationResult } from './result.js';
import { serviceNames, triggerInterval, windowNames } from './result.js';
import { formatMs, formatPercent, formatRatio, formatRecovery } from './table.js';

export interface HtmlReportOptions {
  /** The Chart.js UMD bundle's source text (see loadChartJsSource), inlined into the page. */
  chartJsSource: string;
  /** The shell command that reproduces this report, shown on the page. */
  command: string;
  /** Seawall's version, shown in the footer. */
  version?: string;
  /** Intervals [startS, endS] to shade as the trigger when the result has no `during` window (e.g. fault intervals). */
  faultIntervals?: [number, number][];
  /** The service whose arrivals each variant's own chart shows (the deepest one); default: the last service. */
  focusService?: string;
  /** What the page reports, beside the scenario's name (default "Seawall simulation report"). */
  kind?: string;
  /** Trusted HTML placed before the charts (the lab's verdict table); the caller escapes what it embeds. */
  introHtml?: string;
  /** The line under the title, as text (default: the simulated duration, runs and events). */
  meta?: string;
}

/** One chart the browser script draws: a field of one service's series, one line per variant. */
export interface ChartSpec {
  canvasId: string;
  title: string;
  service: string;
  field: 'successRate' | 'arrivals' | 'queueLength';
  scale: number;
  unit: string;
  yLabel: string;
  max: number | null;
  suggestedMax: number;
}

/** The JSON embedded in the page for the browser script: per-series arrays, not rows, to stay small. */
export interface ChartData {
  durationS: number;
  /** Width of a time-series bin, s (1 unless the rows say otherwise). */
  binS: number;
  tickStepS: number;
  /** Intervals shaded as the trigger, [startS, endS]. */
  triggers: [number, number][];
  seeds: number[];
  variants: string[];
  charts: ChartSpec[];
  /** One small chart per variant: user success at the entry service and arrivals at the focus service. */
  variantCharts: { canvasId: string; variant: string }[];
  entryService: string | null;
  focusService: string | null;
  series: {
    seed: number;
    variant: string;
    service: string;
    t: number[];
    arrivals: number[];
    successRate: (number | null)[];
    queueLength: number[];
  }[];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** JSON safe to place inside a <script> element: no "<", ">", "&" or JS-breaking line separators survive raw. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Script source safe inside a <script> element: "</script" and "<!--" cannot end or confuse it. */
export function scriptSafe(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function tickStep(durationS: number): number {
  const candidates = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1800, 3600];
  return candidates.find((step) => durationS / step <= 14) ?? Math.ceil(durationS / 12);
}

/** The smallest gap between consecutive bins of any series (the bin width), or 1 s when no series has two bins. */
function binWidth(series: { t: number[] }[]): number {
  let width = Number.POSITIVE_INFINITY;
  for (const s of series)
    for (let i = 1; i < s.t.length; i++) width = Math.min(width, (s.t[i] ?? 0) - (s.t[i - 1] ?? 0));
  return Number.isFinite(width) && width > 0 ? width : 1;
}

/** Sorted, overlapping intervals merged: [[50, 65], [60, 70]] -> [[50, 70]]. */
export function mergeIntervals(intervals: readonly [number, number][]): [number, number][] {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/** Groups the time series by seed × variant × service and picks the charts to draw. */
export function buildChartData(
  result: SimulationResult,
  hints: Pick<HtmlReportOptions, 'faultIntervals' | 'focusService'> = {},
): ChartData {
  const seeds = [...new Set(result.runs.map((r) => r.seed))];
  const variants = [...new Set(result.runs.map((r) => r.variant))];
  const services = serviceNames(result);
  const byKey = new Map<string, ChartData['series'][number]>();
  const entryServices = new Set<string>();
  const queued = new Set<string>();
  for (const row of result.timeseries) {
    const key = JSON.stringify([row.seed, row.variant, row.service]);
    let series = byKey.get(key);
    if (series === undefined) {
      series = {
        seed: row.seed,
        variant: row.variant,
        service: row.service,
        t: [],
        arrivals: [],
        successRate: [],
        queueLength: [],
      };
      byKey.set(key, series);
    }
    series.t.push(row.t);
    series.arrivals.push(row.arrivals);
    series.successRate.push(row.successRate);
    series.queueLength.push(row.queueLength);
    if (row.successRate !== null) entryServices.add(row.service);
    if (row.queueLength > 0) queued.add(row.service);
  }
  const canvasId = (kind: string, i: number) => `chart-${kind}-${i}`;
  const charts: ChartSpec[] = [
    ...[...entryServices].map(
      (service, i): ChartSpec => ({
        canvasId: canvasId('success', i),
        title: `User success rate at ${service}`,
        service,
        field: 'successRate',
        scale: 100,
        unit: ' %',
        yLabel: 'success (%)',
        max: 100,
        suggestedMax: 100,
      }),
    ),
    ...services.map(
      (service, i): ChartSpec => ({
        canvasId: canvasId('arrivals', i),
        title: `Arrivals at ${service} (attempts per second)`,
        service,
        field: 'arrivals',
        scale: 1,
        unit: '/s',
        yLabel: 'arrivals per s',
        max: null,
        suggestedMax: 1,
      }),
    ),
    ...services
      .filter((service) => queued.has(service))
      .map(
        (service, i): ChartSpec => ({
          canvasId: canvasId('queue', i),
          title: `Waiting queue at ${service} (requests)`,
          service,
          field: 'queueLength',
          scale: 1,
          unit: '',
          yLabel: 'queued requests',
          max: null,
          suggestedMax: 1,
        }),
      ),
  ];
  const during = triggerInterval(result);
  return {
    durationS: result.durationS,
    binS: binWidth([...byKey.values()]),
    tickStepS: tickStep(result.durationS),
    triggers: during ? [during] : mergeIntervals(hints.faultIntervals ?? []),
    seeds,
    variants,
    charts,
    variantCharts: variants.map((variant, i) => ({ canvasId: `variant-${i}`, variant })),
    entryService: [...entryServices][0] ?? null,
    focusService:
      hints.focusService !== undefined && services.includes(hints.focusService)
        ? hints.focusService
        : (services[services.length - 1] ?? null),
    series: [...byKey.values()],
  };
}

function successClass(fraction: number | undefined): string {
  if (fraction === undefined || !Number.isFinite(fraction) || fraction < 0.5) return 'bad';
  return fraction >= 0.99 ? 'good' : 'warn';
}

/** The summary table as HTML (same columns as the terminal table). */
export function summaryTableHtml(result: SimulationResult): string {
  const windows = windowNames(result);
  const services = [...new Set(result.runs.flatMap((r) => Object.keys(r.amplification)))];
  const th = (text: string, attrs = '') => `<th${attrs}>${escapeHtml(text)}</th>`;
  const group = (label: string, n: number) => (n > 0 ? th(label, ` colspan="${n}" class="group"`) : '');
  const head1 = [
    th('variant', ' rowspan="2"'),
    th('seed', ' rowspan="2"'),
    group('success %', windows.length),
    group('p99 ms', windows.length),
    group('amplification (total)', services.length),
    th('recovery s', ' rowspan="2"'),
    th('wasted %', ' rowspan="2"'),
  ].join('');
  const head2 = [...windows, ...windows, ...services].map((h) => th(h)).join('');
  const body = result.runs
    .map((run) => {
      const cells = [
        `<td class="name">${escapeHtml(run.variant)}</td>`,
        `<td>${run.seed}</td>`,
        ...windows.map(
          (w) => `<td class="${successClass(run.successRate[w])}">${formatPercent(run.successRate[w])}</td>`,
        ),
        ...windows.map((w) => `<td>${formatMs(run.p99Ms[w])}</td>`),
        ...services.map((s) => `<td>${formatRatio(run.amplification[s]?.total)}</td>`),
        run.recoverySeconds === null ? '<td class="bad">never</td>' : `<td>${formatRecovery(run.recoverySeconds)}</td>`,
        `<td>${formatPercent(run.wastedWorkFraction)}</td>`,
      ];
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<table class="summary">\n<thead><tr>${head1}</tr><tr>${head2}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

const STYLE = `
:root { color-scheme: light; --fg: #1d2430; --muted: #5b6576; --line: #dde2ea; --card: #fff; --bg: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 24px 28px 40px; }
h1 { font-size: 22px; margin: 0 0 6px; } h1 small { font-weight: 400; color: var(--muted); font-size: 14px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
.meta { color: var(--muted); margin: 0 0 12px; }
pre.cmd { background: #1d2430; color: #e8edf5; padding: 10px 14px; border-radius: 6px; overflow-x: auto; margin: 6px 0 0; }
.controls { display: flex; gap: 16px; align-items: center; color: var(--muted); margin: 12px 0 0; flex-wrap: wrap; }
.swatch { display: inline-block; width: 18px; height: 10px; background: rgba(214, 39, 40, 0.18); border: 1px solid rgba(214, 39, 40, 0.4); vertical-align: middle; margin-right: 4px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px 8px; }
.card h3 { font-size: 14px; margin: 0 0 6px; font-weight: 600; }
.plot { position: relative; height: 320px; }
.charts.small { grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); }
.card.small .plot { height: 210px; }
.card.small h3 { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.table-wrap { overflow-x: auto; }
table.summary { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); font-variant-numeric: tabular-nums; width: 100%; }
table.summary th, table.summary td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
table.summary th { background: #eef1f6; font-weight: 600; font-size: 12px; }
table.summary th.group { text-align: center; border-left: 1px solid var(--line); border-right: 1px solid var(--line); }
table.summary td.name, table.summary th:first-child { text-align: left; }
table.summary tbody tr:hover { background: #f0f4fb; }
td.good { color: #17753a; } td.warn { color: #9a6200; } td.bad { color: #b3261e; font-weight: 600; }
footer { color: var(--muted); margin-top: 28px; font-size: 12px; }
#chart-status { color: #b3261e; }
`;

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
      ? `<label>seed <select id="seed-select">${data.seeds
          .map((s) => `<option value="${s}">${s}</option>`)
          .join('')}</select></label>`
      : `<span>seed ${data.seeds.map(String).join(', ')}</span>`;
  const spans = data.triggers.map(([from, to]) => `${from}–${to} s`).join(', ');
  const trigger =
    data.triggers.length === 0
      ? ''
      : `<span><span class="swatch"></span>trigger (${triggerInterval(result) ? 'the <code>during</code> window' : 'fault intervals'}: ${spans})</span>`;
  const cards = data.charts
    .map(
      (c) =>
        `<section class="card"><h3>${escapeHtml(c.title)}</h3><div class="plot"><canvas id="${c.canvasId}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div></section>`,
    )
    .join('\n');
  const focus = data.focusService === null ? '' : ` and arrivals at ${escapeHtml(data.focusService)}`;
  const variantCards = data.variantCharts
    .map(
      (c) =>
        `<section class="card small"><h3>${escapeHtml(c.variant)}</h3><div class="plot"><canvas id="${c.canvasId}" role="img" aria-label="${escapeHtml(`${c.variant}: success rate${focus}`)}"></canvas></div></section>`,
    )
    .join('\n');
  const runs = `${result.runs.length} run${result.runs.length === 1 ? '' : 's'}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(result.scenario)} <small>${escapeHtml(kind)}</small></h1>
<p class="meta">${options.meta === undefined ? `${result.durationS} s simulated · ${runs} · ${result.engine.events.toLocaleString('en-US')} events` : escapeHtml(options.meta)}${windows ? ` · windows: ${windows}` : ''}</p>
<p class="meta">Reproduce with:</p>
<pre class="cmd"><code>${escapeHtml(options.command)}</code></pre>
<div class="controls">${seedControl}${trigger}<label><input type="checkbox" id="log-scale"> log scale for counts</label><span>Click a legend entry to hide that variant in every chart.</span></div>
<p id="chart-status">Charts need JavaScript.</p>
${options.introHtml === undefined ? '' : `${options.introHtml}\n`}<h2>All variants over time (1 s bins)</h2>
<div class="charts">
${cards}
</div>
<h2>Each variant: user success rate (left axis)${focus} (right axis, same scale in every chart)</h2>
<div class="charts small">
${variantCards}
</div>
<h2>Summary</h2>
<div class="table-wrap">${summaryTableHtml(result)}</div>
<footer>Success rate: share of user requests arriving in the window that got a successful answer within their patience.
Amplification: attempts arriving at a service per user request. Recovery: seconds from the end of the trigger until success is back to 95 % of its pre-trigger level for 5 s.
Wasted: share of the deepest service's executions nobody was waiting for.${options.version ? ` Generated by seawall ${escapeHtml(options.version)}.` : ''}</footer>
</main>
<script type="application/json" id="seawall-data">${jsonForScript(data)}</script>
<script>${scriptSafe(options.chartJsSource)}</script>
<script>${REPORT_CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
