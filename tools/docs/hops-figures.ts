// The figures of docs/hops.md: runs the built-in hop scenarios (seed 1) and renders their tables; --write updates the doc.
// Run: npx tsx tools/docs/hops-figures.ts --write   (test/docs/hops-doc.test.ts checks the committed tables against fresh runs)

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunSummary } from '../../src/sim/metrics/summary.js';
import { runVariant } from '../../src/sim/run.js';
import { loadScenario } from '../../src/sim/scenario/load.js';

export const HOPS_DOC = fileURLToPath(new URL('../../docs/hops.md', import.meta.url));
export const START = '<!-- hops-figures:start (npx tsx tools/docs/hops-figures.ts --write) -->';
export const END = '<!-- hops-figures:end -->';
const SEED = 1;

const f2 = (x: number | undefined): string => (x === undefined ? '—' : x.toFixed(2));
const pct = (x: number | undefined | null): string =>
  x === undefined || x === null ? '—' : `${(x * 100).toFixed(1)} %`;
const pct2 = (x: number | undefined): string => (x === undefined ? '—' : `${(x * 100).toFixed(2)} %`);
const sum = (xs: (number | undefined)[]): number => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
const radius = (s: RunSummary): string => `${s.retryRadius.max} / ${s.retryRadius.mean.toFixed(2)}`;

function runs(name: string): RunSummary[] {
  const scenario = loadScenario(name);
  return scenario.variants.map((v) => runVariant(scenario, v.name, SEED).summary);
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Attempts at `service` per user request in `window`. */
const load = (s: RunSummary, service: string, window: string) => s.amplification[service]?.[window];

/** Every table of docs/hops.md's figures section, in order. */
export function hopsFigures(): string {
  const parts: string[] = [];
  const chain = runs('hops-deep-chain');
  parts.push(
    '**`hops-deep-chain`** (a 5-service chain, the leaf s5 fails every request; attempts per user request, 10–30 s):',
    '',
    table(
      ['variant', 's2', 's3', 's4', 's5 (leaf)', 'all hops', 'retry radius max / mean'],
      chain.map((s) => [
        `\`${s.variant}\``,
        ...['s2', 's3', 's4', 's5'].map((x) => f2(load(s, x, 'steady'))),
        f2(sum(['s2', 's3', 's4', 's5'].map((x) => load(s, x, 'steady')))),
        radius(s),
      ]),
    ),
  );
  const fan = runs('hops-fan-out');
  parts.push(
    '',
    '**`hops-fan-out`** (root → a, b, c → 3 leaves each; b2 fails every request from 10 s to 20 s; attempts per user request during the failure):',
    '',
    table(
      ['variant', 'b', 'b1', 'b2 (failing)', 'b3', 'a1', 'success during', 'retry radius max / mean'],
      fan.map((s) => [
        `\`${s.variant}\``,
        ...['b', 'b1', 'b2', 'b3', 'a1'].map((x) => f2(load(s, x, 'during'))),
        pct(s.successRate.during),
        radius(s),
      ]),
    ),
  );
  const unco = runs('hops-uncooperative');
  parts.push(
    '',
    '**`hops-uncooperative`** (s1 → s2 → s3 → s4, s3 runs without Seawall and retries 3 times itself, s4 fails every request):',
    '',
    table(
      ['variant', 's2', 's3', 's4 (leaf)', 'retry radius max / mean'],
      unco.map((s) => [`\`${s.variant}\``, ...['s2', 's3', 's4'].map((x) => f2(load(s, x, 'steady'))), radius(s)]),
    ),
  );
  const transient = runs('hops-transient');
  parts.push(
    '',
    '**`hops-transient`** (a 5-service chain, the leaf fails 1 % of requests; s4 → s5 has no retries):',
    '',
    table(
      ['variant', 'success', 'p99', 's5 attempts per request', 'retry radius max / mean'],
      transient.map((s) => [
        `\`${s.variant}\``,
        pct2(s.successRate.steady),
        `${Math.round(s.p99Ms.steady ?? Number.NaN)} ms`,
        f2(load(s, 's5', 'steady')),
        radius(s),
      ]),
    ),
  );
  const checkout = runs('hops-checkout');
  parts.push(
    '',
    "**`hops-checkout`** (checkout-incident's DB failover, the BFF's good policy at either layer):",
    '',
    table(
      ['variant', 'success during', 'success after', 'coupon-api load during', 'member-api load during', 'recovery'],
      checkout.map((s) => [
        `\`${s.variant}\``,
        pct(s.successRate.during),
        pct(s.successRate.after),
        f2(load(s, 'coupon-api', 'during')),
        f2(load(s, 'member-api', 'during')),
        s.recoverySeconds === null ? 'none' : `${s.recoverySeconds} s`,
      ]),
    ),
  );
  return parts.join('\n');
}

/** docs/hops.md with its figures section replaced by `figures`. */
export function withFigures(doc: string, figures: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/hops.md: no "${START}" ... "${END}" section`);
  return `${doc.slice(0, start + START.length)}\n${figures}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = hopsFigures();
  if (process.argv.includes('--write')) {
    writeFileSync(HOPS_DOC, withFigures(readFileSync(HOPS_DOC, 'utf8'), figures));
    process.stderr.write(`wrote ${HOPS_DOC}\n`);
  } else {
    process.stdout.write(`${figures}\n`);
  }
}
