// The simulator figures of docs/client.md's adaptive throttle: under 10× demand the backend receives about k × its accepts.
// Run: npx tsx tools/docs/throttle-figures.ts   (src/sim/model/throttle.test.ts asserts the same runs with tolerances)

import { fileURLToPath } from 'node:url';
import { runVariant, type VariantRun } from '../../src/sim/run.js';
import { parseScenario } from '../../src/sim/scenario/load.js';

/**
 * api -> db, 2 000 users/s. db: 2 instances; while the fault holds (0-32 s) each has 10 workers × 100 ms (100/s, so
 * A = 200/s: demand is 10 × A) and sheds the rest at once (queueLimit 0: its own 503). From 32 s on, 200 workers each
 * (4 000/s, twice the demand) until the run ends at 90 s. One attempt per user, so what db accepts is api's goodput. `throttle`: the edge's
 * extra keys (", throttle: {...}"), or '' for none.
 */
export function throttleScenario(throttle: string): string {
  return `
name: throttle
duration: 90s
traffic: [{ to: api, rate: 2000, patience: 5s }]
network: { latency: 1ms }
services:
  api: { calls: [db] }
  db: { instances: 2, workers: 200, serviceTime: 100ms, queueLimit: 0 }
calls:
  api -> db: { maxAttempts: 1, perTryTimeout: 2s, budget: false, deadline: false${throttle} }
faults:
  - { service: db, at: 0s, for: 32s, workers: 10 }`;
}

export const RECOVERY_S = 32;

export function runThrottle(throttle: string, seed = 1): VariantRun {
  return runVariant(parseScenario(throttleScenario(throttle), 'throttle.yaml'), 'default', seed);
}

export const throttleOf = (k: number, window = '10s'): string =>
  `, throttle: { kind: adaptive, k: ${k}, window: ${window} }`;

/** Mean per second over bins [from, to) of `service`'s `field`. */
export function perSecond(run: VariantRun, service: string, field: 'arrivals' | 'goodput', from: number, to: number) {
  const bins = run.timeseries.filter((r) => r.service === service && r.t >= from && r.t < to);
  return bins.reduce((n, r) => n + ((r[field] as number | null) ?? 0), 0) / bins.length;
}

/** The first bin from which db receives at least 90 % of the demand for good, as seconds after the recovery. */
export function backToDemandS(run: VariantRun): number | null {
  const bins = run.timeseries.filter((r) => r.service === 'db' && r.t >= RECOVERY_S && r.t < 84);
  let first: number | null = null;
  for (const r of bins) {
    if (r.arrivals < 1800) first = null;
    else if (first === null) first = r.t;
  }
  return first === null ? null : first - RECOVERY_S;
}

export function throttleFigures(): string {
  const rows = [['none', ''] as const, ...[2, 1.5, 1.1].map((k) => [`k ${k}`, throttleOf(k)] as const)];
  const lines = [
    '| throttle (window 10s) | db receives /s (12-30 s) | db accepts /s | received / accepted | refused locally | back to the whole demand after recovery |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, keys] of rows) {
    const run = runThrottle(keys);
    const arrivals = perSecond(run, 'db', 'arrivals', 12, 30);
    const accepted = perSecond(run, 'api', 'goodput', 12, 30);
    const t = run.summary.edges['api -> db']?.throttle;
    const back = backToDemandS(run);
    lines.push(
      `| ${name} | ${arrivals.toFixed(0)} | ${accepted.toFixed(0)} | ${(arrivals / accepted).toFixed(2)} | ${t === undefined ? '—' : t.throttled.toLocaleString('en-US')} | ${back === null ? 'never' : `${back} s`} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(throttleFigures());
