// Cold import time of each entry point (a fresh Node.js process each time) beside cockatiel's, in paired rounds.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { type BenchRow, printRows, quantile } from './harness.js';

const SUITE = 'import';
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 21);
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;
const require = createRequire(import.meta.url);

/** What each case imports: Seawall's entries as published (dist/), and cockatiel as installed. */
const CASES: { name: string; specifier: string; baseline?: string }[] = [
  { name: 'cockatiel (baseline)', specifier: pathToFileURL(require.resolve('cockatiel')).href },
  { name: 'seawall (drivers + policy)', specifier: dist('index.js'), baseline: 'cockatiel (baseline)' },
  { name: 'seawall/policy', specifier: dist('policy/index.js'), baseline: 'cockatiel (baseline)' },
  { name: 'seawall/sim', specifier: dist('sim/index.js'), baseline: 'cockatiel (baseline)' },
];

/** Milliseconds one fresh process spends in `import(specifier)` (Node's own start-up not included). */
function coldImportMs(specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return Number(out.trim());
}

/**
 * Every round imports every case once, in an order that rotates, so that the host's drift hits all of them alike;
 * each case's ratio to cockatiel is the median of its per-round ratios. rmePercent holds the spread: half the
 * p10-p90 range of the case's times over its median, in percent.
 */
export async function run(): Promise<BenchRow[]> {
  const times = CASES.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < CASES.length; k++) {
      const i = (k + round) % CASES.length;
      (times[i] as number[]).push(coldImportMs((CASES[i] as (typeof CASES)[number]).specifier));
    }
  }
  return CASES.map((c, i) => {
    const own = times[i] as number[];
    const median = quantile(own, 0.5);
    const b = c.baseline === undefined ? -1 : CASES.findIndex((x) => x.name === c.baseline);
    const ratios = b < 0 ? [] : own.map((t, r) => t / ((times[b] as number[])[r] as number));
    return {
      suite: SUITE,
      name: `${c.name}, cold import`,
      nsPerOp: median * 1e6,
      rmePercent: ((quantile(own, 0.9) - quantile(own, 0.1)) / 2 / median) * 100,
      vsBaseline: b < 0 ? null : quantile(ratios, 0.5),
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printRows(await run());
