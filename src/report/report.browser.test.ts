// Opens report.html in headless Chromium: the checkout incident as the CLI writes it, and a hand-built FIXTURE result.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumStatus, clickChip, inspectCanvases, launchChromium, openReport } from '../../test/report/chromium.js';
import { fixtureResult } from '../../test/report/fixture.js';
import { writeReportFiles } from '../cli/output.js';
import { reportHintsFor } from '../cli/report-hints.js';
import { loadScenario, simulate } from '../sim/index.js';
import { loadChartJsSource } from './chartjs.js';
import { renderReportHtml } from './html.js';
import type { SimulationSummary } from './result.js';

const status = chromiumStatus();
/** One variant of each group of checkout-incident: the seed, two proposals, the fix, an ablation, a layer alone. */
const INCIDENT_VARIANTS = ['bad', 'a-jitter', 'c-circuit-breaker', 'good', 'good-no-queue-limit', 'budget-only'];

// Runs in the page: for every service box of every shown topology picture, whether its text fits inside its box.
const TOPOLOGY_FIT = `[...document.querySelectorAll('svg.topology')].filter((svg) => svg.getBoundingClientRect().width > 0)
  .flatMap((svg) => [...svg.querySelectorAll('g.service')].map((g) => {
    const box = g.querySelector('rect').getBBox();
    const overflow = [...g.querySelectorAll('text')].filter((t) => {
      const b = t.getBBox();
      return b.x < box.x || b.y < box.y || b.x + b.width > box.x + box.width || b.y + b.height > box.y + box.height;
    }).map((t) => t.textContent);
    return { svg: svg.id, service: g.getAttribute('data-service'), overflow };
  }))`;

