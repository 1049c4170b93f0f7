// Knock-outs of issue #13's lab and of the wasted-work rule it shares with the simulator.

import type { Knockout } from './knockout.js';

export const LAB_KNOCKOUTS: Knockout[] = [
  {
    id: 'sim-wasted-whole-chain',
    mechanism: 'the simulator counts work wasted when any caller above it, not only the direct one, stopped waiting',
    mark: 'sim-wasted-whole-chain',
    find: '    link = chain.up(link);\n',
    replace: '    return false;\n',
    tests: ['src/sim/model/wasted.test.ts', 'src/lab/metrics.test.ts'],
  },
  {
    id: 'lab-wasted-whole-chain',
    mechanism: 'the lab judges wasted work by the shared whole-chain rule (wastedOnChain), not by its direct caller',
    mark: 'lab-wasted-whole-chain',
    find: '    return wastedOnChain(this, parent, t);',
    replace: '    return !this.awaited(parent, t) || !this.callerHandling(parent, t);',
    tests: ['src/lab/metrics.test.ts'],
  },
  {
    id: 'lab-open-loop',
    mechanism: "the lab's users keep arriving on their Poisson clock while earlier users wait (open loop)",
    mark: 'lab-open-loop',
    find: '    while (!this.stopped && s.nextMs <= this.nowMs() && s.nextMs < this.endMs) {',
    // a closed loop of 4 connections: the next user goes only when one of 4 got its answer
    replace:
      '    while (!this.stopped && this.pending.size < 4 && s.nextMs <= this.nowMs() && s.nextMs < this.endMs) {',
    tests: ['src/lab/load.test.ts'],
  },
  {
    id: 'lab-pool-shrinks',
    mechanism: "the failover takes connections away from member-api's PostgreSQL pool",
    mark: 'lab-pool-shrinks',
    find: '    const target = Math.min(this.size, Math.max(1, Math.floor(n)));',
    replace: '    const target = this.size;',
    tests: ['src/lab/postgres/db.test.ts'],
  },
  {
    id: 'lab-scale-pools',
    mechanism: '--scale shrinks worker pools with the rates, keeping utilisation',
    mark: 'lab-scale-pools',
    find: '          workers: scaledCount(s.shed.workers, scale),',
    replace: '          workers: s.shed.workers,',
    tests: ['src/lab/scale.test.ts'],
  },
  {
    id: 'service-answer-fail-fast',
    mechanism:
      'the first required failure of parallel calls answers at once, in the simulator and the lab (no wait for siblings)',
    mark: 'service-answer-fail-fast',
    find: '  if (failure !== 0) return failure;',
    replace: '  if (failure !== 0 && !(parallel && othersOut)) return failure;',
    tests: ['src/sim/model/service-answer.test.ts', 'src/lab/service.test.ts'],
  },
  {
    id: 'plain-refusal-retry-after-only',
    mechanism:
      "a service without Seawall refuses with the standard Retry-After only (simulator and lab), none of Seawall's",
    mark: 'plain-refusal-retry-after-only',
    find: '    plain = retryAfter === undefined ? null : Object.freeze({ [RETRY_AFTER_HEADER]: retryAfter });',
    replace: '    plain = retryAfter === undefined ? null : headers;',
    tests: ['src/sim/model/plain-refusal.test.ts', 'src/lab/service.test.ts'],
  },
];
