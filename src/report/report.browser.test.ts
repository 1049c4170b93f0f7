// Opens report.html (built from a hand-built FIXTURE result with the real Chart.js) in headless Chromium.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumStatus,
  clickLegend,
  inspectCanvases,
  launchChromium,
  openReport,
} from '../../test/report/chromium.js';
import { fixtureResult } from '../../test/report/fixture.js';
import { loadChartJsSource } from './chartjs.js';
import { renderReportHtml } from './html.js';

const status = chromiumStatus();

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
    let file: string;
    const hostile = `<img src=x onerror="window.__pwned=1">`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'seawall-report-'));
      file = join(dir, 'report.html');
      const result = fixtureResult({ seeds: [1, 2], hostileVariant: hostile });
      const html = renderReportHtml(result, {
        chartJsSource: loadChartJsSource(),
        command: 'npx seawall simulate fixture --seeds 1,2 --out out',
        version: 'test',
      });
      writeFileSync(file, html);
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('draws every chart: canvases with a size, painted pixels, the variant lines and the shaded trigger', async () => {
      const { page, consoleErrors, foreignRequests } = await openReport(browser, file);
      const canvases = await inspectCanvases(page);
      expect(canvases.map((c) => c.id)).toEqual([
        'chart-success-0',
        'chart-arrivals-0',
        'chart-arrivals-1',
        'chart-arrivals-2',
        'chart-queue-0',
        'variant-0',
        'variant-1',
        'variant-2',
      ]);
      for (const canvas of canvases) {
        expect(canvas.width, canvas.id).toBeGreaterThan(300);
        expect(canvas.height, canvas.id).toBeGreaterThan(150);
        expect(canvas.painted / (canvas.width * canvas.height), canvas.id).toBeGreaterThan(0.01);
        expect(canvas.firstVariantLine, canvas.id).toBeGreaterThan(100);
        expect(canvas.triggerAlpha, canvas.id).toBeGreaterThan(0);
      }
      expect(await page.getAttribute('html', 'data-charts')).toBe('8');
      expect(await page.textContent('#chart-status')).toBe('');
      expect(consoleErrors).toEqual([]);
      expect(foreignRequests).toEqual([]);
      await page.close();
    });

    it('keeps drawing after switching seed, log scale and hiding a variant, still without errors or requests', async () => {
      const { page, consoleErrors, foreignRequests } = await openReport(browser, file);
      await page.selectOption('#seed-select', '2');
      await page.check('#log-scale');
      const before = await inspectCanvases(page);
      expect(before.every((c) => c.firstVariantLine > 150)).toBe(true);
      // Hiding `bad` (the first variant) through one chart's legend hides it in every chart.
      await clickLegend(page, 'bad');
      const after = (await inspectCanvases(page)).filter((c) => c.id.startsWith('chart-'));
      // What is left of the colour is the legend's own swatch (about 45 px), not a line.
      expect(after.every((c) => c.firstVariantLine < 80)).toBe(true);
      expect(after.every((c) => c.painted > 1000)).toBe(true);
      expect(consoleErrors).toEqual([]);
      expect(foreignRequests).toEqual([]);
      await page.close();
    });

    it('shows a hostile variant name as text and never runs it', async () => {
      const { page, consoleErrors } = await openReport(browser, file);
      expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
      expect(await page.locator('table.summary td.name', { hasText: hostile }).count()).toBe(2);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });
  });
}
