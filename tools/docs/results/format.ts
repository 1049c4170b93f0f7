// Building blocks of docs/results.md: the results' shape, number formats, Markdown tables and look-ups into runs.

import type { RunSummary, SimulationResult, TimeseriesRow } from '../../../src/sim/index.js';
import { recoveryOverSeeds } from '../../../src/sim/metrics/verdict.js';
import type { QueueingCheck } from './queueing.js';

/** One sweep of the seed's fast-error question: checkout-fast-errors' variants at several failure rates. */
export interface FastErrorSweep {
  id: string;
  /** User requests per second (checkout-fast-errors: 700, i.e. 70 % of member-api's capacity). */
  ratePerS: number;
  /** Worker time a 500 costs member-api (0 = fails at once). */
  costMs: number;
  errorRates: number[];
}

export const FAST_ERROR_SWEEPS: FastErrorSweep[] = [
  { id: 'free', ratePerS: 700, costMs: 0, errorRates: [0.05, 0.1, 0.15, 0.2, 0.3, 0.5] },
  { id: 'costly', ratePerS: 700, costMs: 50, errorRates: [0.05, 0.1, 0.15, 0.2, 0.3, 0.5] },
  { id: 'peak', ratePerS: 900, costMs: 50, errorRates: [0.05, 0.1, 0.15, 0.2] },
];
export const FAST_ERROR_BASES = ['no-retries', 'bad', 'budget-5', 'budget-10', 'budget-20'];
/** checkout-many-clients' variants re-run with this many BFF instances. */
export const MANY_INSTANCES = 100;
export const MANY_INSTANCES_VARIANTS = ['good', 'budget-only', 'percent-budget-only'];

export function sweepName(base: string, sweep: FastErrorSweep, errorRate: number): string {
  return `${base}@${sweep.id}-${Math.round(errorRate * 100)}%`;
}

/** Everything the document is made from; plain data, so the formatter can be tested on a small hand-made one. */
export interface Results {
  seeds: number[];
  incident: SimulationResult;
  totalFailure: SimulationResult;
  normal: SimulationResult;
  fastErrors: SimulationResult;
  sweep: SimulationResult;
  manyClients: SimulationResult;
  manyInstances: SimulationResult;
  queueing: QueueingCheck[];
}

/** Statements in the prose that the figures must bear out; the broken ones are listed at the top of the file. */
export class Claims {
  readonly broken: string[] = [];
  check(holds: boolean, claim: string): boolean {
    if (!holds) this.broken.push(claim);
    return holds;
  }
}

/** Fixed-point with thousands separators, independent of the locale. */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  const [whole, fraction] = Math.abs(value).toFixed(digits).split('.');
  const grouped = (whole ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = value < 0 && Number(value.toFixed(digits)) !== 0 ? '−' : '';
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

export function pct(share: number, digits = 1): string {
  return `${num(share * 100, digits)} %`;
}

export function times(factor: number, digits = 2): string {
  return `${num(factor, digits)}×`;
}

export function seconds(value: number | null): string {
  return value === null ? 'never' : `${num(value, 1)} s`;
}

export function mdTable(headers: string[], rows: string[][], rightAligned: readonly number[] = []): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rule = headers.map((_, i) => (rightAligned.includes(i) ? '---:' : '---'));
  return [headers, rule, ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`).join('\n');
}

/** The variants of a result, in file order. */
export function variantsOf(result: SimulationResult): string[] {
  return [...new Set(result.runs.map((r) => r.variant))];
}

export function runOf(result: SimulationResult, variant: string, seed = 1): RunSummary {
  const run = result.runs.find((r) => r.variant === variant && r.seed === seed);
  if (run === undefined) throw new Error(`${result.scenario}: no run of ${variant} with seed ${seed}`);
  return run;
}

export function runsOf(result: SimulationResult, variant: string): RunSummary[] {
  return result.runs.filter((r) => r.variant === variant);
}

export function amp(run: RunSummary, service: string, window: string): number {
  return run.amplification[service]?.[window] ?? Number.NaN;
}

export function rate(run: RunSummary, window: string): number {
  return run.successRate[window] ?? Number.NaN;
}

/**
 * "recovers ×3 (0.0 / 1.0 / 0.0 s)", "never ×3", "no trigger" (no fault to recover from), or which seeds disagree:
 * the one verdict over seeds (src/sim/metrics/verdict.ts recoveryOverSeeds), written for the results docs.
 */
export function recoveryVerdict(result: SimulationResult, variant: string): string {
  const runs = runsOf(result, variant);
  const recovery = recoveryOverSeeds(runs);
  switch (recovery.verdict) {
    case 'no-trigger':
      return 'no trigger';
    case 'never':
      return `never ×${recovery.triggered}`;
    case 'recovers': {
      const times = runs.filter((r) => r.trigger !== null).map((r) => num(r.recoverySeconds ?? 0, 1));
      return `recovers ×${recovery.triggered} (${times.join(' / ')} s)`;
    }
    case 'some-seeds':
      return `**split**: recovers with seed ${recovery.recoveredSeeds.join(', ')}, never with ${recovery.neverSeeds.join(', ')}`;
  }
}

/** Every seed says the same about recovery (the one verdict is not 'some-seeds'). */
export function seedsAgree(result: SimulationResult, variant: string): boolean {
  return recoveryOverSeeds(runsOf(result, variant)).verdict !== 'some-seeds';
}

/** Smallest and largest value over the seeds, e.g. "0.0–0.4 %". */
export function range(values: number[], format: (v: number) => string): string {
  const low = format(Math.min(...values));
  const high = format(Math.max(...values));
  return low === high ? low : `${low} – ${high}`;
}

/** One service's 1 s bins for a run, in time order. */
export function series(result: SimulationResult, variant: string, seed: number, service: string): TimeseriesRow[] {
  return result.timeseries
    .filter((row) => row.variant === variant && row.seed === seed && row.service === service)
    .sort((a, b) => a.t - b.t);
}

/** Below this success rate a 1 s bin counts as "at 0 %". */
export const ZERO_LEVEL = 0.05;

/**
 * The stretch of 1 s bins (by user arrival) at the entry service with success below ZERO_LEVEL that contains
 * second `atS` (or starts there): when it starts, how long it lasts after `atS`, and how long in all.
 */
export function zeroStretch(rows: TimeseriesRow[], atS: number): { startS: number; afterS: number; totalS: number } {
  const low = (row: TimeseriesRow | undefined) => row !== undefined && (row.successRate ?? 1) < ZERO_LEVEL;
  const index = rows.findIndex((row) => row.t >= atS);
  if (index < 0 || !low(rows[index])) return { startS: atS, afterS: 0, totalS: 0 };
  let first = index;
  while (low(rows[first - 1])) first--;
  let last = index;
  while (low(rows[last + 1])) last++;
  const startS = rows[first]?.t ?? atS;
  const endS = (rows[last]?.t ?? atS) + 1;
  return { startS, afterS: endS - atS, totalS: endS - startS };
}

/** Mean of a timeseries column over the bins in [fromS, toS), per second. */
export function meanPerS(rows: TimeseriesRow[], pick: (row: TimeseriesRow) => number, fromS: number, toS: number) {
  const inside = rows.filter((row) => row.t >= fromS && row.t < toS);
  return inside.reduce((sum, row) => sum + pick(row), 0) / Math.max(1, toS - fromS);
}

export function meanAndStandardError(values: number[]): { mean: number; se: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean, se: Math.sqrt(variance / values.length) };
}
