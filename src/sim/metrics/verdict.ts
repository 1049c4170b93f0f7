// The one recovery verdict over seeds: what a variant's runs say about recovery (report, table, lab, results docs).

import type { RunSummary } from './summary.js';

/** Every seed with a trigger recovered, none did, some did, or no seed had a trigger (nothing to recover from). */
export type RecoveryVerdict = 'recovers' | 'never' | 'some-seeds' | 'no-trigger';

export interface SeedsRecovery {
  verdict: RecoveryVerdict;
  /** Seeds whose run had a trigger (only they are judged). */
  triggered: number;
  /** Seeds that recovered, of `triggered`. */
  recovered: number;
  /** The slowest recovery among the seeds that recovered, s; null when none did. */
  slowestS: number | null;
  /** The seeds that recovered and those that never did, in the runs' order. */
  recoveredSeeds: number[];
  neverSeeds: number[];
}

type Judged = Pick<RunSummary, 'seed' | 'trigger' | 'recoverySeconds'>;

/**
 * The recovery verdict of one variant over its seeds (or of one run: pass `[run]`). A run without a trigger
 * (`trigger: null`) had nothing to recover from: it is not judged, and is never read as "never". A variant recovers
 * when every judged seed recovered, and then the SLOWEST seed is its recovery time: a variant is as good as its worst
 * seed, not its average (a mean would hide the seed that took 30 s behind two that took 0).
 */
export function recoveryOverSeeds(runs: readonly Judged[]): SeedsRecovery {
  const recoveredSeeds: number[] = [];
  const neverSeeds: number[] = [];
  let slowestS: number | null = null;
  for (const run of runs) {
    // @ko lab-no-trigger
    if (run.trigger === null) continue;
    // @ko report-verdict-by-recovery
    const s = run.recoverySeconds;
    if (s === null) {
      neverSeeds.push(run.seed);
      continue;
    }
    recoveredSeeds.push(run.seed);
    // @ko verdict-slowest-seed
    if (slowestS === null || s > slowestS) slowestS = s;
  }
  const recovered = recoveredSeeds.length;
  const triggered = recovered + neverSeeds.length;
  let verdict: RecoveryVerdict = 'no-trigger';
  if (triggered > 0) verdict = recovered === triggered ? 'recovers' : recovered === 0 ? 'never' : 'some-seeds';
  return { verdict, triggered, recovered, slowestS, recoveredSeeds, neverSeeds };
}
