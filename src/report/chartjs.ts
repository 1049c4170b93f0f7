// Locates and reads the Chart.js UMD bundle (a runtime dependency) so report.html can inline it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Absolute path of chart.js/dist/chart.umd.js as installed beside this package. */
export function chartJsUmdPath(): string {
  // chart.js's "exports" map hides dist/chart.umd.js, so resolve the package's CommonJS entry (dist/chart.cjs)
  // and take its sibling.
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('chart.js')), 'chart.umd.js');
}

/** The Chart.js UMD bundle's source text. */
export function loadChartJsSource(): string {
  return readFileSync(chartJsUmdPath(), 'utf8');
}
