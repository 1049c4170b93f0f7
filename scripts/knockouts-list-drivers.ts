// Knock-outs of issue #12's wiring: the HTTP client, the simulator and the mesh commands each carry a mechanism alone.

import type { Knockout } from './knockout.js';

const UPSTREAM = 'src/http/upstream.ts';
const HTTP_BREAKERS = ['test/http/upstream-breakers.test.ts'];
const HTTP_BALANCER = ['test/http/upstream-balancer.test.ts'];
const GUARDS = 'src/sim/model/guards.ts';

export const DRIVER_KNOCKOUTS: Knockout[] = [
  {
    id: 'http-breaker-asked',
    mechanism: 'the HTTP client asks the circuit breaker before every attempt',
    file: UPSTREAM,
    find: 'const breaker = scope.breaker;\n    if (breaker !== null) {',
    replace: 'const breaker = scope.breaker;\n    if (false) {',
    tests: HTTP_BREAKERS,
  },
  {
    id: 'http-retry-slot',
    mechanism: "the HTTP client holds a retry to the limits' maxRetries (Envoy's max_retries)",
    file: 'src/http/client.ts',
    find: 'if (admission !== undefined && !admission.retryDecided()) return this.refuseRetry(payload, now);',
    replace: 'if (false) return this.refuseRetry(payload, now);',
    tests: HTTP_BREAKERS,
  },
  {
    id: 'http-retry-other-endpoint',
    mechanism: "the HTTP client's retry goes to another endpoint than the one that failed",
    file: UPSTREAM,
    find: 'const index = scope.pick(nowMs, this.endpoint);',
    replace: 'const index = scope.pick(nowMs, -1);',
    tests: HTTP_BALANCER,
  },
  {
    id: 'http-outlier-reported',
    mechanism: "the HTTP client reports each attempt's result to the outlier detector",
    file: UPSTREAM,
    find: '(scope.balancer as Balancer).ended(this.endpoint);\n      scope.result(this.endpoint, outcome, nowMs);',
    replace: '(scope.balancer as Balancer).ended(this.endpoint);',
    tests: HTTP_BALANCER,
  },
  {
    id: 'http-monotonic-clock',
    mechanism: "the HTTP client's breakers and ejections run on a clock that never steps back",
    file: 'src/http/clock.ts',
    find: 'return performance.timeOrigin + performance.now();',
    replace: 'return Date.now();',
    tests: ['test/http/upstream-hostile.test.ts'],
  },
  {
    id: 'retry-refused-uncounted',
    mechanism: 'a retry refused by max_retries is not counted as a retry',
    file: 'src/policy/retry-call.ts',
    find: "this.policy.counters.retries--;\n    this.end('budget-exhausted');",
    replace: "this.end('budget-exhausted');",
    tests: ['src/policy/retry-refused.test.ts'],
  },
  {
    id: 'sim-breaker-asked',
    mechanism: 'the simulator asks the circuit breaker before every attempt',
    file: GUARDS,
    find: 'const verdict = breaker.tryAcquire(nowMs);\n    if (!verdict.allowed) return null;',
    replace: 'const verdict = breaker.tryAcquire(nowMs);',
    tests: ['src/sim/model/guards.test.ts'],
  },
  {
    id: 'sim-outlier-reported',
    mechanism: "the simulator reports each attempt's result to the outlier detector",
    file: GUARDS,
    find: 'if (detector !== null) {\n    detector.onResult(',
    replace: 'if (false) {\n    detector.onResult(',
    tests: ['src/sim/model/outliers.test.ts'],
  },
  {
    id: 'sim-fault-per-instance',
    mechanism: "a fault's instances: it hits only the instances it lists",
    file: 'src/sim/model/fault-state.ts',
    find: 'if (fault.instances !== null && !fault.instances.includes(instance)) return;',
    replace: '',
    tests: ['src/sim/model/outliers.test.ts', 'src/sim/model/fault-state.test.ts'],
  },
  {
    id: 'mesh-istio-attempts-are-retries',
    mechanism: "Istio's attempts count retries: maxAttempts = attempts + 1",
    file: 'src/mesh/istio-policy.ts',
    find: 'let maxAttempts = attempts + 1;',
    replace: 'let maxAttempts = attempts;',
    tests: ['src/mesh/import.test.ts'],
  },
  {
    id: 'lint-amplification-multiplies',
    mechanism: "seawall lint multiplies the attempts along a call path (bad's 16× at member-api)",
    file: 'src/mesh/lint.ts',
    find: 'const total = product * f;',
    replace: 'const total = Math.max(product, f);',
    tests: ['src/mesh/lint.test.ts'],
  },
  {
    id: 'client-timer-cap',
    mechanism:
      "the attempt loop's timers are capped at setTimeout's limit (a deadline 40 days out is not a 1 ms timeout)",
    file: 'src/http/client.ts',
    find: 'setTimeout(fireTimer, Math.min(ms, MAX_TIMER_MS), this)',
    replace: 'setTimeout(fireTimer, ms, this)',
    tests: ['src/execute/execute-hostile.test.ts'],
  },
  {
    id: 'client-no-backoff-after-reentrant-abort',
    mechanism: 'a hook or subscriber that aborts the call while a retry is published leaves no backoff timer behind',
    file: 'src/http/client.ts',
    find: '    if (this.state !== SLEEPING) return false;',
    replace: '',
    tests: ['src/execute/execute-reentry.test.ts'],
  },
  {
    id: 'abort-fanout-one-listener',
    mechanism: 'a signal shared by many calls holds one abort listener, not one per call',
    file: 'src/http/abort-fanout.ts',
    find: '  if (waiters === undefined) {',
    replace: '  {',
    tests: ['src/execute/execute-load.test.ts'],
  },
];
