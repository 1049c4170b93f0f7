// Knock-outs of issue #25 item 6's bound on live work: maxLive, the exact counts it reads, the stop and its report.

import type { Knockout } from './knockout.js';

const LIVE_TEST = 'src/sim/model/live-limit.test.ts';

export const SIM_BOUNDS_KNOCKOUTS: Knockout[] = [
  {
    id: 'sim-live-bounded',
    mechanism: 'a run holding more than maxLive requests and events at once stops, naming the figure and the service',
    mark: 'sim-live-bounded',
    find: 'if (++this.present + this.engine.pending > this.maxLive) this.stopAtLiveLimit();',
    replace: '++this.present;',
    tests: [LIVE_TEST],
  },
  {
    id: 'sim-live-released',
    mechanism: 'a request that ends is no longer counted against maxLive (the bound is on what is held now)',
    mark: 'sim-live-released',
    find: 'this.present--;',
    replace: 'void 0;',
    tests: [LIVE_TEST],
  },
  {
    id: 'sim-engine-pending',
    mechanism: "the engine's count of pending events is exact during a run (each dispatched event leaves it)",
    mark: 'sim-engine-pending',
    find: 'this.queued--;',
    replace: 'void 0;',
    tests: ['src/sim/engine.test.ts', LIVE_TEST],
  },
  {
    id: 'scenario-max-live-read',
    mechanism: "the file's top-level maxLive reaches the run",
    mark: 'scenario-max-live-read',
    find: '...(file.maxLive === undefined ? {} : { maxLive: file.maxLive }),',
    replace: '...{},',
    tests: [LIVE_TEST],
  },
  {
    id: 'sim-workers-first-failure',
    mechanism: 'on worker threads, the run named as stopped is the first in run order, as in one thread',
    mark: 'sim-workers-first-failure',
    find: 'if (failure === null || index < failure.index) failure = { index, message };',
    replace: 'if (failure === null) failure = { index, message };',
    tests: [LIVE_TEST],
  },
  {
    id: 'cli-run-limit-line',
    mechanism: 'seawall simulate prints a run stopped at maxLive as its message and exit 1, not an internal error',
    mark: 'cli-run-limit-line',
    find: 'if (isRunLimitError(error)) {',
    replace: 'if (false) {',
    tests: ['src/cli/run.test.ts'],
  },
];
