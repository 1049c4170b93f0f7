// Tests for report.html's builder: self-contained, escaped, deterministic; on a hand-built FIXTURE result.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { loadChartJsSource } from './chartjs.js';
import { buildChartData, escapeHtml, jsonForScript, renderReportHtml, scriptSafe, summaryTableHtml } from './html.js';

const FAKE_CHART_JS = '/* fake chart.js for string tests */ window.Chart = undefined;';
const options = { chartJsSource: FAKE_CHART_JS, command: 'npx seawall simulate fixture --out out/x', version: '0.0.0' };

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('jsonForScript and scriptSafe', () => {
  it('cannot close the script element or open a comment, and still parses to the same value', () => {
    const value = { name: '</script><script>alert(1)</script><!--', sep: '\u2028\u2029', amp: 'a&b' };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('breaks "</script" and "<!--" inside inlined code without changing what the code means', () => {
    const code = 'var s = "</SCRIPT>" + "<!--";';
    const safe = scriptSafe(code);
    expect(safe).not.toMatch(/<\/script|<!--/i);
    expect(new Function(`${safe}; return s;`)()).toBe('</SCRIPT><!--');
  });
});

describe('renderReportHtml (fixture result)', () => {
  const hostile = `<img src=x onerror="window.__pwned=1">'&`;
  const html = renderReportHtml(fixtureResult({ seeds: [1, 2], hostileVariant: hostile }), {
    ...options,
    command: `npx seawall simulate 'a <b>.yaml' --out out`,
  });

  it('is a complete HTML document with the scenario name, the command and the summary table', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>Seawall simulation: fixture-checkout</title>');
    expect(html).toContain('npx seawall simulate &#39;a &lt;b&gt;.yaml&#39; --out out');
    expect(html).toContain('<table class="summary">');
  });

  it('escapes names from the scenario everywhere they appear', () => {
    expect(html).not.toContain('<img');
    expect(html).toContain(escapeHtml(hostile));
  });

  it('loads nothing from the network: no src/href to a URL and a CSP that forbids fetching', () => {
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<(link|iframe|object|embed)\b/i);
    expect(html).toContain(`default-src 'none'`);
  });

  it('inlines the Chart.js source it is given and the embedded data', () => {
    expect(html).toContain(FAKE_CHART_JS);
    expect(html).toContain('<script type="application/json" id="seawall-data">');
  });

  it('is a pure function: the same result gives the same bytes', () => {
    const again = renderReportHtml(fixtureResult({ seeds: [1, 2], hostileVariant: hostile }), {
      ...options,
      command: `npx seawall simulate 'a <b>.yaml' --out out`,
    });
    expect(again).toBe(html);
  });

  it('offers a seed selector only when there is more than one seed', () => {
    expect(html).toContain('id="seed-select"');
    expect(renderReportHtml(fixtureResult(), options)).not.toContain('id="seed-select"');
  });

  it('inlines the real Chart.js bundle when given it (no chart.js import left to resolve)', () => {
    const source = loadChartJsSource();
    expect(source).toMatch(/Chart\.js v4/);
    const page = renderReportHtml(fixtureResult(), { ...options, chartJsSource: source });
    expect(page.length).toBeGreaterThan(source.length);
  });
});

