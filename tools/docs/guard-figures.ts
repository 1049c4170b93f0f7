// The simulator figures of docs/breakers.md (proposal C) and docs/outlier-detection.md (member-api-outliers).
// Run: npx tsx tools/docs/guard-figures.ts --write   (test/tools/guard-figures.test.ts checks the committed tables)

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EdgeSummary } from '../../src/sim/metrics/edges.js';
import type { RunSummary } from '../../src/sim/metrics/summary.js';
import { runVariant } from '../../src/sim/run.js';
import { loadScenario } from '../../src/sim/scenario/load.js';

export const BREAKERS_DOC = fileURLToPath(new URL('../../docs/breakers.md', import.meta.url));
export const OUTLIERS_DOC = fileURLToPath(new URL('../../docs/outlier-detection.md', import.meta.url));
export const START = '<!-- guard-figures:start (npx tsx tools/docs/guard-figures.ts --write) -->';
export const END = '<!-- guard-figures:end -->';

const pct = (x: number | undefined): string => (x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
const f2 = (x: number | undefined): string => (x === undefined ? '—' : x.toFixed(2));
const int = (x: number | undefined): string => (x === undefined ? '—' : x.toLocaleString('en-US'));
const secs = (x: number | null): string => (x === null ? 'never' : `${x.toFixed(1)} s`);

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const BFF_EDGE = 'checkout-bff -> coupon-api';
const PROPOSAL_C = ['bad', 'c-circuit-breaker', 'good'];

/** docs/breakers.md: proposal C beside bad and good on checkout-incident, seed 1, and its recovery for seeds 1-3. */
export function breakerFigures(): string {
  const scenario = loadScenario('checkout-incident');
  const runs = PROPOSAL_C.map((v) => runVariant(scenario, v, 1).summary);
  const recoveries = PROPOSAL_C.map((v) =>
    [1, 2, 3].map((seed) => (seed === 1 ? runs[PROPOSAL_C.indexOf(v)] : runVariant(scenario, v, seed).summary)),
  ).map((seeds) => seeds.map((s) => secs(s?.recoverySeconds ?? null)).join(' / '));
  const rows = runs.map((s, i) => {
    const cb = s.edges[BFF_EDGE]?.circuitBreaker;
    return [
      `\`${s.variant}\``,
      `${pct(s.successRate.before)} / ${pct(s.successRate.during)} / ${pct(s.successRate.after)}`,
      `${Math.round(s.p99Ms.during ?? Number.NaN)} ms`,
      `${f2(s.amplification['member-api']?.during)} / ${f2(s.amplification['member-api']?.after)}`,
      secs(s.recoverySeconds),
      recoveries[i] ?? '—',
      cb === undefined ? '—' : `${cb.opened} / ${int(cb.rejected)} / ${cb.probes}`,
      cb === undefined ? '—' : `${cb.openByBin.slice(50, 65).filter((n) => n > 0).length} of 15 s`,
    ];
  });
  return table(
    [
      'variant',
      'success before / during / after',
      'p99 during',
      'member-api attempts / user, during / after',
      'recovery',
      'recovery, seeds 1 / 2 / 3',
      'breaker opened / refused / probes',
      'open during the trigger',
    ],
    rows,
  );
}

const OUTLIER_EDGE = 'coupon-api -> member-api';

/** Share of the attempts in the trigger window that went to instance 0. */
function firstHostShare(edge: EdgeSummary | undefined): number | undefined {
  const during = edge?.loadBalancer?.upstreamRqByHost.during;
  if (during === undefined) return undefined;
  const total = during.reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : (during[0] ?? 0) / total;
}

function outlierRow(s: RunSummary): string[] {
  const e = s.edges[OUTLIER_EDGE];
  const od = e?.outlierDetection;
  const lb = e?.loadBalancer;
  return [
    `\`${s.variant}\``,
    `${pct(s.successRate.before)} / ${pct(s.successRate.during)} / ${pct(s.successRate.after)}`,
    `${Math.round(s.p99Ms.during ?? Number.NaN)} ms`,
    pct(firstHostShare(e)),
    od === undefined ? '—' : `${od.ejectionsEnforcedTotal} / ${int(od.ejectionsOverflow)} / ${od.ejectionsActiveMax}`,
    lb === undefined ? '—' : `${int(lb.healthyPanic)} / ${int(lb.noneHealthy)}`,
    pct(e?.retryRatio),
  ];
}

/** docs/outlier-detection.md: every variant of member-api-outliers, seed 1. */
export function outlierFigures(): string {
  const scenario = loadScenario('member-api-outliers');
  const runs = scenario.variants.map((v) => runVariant(scenario, v.name, 1).summary);
  return table(
    [
      'variant',
      'success before / during / after',
      'p99 during',
      'attempts at instance 0, during',
      'ejections enforced / refused by the limit / most out at once',
      'panic picks / no host',
      'retries / requests (whole run)',
    ],
    runs.map(outlierRow),
  );
}

/** `doc` with its figures section replaced by `figures`. */
export function withFigures(doc: string, figures: string, name: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${name}: no "${START}" ... "${END}" section`);
  return `${doc.slice(0, start + START.length)}\n${figures}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const docs: [string, () => string][] = [
    [BREAKERS_DOC, breakerFigures],
    [OUTLIERS_DOC, outlierFigures],
  ];
  for (const [path, figures] of docs) {
    const text = figures();
    if (process.argv.includes('--write')) {
      writeFileSync(path, withFigures(readFileSync(path, 'utf8'), text, path));
      process.stderr.write(`wrote ${path}\n`);
    } else {
      process.stdout.write(`${text}\n\n`);
    }
  }
}
