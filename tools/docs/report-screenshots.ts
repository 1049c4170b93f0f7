// The report screenshots in docs/images/: opens a report.html in headless Chromium and saves the first screen and
// two parts of it (no full page: the docs ship in the npm package, whose PNGs test/package-files.test.ts bounds).
// Run: npm run build && node dist/cli/main.js simulate checkout-incident --out out/checkout-incident
//      npx tsx tools/docs/report-screenshots.ts out/checkout-incident/report.html docs/images/report
// (writes docs/images/report-first-screen.png, -topology.png and -groups.png)

import { resolve } from 'node:path';
import { launchChromium, openReport } from '../../test/report/chromium.js';

const [file = 'out/checkout-incident/report.html', prefix = 'docs/images/report'] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, consoleErrors } = await openReport(browser, resolve(file));
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.screenshot({ path: `${prefix}-first-screen.png` });
  await page.locator('.topology-grid').screenshot({ path: `${prefix}-topology.png` });
  // The first three group rows (the seed, the proposals, the fix) with their heading and controls.
  const clip = (await page.evaluate(`(() => {
    const top = document.querySelector('.group-block').previousElementSibling.previousElementSibling;
    const blocks = [...document.querySelectorAll('.group-block')].slice(0, 3);
    const a = top.getBoundingClientRect(), b = blocks[blocks.length - 1].getBoundingClientRect();
    return { x: 0, y: a.top + window.scrollY - 8, width: document.documentElement.clientWidth, height: b.bottom - a.top + 16 };
  })()`)) as { x: number; y: number; width: number; height: number };
  await page.screenshot({ path: `${prefix}-groups.png`, clip, fullPage: true });
  if (consoleErrors.length > 0) throw new Error(`the page logged errors: ${consoleErrors.join('; ')}`);
  console.log(`wrote ${prefix}-{first-screen,topology,groups}.png`);
} finally {
  await browser.close();
}
