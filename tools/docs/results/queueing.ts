// Queueing checks for docs/results.md: mmc-erlang and mmck-blocking runs beside Erlang C and M/M/c/K formulas.

import { loadScenario, runVariant } from '../../../src/sim/index.js';

/** Erlang C: probability that an arrival waits in M/M/c with offered load a = λ/μ (Erlangs). */
export function erlangC(servers: number, offeredErlangs: number): number {
  // Erlang B by the stable recurrence B(k) = a·B(k−1) / (k + a·B(k−1)), then C = c·B / (c − a·(1 − B)).
  let blocking = 1;
  for (let k = 1; k <= servers; k++) blocking = (offeredErlangs * blocking) / (k + offeredErlangs * blocking);
  return (servers * blocking) / (servers - offeredErlangs * (1 - blocking));
}

/** M/M/c/K: probability that an arrival finds K in the system (and is refused). */
export function mmckBlocking(servers: number, capacity: number, offeredErlangs: number): number {
  let term = 1;
  let total = 1;
  for (let n = 1; n <= capacity; n++) {
    term *= offeredErlangs / Math.min(n, servers);
    total += term;
  }
  return term / total;
}

/** One simulated quantity beside its formula: one value per seed. */
export interface QueueingCheck {
  scenario: string;
  variant: string;
  quantity: string;
  unit: 'share' | 'ms';
  formula: number;
  seeds: number[];
}

/** Runs the two queueing scenarios (steady window) for each seed. */
export function queueingChecks(seeds: readonly number[]): QueueingCheck[] {
  const checks: QueueingCheck[] = [];
  const mmc = loadScenario('mmc-erlang');
  for (const [variant, ratePerS] of [
    ['rho-0.7', 700],
    ['rho-0.9', 900],
  ] as const) {
    const servers = 50;
    const serviceMs = 50;
    const a = (ratePerS * serviceMs) / 1000;
    const pWait = erlangC(servers, a);
    const steady = seeds.map((seed) => runVariant(mmc, variant, seed).services[0]?.windows.steady);
    const base = { scenario: 'mmc-erlang', variant };
    checks.push({
      ...base,
      quantity: 'P(wait) — Erlang C',
      unit: 'share',
      formula: pWait,
      seeds: steady.map((w) => w?.waitedFraction ?? Number.NaN),
    });
    checks.push({
      ...base,
      quantity: 'mean wait Wq = C / (cμ − λ)',
      unit: 'ms',
      formula: (pWait * serviceMs) / (servers - a),
      seeds: steady.map((w) => w?.meanWaitMs ?? Number.NaN),
    });
  }
  const mmck = loadScenario('mmck-blocking');
  for (const [variant, ratePerS] of [
    ['rho-0.9', 90],
    ['rho-1.2', 120],
  ] as const) {
    checks.push({
      scenario: 'mmck-blocking',
      variant,
      quantity: 'refused share P_K (c = 10, K = 20)',
      unit: 'share',
      formula: mmckBlocking(10, 20, (ratePerS * 100) / 1000),
      seeds: seeds.map((seed) => 1 - (runVariant(mmck, variant, seed).summary.successRate.steady ?? Number.NaN)),
    });
  }
  return checks;
}
