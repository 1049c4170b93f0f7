// Knock-outs of issue #13's lab and of the wasted-work rule it shares with the simulator.

import type { Knockout } from './knockout.js';

export const LAB_KNOCKOUTS: Knockout[] = [
  {
    id: 'sim-wasted-whole-chain',
    mechanism: 'the simulator counts work wasted when any caller above it, not only the direct one, stopped waiting',
    file: 'src/sim/model/wasted.ts',
    find: '    attempt = parent;\n',
    replace: '    return false;\n',
    tests: ['src/sim/model/wasted.test.ts'],
  },
  {
    id: 'lab-wasted-whole-chain',
    mechanism: 'the lab judges wasted work over the whole chain of callers, as the simulator does',
    file: 'src/lab/metrics.ts',
    find: "      parent = service.inbound.parent[request] ?? '';",
    replace: '      return true;',
    tests: ['src/lab/metrics.test.ts'],
  },
  {
    id: 'lab-open-loop',
    mechanism: "the lab's users keep arriving on their Poisson clock while earlier users wait (open loop)",
    file: 'src/lab/load.ts',
    find: '    while (!this.stopped && s.nextMs <= this.nowMs() && s.nextMs < this.endMs) {',
    // a closed loop of 4 connections: the next user goes only when one of 4 got its answer
    replace:
      '    while (!this.stopped && this.pending.size < 4 && s.nextMs <= this.nowMs() && s.nextMs < this.endMs) {',
    tests: ['src/lab/load.test.ts'],
  },
  {
    id: 'lab-pool-shrinks',
    mechanism: "the failover takes connections away from member-api's PostgreSQL pool",
    file: 'src/lab/db.ts',
    find: '    const target = Math.min(this.size, Math.max(1, Math.floor(n)));',
    replace: '    const target = this.size;',
    tests: ['src/lab/db.test.ts'],
  },
  {
    id: 'lab-scale-pools',
    mechanism: '--scale shrinks worker pools with the rates, keeping utilisation',
    file: 'src/lab/scale.ts',
    find: '          workers: scaledCount(s.shed.workers, scale),',
    replace: '          workers: s.shed.workers,',
    tests: ['src/lab/scale.test.ts'],
  },
];
