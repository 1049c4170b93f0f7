// Knock-outs of issue #25's guard items: the half-open probe's lease, the breaker window grown on use.

import type { Knockout } from './knockout.js';

const LEASE_FIND = "if (this.current === 'half-open' && nowMs >= this.leaseEndsMs) {";
const GROW_FIND = 'Math.min(this.buckets, Math.max(FIRST_WINDOW_BUCKETS, 2 * have, need));';

export const HOSTILE2_GUARD_KNOCKOUTS: Knockout[] = [
  {
    id: 'breaker-probe-lease (policy)',
    mechanism:
      'a half-open probe not reported within probeLease counts as failed, so a hung one cannot hold the breaker',
    mark: 'breaker-probe-lease',
    find: LEASE_FIND,
    replace: 'if (false) {',
    tests: ['src/policy/upstream/breaker.lease.test.ts', 'src/policy/upstream/breaker.property.test.ts'],
  },
  {
    id: 'breaker-probe-lease (HTTP)',
    mechanism: 'the same lease, seen through the HTTP client with a server that never answers the first probe',
    mark: 'breaker-probe-lease',
    find: LEASE_FIND,
    replace: 'if (false) {',
    tests: ['test/http/client/upstream-probe-lease.test.ts'],
  },
  {
    id: 'breaker-window-grows-on-use',
    mechanism: "the breaker's window storage grows with the calls seen, not allocated at its configured size",
    mark: 'breaker-window-grows-on-use',
    find: GROW_FIND,
    replace: 'this.buckets;',
    tests: ['src/policy/upstream/breaker-window.test.ts', 'test/http/client/upstream-memory.test.ts'],
  },
];
