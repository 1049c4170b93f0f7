// Test helper: opens a report.html in real headless Chromium (playwright-core) and reports what rendered.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether Chromium tests can run; under CI its absence is a failure, elsewhere a visible skip. */
export function chromiumStatus(): { present: boolean; required: boolean; reason: string } {
  const present = existsSync(CHROMIUM_PATH);
  const ci = process.env.CI;
  const required = ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
  const reason = `${CHROMIUM_PATH} not found (install it: apt-get install -y chromium)`;
  return { present, required, reason };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
}

export interface CanvasCheck {
  id: string;
  width: number;
  height: number;
  /** Pixels drawn at all (alpha > 0). */
  painted: number;
  /** The chart's datasets shown (not hidden), and their points with a value (not a gap). */
  visibleDatasets: number;
  points: number;
  /** The first shown dataset's label, and the pixels close to its line colour (0 without one). */
  firstLabel: string | null;
  firstLine: number;
  /** Alpha of the pixel in the middle of the shaded trigger interval (0 if there is none). */
  triggerAlpha: number;
}

export interface PageReport {
  page: Page;
  consoleErrors: string[];
  /** Every URL the page requested other than the report itself. */
  foreignRequests: string[];
}

/** Opens a report file (in a window of `viewport`, 1400 × 900 by default) and waits until its script has drawn the
 * charts (or failed). */
export async function openReport(
  browser: Browser,
  file: string,
  viewport: { width: number; height: number } = { width: 1400, height: 900 },
): Promise<PageReport> {
  const page = await browser.newPage({ viewport });
  const url = pathToFileURL(file).href;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    if (request.url() !== url) foreignRequests.push(request.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(`document.documentElement.hasAttribute('data-charts')`, null, { timeout: 15_000 });
  return { page, consoleErrors, foreignRequests };
}

// Runs in the page (plain JS as a string: the project's TypeScript has no DOM types). For every canvas: its size,
// pixels painted at all, its shown datasets and points, pixels near the first shown dataset's colour, and the alpha
// in the shaded trigger.
const INSPECT_CANVASES = `(() => {
  const data = JSON.parse(document.getElementById('seawall-data').textContent);
  return [...document.querySelectorAll('canvas')].map((canvas) => {
    const ctx = canvas.getContext('2d');
    const { width, height } = canvas;
    const chart = Chart.getChart(canvas);
    const shown = chart ? chart.data.datasets.filter((d, i) => chart.isDatasetVisible(i)) : [];
    const points = shown.reduce((n, d) => n + d.data.filter((p) => p.y !== null && p.y !== undefined).length, 0);
    const first = shown[0];
    const hex = first ? String(first.borderColor) : '#000000';
    const [cr, cg, cb] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const pixels = ctx.getImageData(0, 0, width, height).data;
    let painted = 0;
    let firstLine = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const r = pixels[i], g = pixels[i + 1], b = pixels[i + 2], a = pixels[i + 3];
      if (a > 0) painted++;
      if (first && a > 200 && Math.abs(r - cr) < 25 && Math.abs(g - cg) < 25 && Math.abs(b - cb) < 25) firstLine++;
    }
    let triggerAlpha = 0;
    const trigger = data.triggers[0];
    if (chart && trigger && canvas.clientWidth > 0) {
      const ratio = width / canvas.clientWidth;
      const x = chart.scales.x.getPixelForValue((trigger[0] + trigger[1]) / 2) * ratio;
      const y = ((chart.chartArea.top + chart.chartArea.bottom) / 2) * ratio;
      triggerAlpha = ctx.getImageData(Math.round(x) + 3, Math.round(y) + 3, 1, 1).data[3];
    }
    return { id: canvas.id, width, height, painted, visibleDatasets: shown.length, points,
      firstLabel: first ? first.label : null, firstLine, triggerAlpha };
  });
})()`;

/** Inspects every canvas in the page: size, painted pixels, the first variant's line, the trigger shading. */
export async function inspectCanvases(page: Page): Promise<CanvasCheck[]> {
  return (await page.evaluate(INSPECT_CANVASES)) as CanvasCheck[];
}

/** Clicks a variant's chip: in its group's row (`group`) or among the load-per-service charts (`detail`). */
export async function clickChip(page: Page, scope: 'group' | 'detail', variant: string): Promise<void> {
  await page.locator(`button.chip[data-scope="${scope}"][data-variant="${variant.replace(/"/g, '\\"')}"]`).click();
}
