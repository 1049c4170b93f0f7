// Lab against simulator, per variant: the recovery verdict, success per window, amplification at the deepest service.

import { deepestService, type RunSummary } from '../sim/metrics/summary.js';
import { recoveryOverSeeds } from '../sim/metrics/verdict.js';
import type { ModelSpec } from '../sim/scenario/types.js';

/** Success rates per window may differ by at most this many points (0.10 = 10 points). */
export const SUCCESS_TOLERANCE = 0.1;
/** Amplification at the deepest service per window may differ by at most this share of the simulator's. */
export const AMPLIFICATION_TOLERANCE = 0.15;

export interface Check {
  what: string;
  lab: number | string | null;
  sim: number | string | null;
  ok: boolean;
}

export interface Comparison {
  agrees: boolean;
  checks: Check[];
}

/** The one recovery verdict (src/sim/metrics/verdict.ts) of one run: 'no trigger' when it had no fault to recover from. */
const verdict = (run: RunSummary): string => {
  const judged = recoveryOverSeeds([run]).verdict;
  return judged === 'no-trigger' ? 'no trigger' : judged;
};

/** The checks docs/lab.md states: the three criteria of the issue, every window. */
export function compareRuns(lab: RunSummary, sim: RunSummary, model: ModelSpec): Comparison {
  const checks: Check[] = [];
  checks.push({
    what: 'recovers',
    lab: verdict(lab),
    sim: verdict(sim),
    ok: verdict(lab) === verdict(sim),
  });
  for (const window of Object.keys(sim.successRate)) {
    const l = lab.successRate[window] ?? 0;
    const s = sim.successRate[window] ?? 0;
    checks.push({ what: `success ${window}`, lab: l, sim: s, ok: Math.abs(l - s) <= SUCCESS_TOLERANCE + 1e-9 });
  }
  const deepest = model.services[deepestService(model)]?.name ?? '';
  const labAmp = lab.amplification[deepest] ?? {};
  const simAmp = sim.amplification[deepest] ?? {};
  for (const window of Object.keys(sim.successRate)) {
    const l = labAmp[window] ?? 0;
    const s = simAmp[window] ?? 0;
    const ok = s === 0 ? l === 0 : Math.abs(l - s) / s <= AMPLIFICATION_TOLERANCE + 1e-9;
    checks.push({ what: `${deepest} amplification ${window}`, lab: l, sim: s, ok });
  }
  return { agrees: checks.every((c) => c.ok), checks };
}
