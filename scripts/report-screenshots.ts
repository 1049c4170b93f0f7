// The report screenshots in docs/images/: opens a report.html in headless Chromium and saves the first screen and
// the full page. Run: npm run build && node dist/cli/main.js simulate checkout-incident --out out/checkout-incident
//                     npx tsx scripts/report-screenshots.ts out/checkout-incident/report.html docs/images/report
// (writes docs/images/report-first-screen.png and docs/images/report-full.png)

import { resolve } from 'node:path';
import { launchChromium, openReport } from '../test/report/chromium.js';

const [file = 'out/checkout-incident/report.html', prefix = 'docs/images/report'] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, consoleErrors } = await openReport(browser, resolve(file));
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.screenshot({ path: `${prefix}-first-screen.png` });
  await page.screenshot({ path: `${prefix}-full.png`, fullPage: true });
  if (consoleErrors.length > 0) throw new Error(`the page logged errors: ${consoleErrors.join('; ')}`);
  console.log(`wrote ${prefix}-first-screen.png and ${prefix}-full.png`);
} finally {
  await browser.close();
}
