// report.html's stylesheet (inlined): layout, the verdict table, the topology picture, chart cards and controls.

/** Where the page is laid out for a phone (one column, the verdict as cards). */
// @ko report-phone-layout
export const PHONE_MEDIA = '(max-width: 640px)';

export const REPORT_STYLE = `
:root { color-scheme: light; --fg: #1d2430; --muted: #5b6576; --line: #dde2ea; --card: #fff; --bg: #f5f7fa;
  --good: #17753a; --good-bg: #e3f4e8; --bad: #b3261e; --bad-bg: #fbe6e4; --warn: #8a5a00; --warn-bg: #fff2d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1320px; margin: 0 auto; padding: 20px 28px 40px; }
h1 { font-size: 22px; margin: 0 0 4px; } h1 small { font-weight: 400; color: var(--muted); font-size: 14px; }
h2 { font-size: 17px; margin: 26px 0 8px; }
h3 { font-size: 14px; margin: 0 0 6px; font-weight: 600; }
.lede { margin: 0 0 4px; max-width: 1100px; }
.meta { color: var(--muted); margin: 0 0 8px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
pre.cmd { background: #1d2430; color: #e8edf5; padding: 10px 14px; border-radius: 6px; overflow-x: auto; margin: 6px 0 0; }
.controls { display: flex; gap: 8px 18px; align-items: center; color: var(--muted); margin: 6px 0 12px; flex-wrap: wrap; }
.controls label { white-space: nowrap; }
.swatch { display: inline-block; width: 18px; height: 10px; background: rgba(214, 39, 40, 0.18); border: 1px solid rgba(214, 39, 40, 0.4); vertical-align: middle; margin-right: 4px; }
.swatch-line { display: inline-block; width: 16px; height: 4px; border-radius: 2px; vertical-align: middle; margin-right: 7px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { background: #eef1f6; font-weight: 600; font-size: 12px; vertical-align: bottom; }
th small { font-weight: 400; color: var(--muted); }
td.name, th:first-child { text-align: left; }
table.verdict-table { width: 100%; }
table.verdict-table td.name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; cursor: pointer; }
table.verdict-table tr.group-row th { text-align: left; background: #f7f8fb; color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.04em; padding-top: 8px; }
table.verdict-table tr.variant-row.selected td { background-color: #eaf1ff; }
table.verdict-table tr.variant-row:hover td { background-color: #f3f6fb; }
table.verdict-table th { white-space: normal; text-align: left; }
table.verdict-table th.num { text-align: right; }
table.verdict-table th.win { text-align: right; min-width: 70px; }
table.verdict-table th.span { text-align: center; border-bottom: 1px solid var(--line); }
td.verdict { text-align: left; font-weight: 600; }
td.verdict .mark { display: inline-block; width: 1.1em; }
td.verdict.recovers { color: var(--good); background-color: var(--good-bg); }
td.verdict.never { color: var(--bad); background-color: var(--bad-bg); }
td.verdict.some-seeds { color: var(--warn); background-color: var(--warn-bg); }
td.verdict.no-trigger { color: var(--muted); font-weight: 400; }
td.num.bar { background-image: linear-gradient(to right, #dfe6f0 var(--bar), transparent var(--bar)); background-repeat: no-repeat; background-size: calc(100% - 8px) 18px; background-position: 4px center; }
td.desc { text-align: left; white-space: normal; color: var(--muted); font-size: 12px; line-height: 1.3; min-width: 220px; max-width: 400px; }
td.desc div { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
table.summary { width: 100%; }
table.summary th.group { text-align: center; border-left: 1px solid var(--line); border-right: 1px solid var(--line); }
td.bad { color: var(--bad); font-weight: 600; }
.topology-grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: 14px; }
figure { margin: 0; min-width: 0; }
.topology-scroll { overflow-x: auto; }
figcaption { color: var(--muted); margin: 0 0 6px; }
figcaption strong { color: var(--fg); font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; }
svg.topology { display: block; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
svg.topology .node { fill: #f4f7fc; stroke: #8796ad; stroke-width: 1.2; }
svg.topology .users { fill: #fff7e6; stroke: #c79a3a; stroke-width: 1.2; }
svg.topology .node-name { font: 600 14px system-ui, sans-serif; fill: var(--fg); }
svg.topology .node-line { font: 12px system-ui, sans-serif; fill: #3c4656; }
svg.topology .edge { stroke: #5b6576; stroke-width: 1.5; fill: none; }
svg.topology .edge.around { stroke-dasharray: 5 3; }
svg.topology .label-box { fill: #fff; stroke: #c9d1dd; stroke-width: 1; }
svg.topology .label-box.changed-box { stroke: #b34700; }
svg.topology .arrow-head { fill: #5b6576; }
svg.topology .edge-label { font: 12px system-ui, sans-serif; fill: #3c4656; }
svg.topology .changed { fill: #b34700; font-weight: 700; }
.changed-key { color: #b34700; font-weight: 700; }
.topology-panel p.meta { margin: 0 0 6px; }
.same-as-base { color: var(--muted); padding: 14px; background: var(--card); border: 1px dashed var(--line); border-radius: 8px; }
.group-block { margin: 0 0 18px; }
.group-block[hidden] { display: none; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 8px; }
.chip { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid var(--line); background: var(--card); border-radius: 14px; padding: 2px 10px 2px 8px; cursor: pointer; color: var(--fg); }
.chip[aria-pressed="false"] { opacity: 0.45; text-decoration: line-through; }
.chip .swatch-line { margin-right: 6px; }
.charts { display: grid; gap: 12px; }
.charts.four { grid-template-columns: repeat(4, minmax(0, 1fr)); }
.charts.detail { grid-template-columns: repeat(auto-fit, minmax(min(420px, 100%), 1fr)); }
@media (max-width: 1100px) { .charts.four { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
/* A phone: one column of charts, and the verdict table as one card per variant: name and verdict on top, then the
   numbers (named by their data-label), then the description. The ::after of a row is the line break between. */
@media ${PHONE_MEDIA} {
  main { padding: 12px 10px 28px; }
  h1 { font-size: 19px; }
  pre.cmd { white-space: pre-wrap; overflow-wrap: anywhere; }
  .charts.four { grid-template-columns: minmax(0, 1fr); }
  .plot { height: 180px; }
  table.verdict-table, table.verdict-table tbody { display: block; }
  table.verdict-table thead { display: none; }
  table.verdict-table tr.group-row, table.verdict-table tr.group-row th { display: block; }
  table.verdict-table tr.variant-row { display: flex; flex-wrap: wrap; align-items: center; border-bottom: 1px solid var(--line); padding: 3px 0; }
  table.verdict-table tr.variant-row::after { content: ""; order: 1; flex: 0 0 100%; }
  table.verdict-table tr.variant-row td { border-bottom: 0; padding: 3px 8px; }
  table.verdict-table td.name { flex: 1 1 auto; }
  table.verdict-table td.verdict { flex: 0 1 auto; white-space: normal; border-radius: 4px; margin-right: 6px; }
  table.verdict-table td.num, table.verdict-table td.desc { order: 2; }
  table.verdict-table td.num { flex: 1 1 0; min-width: 0; text-align: left; background-size: calc(100% - 8px) 4px; background-position: 4px bottom; }
  table.verdict-table td.num::before { content: attr(data-label); display: block; font-size: 11px; color: var(--muted); }
  table.verdict-table td.desc { flex: 1 1 100%; min-width: 0; max-width: none; }
}
}
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 6px; min-width: 0; }
.card h4 { font-size: 12.5px; margin: 0 0 4px; font-weight: 600; color: #303a4a; }
.plot { position: relative; height: 200px; }
.charts.detail .plot { height: 260px; }
footer { color: var(--muted); margin-top: 28px; font-size: 12px; }
footer p { margin: 4px 0; }
#chart-status { color: var(--bad); }
`;