if (!status.present && status.required) {
  describe('report.html in headless Chromium', () => {
    it('needs Chromium under CI', () => {
      throw new Error(`Chromium is required under CI=${process.env.CI}: ${status.reason}`);
    });
  });
} else {
  if (!status.present) console.warn(`[skip] report.html browser tests: ${status.reason}`);
  const title = status.present
    ? 'report.html in headless Chromium'
    : `report.html in headless Chromium — SKIPPED: ${status.reason}`;

  describe.skipIf(!status.present)(title, () => {
    let browser: Browser;
    let dir: string;
    let fixtureFile: string;
    let incidentFile: string;
    let summary: SimulationSummary;
    const hostile = `<img src=x onerror="window.__pwned=1">`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'seawall-report-'));
      fixtureFile = join(dir, 'fixture.html');
      const result = fixtureResult({ seeds: [1, 2], hostileVariant: hostile });
      writeFileSync(
        fixtureFile,
        renderReportHtml(result, {
          chartJsSource: loadChartJsSource(),
          command: 'npx seawall simulate fixture --seeds 1,2 --out out',
          version: 'test',
        }),
      );
      // The incident as `seawall simulate checkout-incident --variant ... --out DIR` writes it (the CLI's own hints).
      const scenario = loadScenario('checkout-incident');
      const incident = await simulate(scenario, { variants: INCIDENT_VARIANTS });
      const out = join(dir, 'incident');
      writeReportFiles(out, incident, {
        chartJsSource: loadChartJsSource(),
        command: 'npx seawall simulate checkout-incident --out out',
        ...reportHintsFor(scenario, INCIDENT_VARIANTS),
      });
      incidentFile = join(out, 'report.html');
      summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as SimulationSummary;
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('opens with the verdict: a row per variant, grouped, recovered or not exactly as summary.json says', async () => {
      const { page, consoleErrors } = await openReport(browser, incidentFile);
      const rows = (await page.$$eval('table.verdict-table tr.variant-row', (trs) =>
        trs.map((tr) => ({
          variant: tr.getAttribute('data-variant'),
          verdict: tr.getAttribute('data-verdict'),
          mark: tr.querySelector('td.verdict')?.textContent ?? '',
        })),
      )) as { variant: string; verdict: string; mark: string }[];
      const groups = await page.$$eval('table.verdict-table tr.group-row', (trs) => trs.map((tr) => tr.textContent));
      expect(groups).toEqual(['seed', 'proposals', 'fix', 'ablations', 'layers alone']);
      expect(rows.map((r) => r.variant)).toEqual(INCIDENT_VARIANTS);
      for (const row of rows) {
        const run = summary.runs.find((r) => r.variant === row.variant);
        const recovered = run?.recoverySeconds !== null;
        expect(row.verdict, row.variant).toBe(recovered ? 'recovers' : 'never');
        expect(row.mark.startsWith(recovered ? '✓' : '✗'), `${row.variant}: ${row.mark}`).toBe(true);
      }
      // The verdict sits above everything else on the first screen.
      const verdictTop = await page.$eval('table.verdict-table', (t) => t.getBoundingClientRect().top);
      const firstCanvasTop = await page.$eval('canvas', (c) => c.getBoundingClientRect().top);
      expect(verdictTop).toBeLessThan(300);
      expect(firstCanvasTop).toBeGreaterThan(verdictTop);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('draws the topology of the base and of the compared variant, every label inside its box', async () => {
      const { page, consoleErrors } = await openReport(browser, incidentFile);
      const shown = async () =>
        (await page.$$eval('svg.topology', (svgs) =>
          svgs.filter((s) => s.getBoundingClientRect().width > 0).map((s) => s.getAttribute('aria-label')),
        )) as string[];
      expect(await shown()).toEqual(['Services and call policies of bad', 'Services and call policies of good']);
      expect(await page.locator('svg.topology:visible g.service').count()).toBe(6);
      expect(await page.locator('svg.topology:visible text.changed').count()).toBeGreaterThan(4);
      expect(await page.$eval('svg.topology', (s) => s.getBoundingClientRect().height)).toBeGreaterThan(100);
      const fit = (await page.evaluate(TOPOLOGY_FIT)) as { service: string; overflow: string[] }[];
      expect(fit.filter((f) => f.overflow.length > 0)).toEqual([]);
      // Choosing another variant shows its picture instead (a click on its verdict row does the same).
      await page.selectOption('#variant-select', 'c-circuit-breaker');
      expect(await shown()).toEqual([
        'Services and call policies of bad',
        'Services and call policies of c-circuit-breaker',
      ]);
      await page.click('tr.variant-row[data-variant="budget-only"] td.name');
      expect(await page.inputValue('#variant-select')).toBe('budget-only');
      expect((await shown())[1]).toBe('Services and call policies of budget-only');
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('draws every chart with data: four per group, load per service for the base and the compared variant', async () => {
      const { page, consoleErrors, foreignRequests } = await openReport(browser, incidentFile);
      const canvases = await inspectCanvases(page);
      const groupCanvases = canvases.filter((c) => c.id.startsWith('group-'));
      expect(groupCanvases).toHaveLength(5 * 4);
      for (const canvas of canvases) {
        expect(canvas.width, canvas.id).toBeGreaterThan(200);
        expect(canvas.height, canvas.id).toBeGreaterThan(150);
        expect(canvas.painted / (canvas.width * canvas.height), canvas.id).toBeGreaterThan(0.01);
        expect(canvas.points, canvas.id).toBeGreaterThan(100);
        expect(canvas.firstLine, canvas.id).toBeGreaterThan(50);
        expect(canvas.triggerAlpha, canvas.id).toBeGreaterThan(0);
      }
      // No more lines on one chart than its group has variants; the detail charts show bad and good only.
      expect(groupCanvases.map((c) => c.visibleDatasets)).toEqual([1, 2, 1, 1, 1].flatMap((n) => [n, n, n, n]));
      expect(canvases.filter((c) => c.id.startsWith('chart-')).every((c) => c.visibleDatasets === 2)).toBe(true);
      expect(await page.getAttribute('html', 'data-charts')).toBe(String(canvases.length));
      expect(await page.textContent('#chart-status')).toBe('');
      expect(consoleErrors).toEqual([]);
      expect(foreignRequests).toEqual([]);
      await page.close();
    });

    it('charts no dip at the end: the last patience (2 s) of the success series is a gap, the second before it is not', async () => {
      const { page } = await openReport(browser, incidentFile);
      const tail =
        (await page.evaluate(`Chart.getChart(document.getElementById('group-2-success')).data.datasets[0].data
        .slice(-3).map((p) => p.y)`)) as (number | null)[];
      expect(tail.slice(1)).toEqual([null, null]);
      expect(tail[0]).toBeGreaterThan(95);
      await page.close();
    });

    it('keeps drawing after switching seed, log scale, hiding variants and groups, still without errors or requests', async () => {
      const { page, consoleErrors, foreignRequests } = await openReport(browser, fixtureFile);
      await page.selectOption('#seed-select', '2');
      await page.check('#log-scale');
      const before = await inspectCanvases(page);
      expect(before.every((c) => c.points > 10)).toBe(true);
      // The fixture's recovering variants waste nothing: a flat line on the axis, no colour of its own to count.
      const lined = before.filter((c) => !/^group-[12]-wasted$/.test(c.id));
      expect(lined.filter((c) => !(c.firstLine > 50)).map((c) => c.id)).toEqual([]);
      // Hiding `bad` from the load-per-service charts leaves the compared variant drawn there.
      await clickChip(page, 'detail', 'bad');
      const detail = (await inspectCanvases(page)).filter((c) => c.id.startsWith('chart-'));
      expect(detail.every((c) => c.visibleDatasets === 1 && c.firstLabel === 'good' && c.firstLine > 50)).toBe(true);
      // Hiding `good` in its group's row leaves that row's charts empty; the other rows keep their lines.
      await clickChip(page, 'group', 'good');
      const rows = (await inspectCanvases(page)).filter((c) => c.id.startsWith('group-'));
      expect(rows.filter((c) => c.id.startsWith('group-1-')).every((c) => c.visibleDatasets === 0)).toBe(true);
      expect(rows.filter((c) => c.id.startsWith('group-0-')).every((c) => c.visibleDatasets === 1)).toBe(true);
      await page.uncheck('.group-toggle[data-group="seed"]');
      expect(await page.locator('.group-block[data-group="seed"]').isVisible()).toBe(false);
      expect(consoleErrors).toEqual([]);
      expect(foreignRequests).toEqual([]);
      await page.close();
    });

    it('shows a hostile variant name as text and never runs it', async () => {
      const { page, consoleErrors } = await openReport(browser, fixtureFile);
      expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
      expect(await page.locator('table.summary td.name', { hasText: hostile }).count()).toBe(2);
      expect(await page.locator('table.verdict-table td.name', { hasText: hostile }).count()).toBe(1);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });
  });
}
