// The report screenshots in docs/images/: opens a report.html in headless Chromium (1280 px wide, or a 390 px phone)
// and saves the shots asked for. Run: npm run build && node dist/cli/main.js simulate checkout-incident --out out/checkout-incident
//   npx tsx tools/docs/report-screenshots.ts out/checkout-incident/report.html docs/images/report [SHOTS]
// SHOTS, comma-separated (default first-screen,topology,groups): first-screen, topology (the pictures of the
// base and the compared variant), topology-base (the base's alone), groups (the first three group rows), full (the whole page), phone (the first
// screen of a 390 × 844 phone). Each is written as PREFIX-SHOT.png.

import { resolve } from 'node:path';
import { launchChromium, openReport } from '../../test/report/chromium.js';

const SHOTS = ['first-screen', 'topology', 'topology-base', 'groups', 'full', 'phone'];
const [file = 'out/checkout-incident/report.html', prefix = 'docs/images/report', list] = process.argv.slice(2);
const shots = (list ?? 'first-screen,topology,groups').split(',');
const unknown = shots.filter((s) => !SHOTS.includes(s));
if (unknown.length > 0) throw new Error(`unknown shot ${unknown.join(', ')} (known: ${SHOTS.join(', ')})`);
const browser = await launchChromium();
try {
  const errors: string[] = [];
  if (shots.some((s) => s !== 'phone')) {
    const { page, consoleErrors } = await openReport(browser, resolve(file), { width: 1280, height: 900 });
    if (shots.includes('first-screen')) await page.screenshot({ path: `${prefix}-first-screen.png` });
    if (shots.includes('topology')) await page.locator('.topology-grid').screenshot({ path: `${prefix}-topology.png` });
    if (shots.includes('topology-base')) {
      await page
        .locator('.topology-grid figure')
        .first()
        .screenshot({ path: `${prefix}-topology-base.png` });
    }
    if (shots.includes('groups')) {
      // The first three group rows (the seed, the proposals, the fix) with their heading and controls.
      const clip = (await page.evaluate(`(() => {
        const top = document.querySelector('.group-block').previousElementSibling.previousElementSibling;
        const blocks = [...document.querySelectorAll('.group-block')].slice(0, 3);
        const a = top.getBoundingClientRect(), b = blocks[blocks.length - 1].getBoundingClientRect();
        return { x: 0, y: a.top + window.scrollY - 8, width: document.documentElement.clientWidth, height: b.bottom - a.top + 16 };
      })()`)) as { x: number; y: number; width: number; height: number };
      await page.screenshot({ path: `${prefix}-groups.png`, clip, fullPage: true });
    }
    if (shots.includes('full')) await page.screenshot({ path: `${prefix}-full.png`, fullPage: true });
    errors.push(...consoleErrors);
  }
  if (shots.includes('phone')) {
    const { page, consoleErrors } = await openReport(browser, resolve(file), { width: 390, height: 844 });
    await page.screenshot({ path: `${prefix}-phone.png` });
    errors.push(...consoleErrors);
  }
  if (errors.length > 0) throw new Error(`the page logged errors: ${errors.join('; ')}`);
  console.log(`wrote ${shots.map((s) => `${prefix}-${s}.png`).join(', ')}`);
} finally {
  await browser.close();
}
