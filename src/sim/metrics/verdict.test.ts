// The one recovery verdict over seeds (verdict.ts): judged seeds only, the slowest seed counts.

import { describe, expect, it } from 'vitest';
import { recoveryOverSeeds } from './verdict.js';

const TRIGGER = { startS: 10, endS: 20 };
const run = (seed: number, recoverySeconds: number | null, trigger: typeof TRIGGER | null = TRIGGER) => ({
  seed,
  trigger,
  recoverySeconds,
});

describe('recoveryOverSeeds', () => {
  it.each([
    ['every seed recovered: the slowest counts', [run(1, 0.5), run(2, 3), run(3, 1)], 'recovers', 3, 3],
    ['no seed recovered', [run(1, null), run(2, null)], 'never', 0, null],
    ['some seeds recovered', [run(1, 2), run(2, null)], 'some-seeds', 1, 2],
    ['no seed had a trigger', [run(1, null, null), run(2, null, null)], 'no-trigger', 0, null],
    ['an untriggered seed is not judged (not read as never)', [run(1, 1), run(2, null, null)], 'recovers', 1, 1],
    ['one run', [run(7, 0)], 'recovers', 1, 0],
  ])('%s', (_, runs, verdict, recovered, slowestS) => {
    const judged = recoveryOverSeeds(runs);
    expect(judged).toMatchObject({ verdict, recovered, slowestS });
  });

  it('names the seeds that recovered and those that never did', () => {
    expect(recoveryOverSeeds([run(1, 2), run(2, null), run(3, 1)])).toMatchObject({
      triggered: 3,
      recoveredSeeds: [1, 3],
      neverSeeds: [2],
    });
  });
});
