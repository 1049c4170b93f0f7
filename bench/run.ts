// Benchmark runner: `npm run bench [suite ...]` runs bench/<suite>.bench.ts suites and prints one table.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchRow, printRows } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();
const requested = process.argv.slice(2);
const unknown = requested.filter((s) => !available.includes(s));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
const suites = requested.length > 0 ? requested : available;
console.log(`node ${process.version}, ${process.platform}/${process.arch}; suites: ${suites.join(', ')}`);
const rows: BenchRow[] = [];
for (const suite of suites) {
  const mod = (await import(pathToFileURL(join(here, `${suite}.bench.ts`)).href)) as { run(): Promise<BenchRow[]> };
  const suiteRows = await mod.run();
  printRows(suiteRows);
  console.log('');
  rows.push(...suiteRows);
}
