// Queueing-theory checks: the engine + LoadShedder reproduce Erlang C (M/M/c) and the M/M/c/K blocking probability.

import { describe, expect, it } from 'vitest';
import { runVariant } from './run.js';
import { loadScenario } from './scenario/load.js';

/** Erlang C: probability that an arrival waits in M/M/c with offered load a = λ/μ (Erlangs). */
function erlangC(servers: number, offeredErlangs: number): number {
  // Erlang B by the stable recurrence B(k) = a·B(k−1) / (k + a·B(k−1)), then C = c·B / (c − a·(1 − B)).
  let blocking = 1;
  for (let k = 1; k <= servers; k++) blocking = (offeredErlangs * blocking) / (k + offeredErlangs * blocking);
  return (servers * blocking) / (servers - offeredErlangs * (1 - blocking));
}

/** M/M/c/K: probability that an arrival finds K in the system (and is refused). */
function mmckBlocking(servers: number, capacity: number, offeredErlangs: number): number {
  const terms: number[] = [];
  let term = 1;
  for (let n = 0; n <= capacity; n++) {
    if (n > 0) term *= offeredErlangs / Math.min(n, servers);
    terms.push(term);
  }
  const total = terms.reduce((a, b) => a + b, 0);
  return (terms[capacity] as number) / total;
}

function meanAndStandardError(values: number[]): { mean: number; se: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return { mean, se: Math.sqrt(variance / values.length) };
}

// Tolerance from run length: each seed is an independent replication over the 280 s steady window (~200-250 k
// customers); the estimate is the mean over SEEDS replications and the tolerance is t(0.9995, SEEDS−1) = 6.87
// standard errors of that mean. The standard error itself must be small (the run is long enough to have teeth).
const SEEDS = [1, 2, 3, 4, 5, 6];
const T_999 = 6.87;

describe('M/M/c against Erlang C (scenarios/mmc-erlang.yaml: c = 50, exponential 50 ms)', () => {
  const scenario = loadScenario('mmc-erlang');
  it.each([
    ['rho-0.7', 700],
    ['rho-0.9', 900],
  ])('%s: the share of customers who wait and the mean wait match Erlang C', (variant, ratePerS) => {
    const servers = 50;
    const serviceMs = 50;
    const a = (ratePerS * serviceMs) / 1000;
    const pWait = erlangC(servers, a);
    const meanWaitMs = (pWait * serviceMs) / (servers - a); // Wq = C / (cμ − λ)
    const runs = SEEDS.map((seed) => runVariant(scenario, variant, seed).services[0]?.windows.steady);
    const waited = meanAndStandardError(runs.map((w) => w?.waitedFraction ?? Number.NaN));
    const wait = meanAndStandardError(runs.map((w) => w?.meanWaitMs ?? Number.NaN));
    expect(waited.se).toBeLessThan(0.02);
    expect(Math.abs(waited.mean - pWait)).toBeLessThan(T_999 * waited.se);
    expect(wait.se).toBeLessThan(0.1 * meanWaitMs + 0.05);
    expect(Math.abs(wait.mean - meanWaitMs)).toBeLessThan(T_999 * wait.se);
  });
});

describe('M/M/c/K blocking (scenarios/mmck-blocking.yaml: c = 10, K = 20, exponential 100 ms)', () => {
  const scenario = loadScenario('mmck-blocking');
  it.each([
    ['rho-0.9', 90],
    ['rho-1.2', 120],
  ])('%s: the share refused by the full queue matches P_K', (variant, ratePerS) => {
    const blocking = mmckBlocking(10, 20, (ratePerS * 100) / 1000);
    const refused = meanAndStandardError(
      SEEDS.map((seed) => 1 - (runVariant(scenario, variant, seed).summary.successRate.steady ?? 0)),
    );
    expect(refused.se).toBeLessThan(0.01);
    expect(Math.abs(refused.mean - blocking)).toBeLessThan(T_999 * refused.se);
  });
});

describe('the reference formulas', () => {
  it('Erlang C and P_K agree with textbook values', () => {
    // c = 2, a = 1: C = 1/3 (Kleinrock, M/M/2 at rho 0.5).
    expect(erlangC(2, 1)).toBeCloseTo(1 / 3, 10);
    // M/M/1/K with a = 1: P_K = 1 / (K + 1).
    expect(mmckBlocking(1, 4, 1)).toBeCloseTo(1 / 5, 10);
  });
});
