// Knock-outs of issue #25 item 2, "pending means pending": a pending slot only without a free connection, attempts counted when sent.

import type { Knockout } from './knockout.js';

const SLOT_FIND = "return pool.connectionFree(origin) ? 'request' : 'pending';";

export const PENDING_KNOCKOUTS: Knockout[] = [
  {
    id: 'pending-free-connection (policy)',
    mechanism: 'an attempt that has a free connection takes a request slot, not a pending one (Envoy conn pool)',
    mark: 'pending-free-connection',
    find: SLOT_FIND,
    replace: "return 'pending';",
    tests: ['src/policy/upstream/pipeline.pending.test.ts'],
  },
  {
    id: 'pending-free-connection (HTTP)',
    mechanism: '50 calls onto 50 idle keep-alive connections are all admitted under maxPendingRequests 10',
    mark: 'pending-free-connection',
    find: SLOT_FIND,
    replace: "return 'pending';",
    tests: ['test/http/client/upstream-pending.test.ts'],
  },
  {
    id: 'pending-counted-when-sent',
    mechanism: 'upstream_rq_total counts an attempt when it is sent, not when it is admitted',
    mark: 'pending-counted-when-sent',
    find: 'return pool === null ? this.sent(hold) : true;',
    replace: 'return this.sent(hold);',
    tests: ['src/policy/upstream/pipeline.pending.test.ts', 'test/http/client/upstream-pending.test.ts'],
  },
  {
    id: 'pending-sent-at-connect',
    mechanism: 'the undici driver reports an attempt sent when undici puts it on a connection (onConnect)',
    mark: 'pending-sent-at-connect',
    find: 'admission.sent()) return true;',
    replace: 'true) return true;',
    tests: ['test/http/client/upstream-pending.test.ts'],
  },
  {
    id: 'pending-pool-stats-read',
    mechanism: "retryInterceptor reads its pool's stats to tell whether a connection is free",
    mark: 'pending-pool-stats-read',
    find: 'return below === undefined || connectionFree(below, origin ?? this.rawOrigin);',
    replace: 'return below === undefined;',
    tests: ['test/http/client/upstream-pending.test.ts'],
  },
  {
    id: 'pending-stats-key',
    mechanism: "an origin is looked up in an Agent's stats as undici keys them (URL.origin, default port dropped)",
    mark: 'pending-stats-key',
    find: 'key = new URL(origin).origin;',
    replace: 'key = origin;',
    tests: ['src/http/client/pool-view.test.ts'],
  },
  {
    id: 'pending-needs-pool',
    mechanism: 'retryInterceptor refuses limits.maxPendingRequests without pool (the limit could never bind)',
    mark: 'pending-needs-pool',
    find: 'if (written && limits.maxPendingRequests !== undefined) {',
    replace: 'if (false) {',
    tests: ['test/http/client/upstream-pending.test.ts'],
  },
];
