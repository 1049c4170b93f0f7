// Knock-outs of issue #27 item 2: client-side adaptive throttling (the policy, the pipeline, the client, the simulator, mesh export).

import type { Knockout } from './knockout.js';

const UNIT = ['src/policy/upstream/throttle.test.ts'];
const PIPELINE = ['src/policy/upstream/pipeline.throttle.test.ts'];
const CLIENT = ['test/http/client/throttle.test.ts'];

export const THROTTLE_KNOCKOUTS: Knockout[] = [
  {
    id: 'throttle-formula',
    mechanism: "the throttle refuses with the SRE book's max(0, (requests − k·accepts) / (requests + 1))",
    mark: 'throttle-formula',
    find: '(requests - k * accepts)',
    replace: '(requests - accepts)',
    tests: UNIT,
  },
  {
    id: 'throttle-relayed-ignored',
    mechanism: "a 503 relayed from further down (not the callee's own) is not counted as a rejection",
    mark: 'throttle-relayed-ignored',
    find: "if (claim === 'unclaimed' || claim === 'criteria-met') return false;",
    replace: 'if (false) return false;',
    tests: UNIT,
  },
  {
    id: 'throttle-window-expiry',
    mechanism: 'the throttle forgets requests and accepts older than its window (time-bucketed, bounded)',
    mark: 'throttle-window-expiry',
    find: 'const steps = Math.min(bucket - current, WINDOW_BUCKETS);',
    replace: 'const steps = 0;',
    tests: UNIT,
  },
  {
    id: 'throttle-volume-gate',
    mechanism: 'the throttle refuses nothing while its window holds fewer than minRequests requests',
    mark: 'throttle-volume-gate',
    find: 'if (this.requests < this.config.minRequests) return 0;',
    replace: 'if (false) return 0;',
    tests: UNIT,
  },
  {
    id: 'throttle-asked',
    mechanism: 'the guard pipeline asks the throttle before every attempt, first or retry',
    mark: 'throttle-asked',
    find: 'if (throttle !== null && !throttle.admit(time.nowMs, this.throttleDraws as Random)) {',
    replace: 'if (false) {',
    tests: PIPELINE,
  },
  {
    id: 'throttle-counts-sent',
    mechanism: 'the throttle counts a request when it is sent',
    mark: 'throttle-counts-sent',
    find: 'throttle.sent();',
    replace: 'void 0;',
    tests: PIPELINE,
  },
  {
    id: 'throttle-hears-end',
    mechanism: 'the throttle hears how each sent attempt ended (an accept, or the callee saying "too much")',
    mark: 'throttle-hears-end',
    find: '(this.throttle as AdaptiveThrottle).ended(time.nowMs, outcome);',
    replace: 'void 0;',
    tests: PIPELINE,
  },
  {
    id: 'http-throttle-built',
    mechanism: "the HTTP client's `throttle` option puts an adaptive throttle in each upstream's pipeline",
    mark: 'http-throttle-built',
    find: 'const throttle = this.options.throttle === undefined ? null : new AdaptiveThrottle(this.options.throttle);',
    replace: 'const throttle = null as AdaptiveThrottle | null;',
    tests: CLIENT,
  },
  {
    id: 'http-throttle-stats',
    mechanism: "the client's signals count the throttle's local refusals (adaptive_throttle_rejected)",
    mark: 'http-throttle-stats',
    find: 'if (u.throttle !== null && first(scope?.throttle ?? null)) throttled += u.throttle.throttled;',
    replace: 'void first;',
    tests: CLIENT,
  },
  {
    id: 'sim-throttle-built',
    mechanism: "a call's `throttle:` in a scenario puts an adaptive throttle in the simulated caller's pipeline",
    mark: 'sim-throttle-built',
    find: 'const throttle = spec?.throttle === undefined ? null : new AdaptiveThrottle(spec.throttle);',
    replace: 'const throttle = null as AdaptiveThrottle | null;',
    tests: ['src/sim/model/throttle.test.ts'],
  },
  {
    id: 'mesh-export-reports-throttle',
    mechanism: 'mesh export reports a throttle as dropped (no mesh setting has its meaning)',
    mark: 'mesh-export-reports-throttle',
    find: 'if (edge.throttle !== undefined) {',
    replace: 'if (false) {',
    tests: ['src/mesh/export-throttle.test.ts'],
  },
  {
    id: 'throttle-finite-now',
    mechanism: "a NaN or infinite now leaves the throttle's window and counts as they were",
    mark: 'throttle-finite-now',
    find: 'if (!Number.isFinite(nowMs)) return;',
    replace: 'void 0;',
    tests: ['src/policy/upstream/throttle.test.ts'],
  },
];