describe('buildChartData (fixture result)', () => {
  const data = buildChartData(fixtureResult({ seeds: [1, 2] }));

  it('shades the during window as the trigger, or else the fault intervals given', () => {
    expect(data.triggers).toEqual([[10, 15]]);
    expect(buildChartData(fixtureResult(), { faultIntervals: [[1, 2]] }).triggers).toEqual([[10, 15]]);
    const noDuring = { ...fixtureResult(), windows: { all: [0, 30] as [number, number] } };
    expect(buildChartData(noDuring).triggers).toEqual([]);
    expect(
      buildChartData(noDuring, {
        faultIntervals: [
          [20, 25],
          [5, 8],
          [7, 9],
        ],
      }).triggers,
    ).toEqual([
      [5, 9],
      [20, 25],
    ]);
  });

  it('draws four charts per group, load at every service, and queues where one formed', () => {
    expect(data.groupCharts.map((g) => g.group)).toEqual(['seed', 'fix']);
    expect(data.groupCharts[0]?.charts.map((c) => c.metric)).toEqual(['success', 'load', 'amplification', 'wasted']);
    expect(data.charts.map((c) => `${c.field}@${c.service}`)).toEqual([
      'arrivals@checkout-bff',
      'arrivals@coupon-api',
      'arrivals@member-api',
      'queueLength@member-api',
    ]);
    const ids = [
      ...data.charts.map((c) => c.canvasId),
      ...data.groupCharts.flatMap((g) => g.charts.map((c) => c.canvasId)),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect(data.entryService).toBe('checkout-bff');
    expect(data.focusService).toBe('member-api');
  });

  it('compares the base with the best variant that recovers, unless told which', () => {
    expect(data.baseVariant).toBe('bad');
    expect(data.selectedVariant).toBe('good');
    expect(buildChartData(fixtureResult(), { selectedVariant: 'bad' }).selectedVariant).toBe('bad');
    expect(buildChartData(fixtureResult(), { selectedVariant: 'nope' }).selectedVariant).toBe('good');
  });

  it('groups rows into one series per seed × variant × service, bins in order', () => {
    expect(data.series).toHaveLength(2 * 2 * 3);
    const series = data.series.find((s) => s.seed === 2 && s.variant === 'bad' && s.service === 'member-api');
    expect(series?.t).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(series?.arrivals[20]).toBe(700 * 16 + 2 + 2);
    expect(data.binS).toBe(1);
    expect(data.seeds).toEqual([1, 2]);
    expect(data.variants).toEqual(['bad', 'good']);
  });
});

describe('the page (fixture result)', () => {
  const html = renderReportHtml(fixtureResult(), options);

  it('puts the verdict first: title, description, then the verdict table before any chart or figure', () => {
    const at = (needle: string) => html.indexOf(needle);
    expect(at('A hand-built fixture: &lt;three&gt; services &amp; a 5 s trigger.')).toBeGreaterThan(0);
    expect(at('<table class="verdict-table">')).toBeGreaterThan(at('<h1>'));
    expect(at('<table class="verdict-table">')).toBeLessThan(at('<canvas'));
    expect(at('<table class="verdict-table">')).toBeLessThan(at('<table class="summary">'));
  });

  it('draws no topology without the models, and one per variant with them', () => {
    expect(html).not.toContain('<svg');
    const topology = (attempts: number) => ({
      traffic: [{ to: 'checkout-bff', line: '700/s' }],
      nodes: [
        { name: 'checkout-bff', depth: 0, lines: [] },
        { name: 'member-api', depth: 1, lines: ['50 workers'] },
      ],
      edges: [{ from: 'checkout-bff', to: 'member-api', lines: [`${attempts} attempts`] }],
    });
    const page = renderReportHtml(fixtureResult(), { ...options, topologies: { bad: topology(4), good: topology(3) } });
    expect(page.match(/<svg class="topology"/g)).toHaveLength(2);
    expect(page).toContain('class="edge-label changed">3 attempts</text>');
    const same = renderReportHtml(fixtureResult(), { ...options, topologies: { bad: topology(4), good: topology(4) } });
    expect(same.match(/<svg class="topology"/g)).toHaveLength(1);
    expect(same).toContain('good has the same services and call policies as bad.');
  });
});

describe('summaryTableHtml (fixture result)', () => {
  it('has a row per run and marks a run that never recovered', () => {
    const table = summaryTableHtml(fixtureResult());
    expect(table.match(/<tr>/g)).toHaveLength(2 + 2);
    expect(table).toContain('<td class="bad">never</td>');
    expect(table).toContain('colspan="3" class="group">success %');
  });
});
