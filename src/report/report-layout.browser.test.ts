// report.html's layout in headless Chromium: the topology of a fan-out and of a gateway calling three services with
// no label over another label, a box or an arrow; and the page on a phone (390 px): nothing wider than the screen,
// the verdict whole on the first screen, the topology's text still readable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumStatus, launchChromium, openReport } from '../../test/report/chromium.js';
import { phoneCheck, topologyCollisions } from '../../test/report/layout-checks.js';
import { writeReportFiles } from '../cli/output.js';
import { reportHintsFor } from '../cli/report-hints.js';
import { loadScenario, simulate } from '../sim/index.js';
import { loadChartJsSource } from './chartjs.js';
import { MIN_TOPOLOGY_SCALE } from './topology.js';

const status = chromiumStatus();
/** The built-in fan-out (root -> 3 services -> 3 leaves each) and a gateway calling three services (a FIXTURE). */
const SCENARIOS = { 'hops-fan-out': 'hops-fan-out', gateway: 'test/report/gateway.yaml' } as const;
const PHONE = { width: 390, height: 844 };

if (!status.present && status.required) {
  describe('report.html layout in headless Chromium', () => {
    it('needs Chromium under CI', () => {
      throw new Error(`Chromium is required under CI=${process.env.CI}: ${status.reason}`);
    });
  });
} else {
  if (!status.present) console.warn(`[skip] report.html layout tests: ${status.reason}`);
  describe.skipIf(!status.present)('report.html layout in headless Chromium', () => {
    let browser: Browser;
    let dir: string;
    const files: Record<string, string> = {};
    const variants: Record<string, string[]> = {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'seawall-layout-'));
      const launched = launchChromium();
      for (const [key, source] of Object.entries(SCENARIOS)) {
        const scenario = loadScenario(source);
        const names = scenario.variants.map((v) => v.name);
        const result = await simulate(scenario, { variants: names, parallel: false });
        const out = join(dir, key);
        writeReportFiles(out, result, {
          chartJsSource: loadChartJsSource(),
          command: `npx seawall simulate ${source} --out out`,
          ...reportHintsFor(scenario, names),
        });
        files[key] = join(out, 'report.html');
        variants[key] = names;
      }
      browser = await launched;
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it.each(Object.keys(SCENARIOS))(
      'draws %s with no label over another label, a service box or an arrow, in every variant',
      async (key) => {
        const { page, consoleErrors } = await openReport(browser, files[key] as string, { width: 1280, height: 900 });
        const compared = (variants[key] as string[]).slice(1);
        let labels = 0;
        for (const variant of compared) {
          await page.selectOption('#variant-select', variant);
          const found = await topologyCollisions(page);
          expect(found.problems, `${key}, base and ${variant}`).toEqual([]);
          labels += found.labels;
        }
        // Every call and traffic source has its label, in both pictures shown each time.
        const scenario = loadScenario(SCENARIOS[key as keyof typeof SCENARIOS]);
        const perPicture = (scenario.variants[0]?.model.edges.length ?? 0) + 1;
        expect(labels).toBeGreaterThanOrEqual(compared.length * perPicture);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
        expect(consoleErrors).toEqual([]);
        await page.close();
      },
    );

    it.each(Object.keys(SCENARIOS))(
      'reads %s on a phone: nothing wider than 390 px, the verdict whole on the first screen, the topology readable',
      async (key) => {
        const { page, consoleErrors } = await openReport(browser, files[key] as string, PHONE);
        const phone = await phoneCheck(page);
        expect(phone.screenW).toBe(PHONE.width);
        expect(phone.wide).toEqual([]);
        expect(phone.scrollWidth).toBeLessThanOrEqual(PHONE.width);
        expect(phone.cells.length).toBe((variants[key] as string[]).length);
        expect(phone.cells.filter((c) => c.clipped)).toEqual([]);
        expect(phone.cells[0]?.bottom).toBeLessThanOrEqual(PHONE.height);
        // The pictures scroll sideways in their own box rather than shrink their text below readable.
        expect(phone.scales.length).toBe(2);
        for (const scale of phone.scales) expect(scale).toBeGreaterThanOrEqual(MIN_TOPOLOGY_SCALE - 0.01);
        expect(consoleErrors).toEqual([]);
        await page.close();
      },
    );
  });
}
