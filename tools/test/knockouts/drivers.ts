// Knock-outs of issue #12's wiring: the HTTP client, the simulator and the mesh commands each carry a mechanism alone.

import type { Knockout } from './knockout.js';

const HTTP_BREAKERS = ['test/http/client/upstream-breakers.test.ts'];
const HTTP_BALANCER = ['test/http/client/upstream-balancer.test.ts'];
/** The one guard pipeline both drivers run (the HTTP and simulator knock-outs remove the same line). */

export const DRIVER_KNOCKOUTS: Knockout[] = [
  {
    id: 'http-breaker-asked',
    mechanism: 'the HTTP client asks the circuit breaker before every attempt',
    mark: 'http-breaker-asked',
    find: 'const breaker = this.breaker;\n    if (breaker !== null) {',
    replace: 'const breaker = this.breaker;\n    if (false) {',
    tests: HTTP_BREAKERS,
  },
  {
    id: 'http-retry-slot',
    mechanism: "the HTTP client holds a retry to the limits' maxRetries (Envoy's max_retries)",
    mark: 'http-retry-slot',
    find: 'if (!this.takeRetry(hold)) {',
    replace: 'if (false) {',
    tests: HTTP_BREAKERS,
  },
  {
    id: 'http-retry-other-endpoint',
    mechanism: "the HTTP client's retry goes to another endpoint than the one that failed",
    mark: 'http-retry-other-endpoint',
    find: 'index = this.choose(balancer, hold.endpoint, time);',
    replace: 'index = this.choose(balancer, -1, time);',
    tests: HTTP_BALANCER,
  },
  {
    id: 'http-outlier-reported',
    mechanism: "the HTTP client reports each attempt's result to the outlier detector",
    mark: 'http-outlier-reported',
    find: 'if (outlier !== null) {\n        const u = this.resultDraws',
    replace: 'if (false) {\n        const u = this.resultDraws',
    tests: HTTP_BALANCER,
  },
  {
    id: 'http-monotonic-clock',
    mechanism: "the HTTP client's breakers and ejections run on a clock that never steps back",
    mark: 'http-monotonic-clock',
    find: 'return performance.timeOrigin + performance.now();',
    replace: 'return Date.now();',
    tests: ['test/http/client/upstream-inputs.test.ts'],
  },
  {
    id: 'retry-refused-uncounted',
    mechanism: 'a retry refused by max_retries is not counted as a retry',
    mark: 'retry-refused-uncounted',
    find: "this.policy.counters.retries--;\n    this.end('budget-exhausted');",
    replace: "this.end('budget-exhausted');",
    tests: ['src/policy/retry/retry.refused.test.ts'],
  },
  {
    id: 'sim-breaker-asked',
    mechanism: 'the simulator asks the circuit breaker before every attempt',
    mark: 'sim-breaker-asked',
    find: 'const verdict = breaker.tryAcquire(time.nowMs);\n      if (!verdict.allowed) return this.refuse(hold, BREAKER_REFUSALS[verdict.reason]);',
    replace: 'const verdict = breaker.tryAcquire(time.nowMs);',
    tests: ['src/sim/model/guards.test.ts'],
  },
  {
    id: 'sim-outlier-reported',
    mechanism: "the simulator reports each attempt's result to the outlier detector",
    mark: 'http-outlier-reported',
    find: 'if (outlier !== null) {\n        const u = this.resultDraws',
    replace: 'if (false) {\n        const u = this.resultDraws',
    tests: ['src/sim/model/outliers.test.ts'],
  },
  {
    id: 'sim-fault-per-instance',
    mechanism: "a fault's instances: it hits only the instances it lists",
    mark: 'sim-fault-per-instance',
    find: 'if (fault.instances !== null && !fault.instances.includes(instance)) return;',
    replace: '',
    tests: ['src/sim/model/outliers.test.ts', 'src/sim/model/fault-state.test.ts'],
  },
  {
    id: 'mesh-istio-attempts-are-retries',
    mechanism: "Istio's attempts count retries: maxAttempts = attempts + 1",
    mark: 'mesh-istio-attempts-are-retries',
    find: 'let maxAttempts = attempts + 1;',
    replace: 'let maxAttempts = attempts;',
    tests: ['src/mesh/import.test.ts'],
  },
  {
    id: 'lint-amplification-multiplies',
    mechanism: "seawall lint multiplies the attempts along a call path (bad's 16× at member-api)",
    mark: 'lint-amplification-multiplies',
    find: 'const total = product * f;',
    replace: 'const total = Math.max(product, f);',
    tests: ['src/mesh/lint/rules.test.ts'],
  },
  {
    id: 'mesh-export-reports-breaker',
    mechanism:
      "mesh export reports a variant's circuit breaker as not exported (c-circuit-breaker), never drops it silently",
    mark: 'mesh-export-reports-breaker',
    find: '  if (edge.circuitBreaker !== undefined) {',
    replace: '  if (false) {',
    tests: ['src/mesh/export-simulate.test.ts'],
  },
  {
    id: 'mesh-reads-simulator-guards',
    mechanism:
      "the mesh tools see the guards the simulator's loader resolved (a variant's limits and outlier detection)",
    mark: 'mesh-reads-simulator-guards',
    find: '  if (e.limits !== null) out.limits = e.limits;',
    replace: '',
    tests: ['src/mesh/export-simulate.test.ts'],
  },
  {
    id: 'client-timer-cap',
    mechanism:
      "the attempt loop's timers are capped at setTimeout's limit (a deadline 40 days out is not a 1 ms timeout)",
    mark: 'client-timer-cap',
    find: 'setTimeout(fireTimer, Math.min(ms, MAX_TIMER_MS), this)',
    replace: 'setTimeout(fireTimer, ms, this)',
    tests: ['src/execute/executor.inputs.test.ts'],
  },
  {
    id: 'client-no-backoff-after-reentrant-abort',
    mechanism: 'a hook or subscriber that aborts the call while a retry is published leaves no backoff timer behind',
    mark: 'client-no-backoff-after-reentrant-abort',
    find: '    if (this.state !== SLEEPING) return false;',
    replace: '',
    tests: ['src/execute/executor.reentry.test.ts'],
  },
  {
    id: 'abort-fanout-one-listener',
    mechanism: 'a signal shared by many calls holds one abort listener, not one per call',
    mark: 'abort-fanout-one-listener',
    find: '  if (waiters === undefined) {',
    replace: '  {',
    tests: ['src/execute/executor.load.test.ts'],
  },
  {
    id: 'give-up-set',
    mechanism:
      'one give-up set beside the stop reasons: unsafe-to-retry and unclaimed-error are answers, not give-ups (events, rejectOnGiveUp)',
    mark: 'give-up-set',
    find: '  return GIVE_UP_REASONS.has(reason);',
    replace: "  return reason !== 'succeeded' && reason !== 'not-retryable' && reason !== 'aborted';",
    tests: ['src/policy/core/types.test.ts', 'test/http/client/events.test.ts'],
  },
  {
    id: 'retry-after-one-cap',
    mechanism:
      'the hint parsers return the wait asked for (bounded for overflow only); maxRetryAfter, the one cap, refuses a longer one',
    mark: 'retry-after-one-cap',
    find: '  if (delayMs > MAX_SERVER_WAIT_MS) return { ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: true };',
    replace:
      '  if (delayMs > DEFAULT_MAX_RETRY_AFTER_MS) return { ok: true, delayMs: DEFAULT_MAX_RETRY_AFTER_MS, bounded: true };',
    tests: ['src/policy/hop/retry-after.test.ts', 'src/policy/retry/retry.test.ts'],
  },
  {
    id: 'one-histogram-at-most',
    mechanism:
      "the one latency histogram counts a value exactly at a bound as at most it (the server's queue-wait buckets read it)",
    mark: 'one-histogram-at-most',
    find: '    if ((this.maxima[last] as number) <= leMs) n += this.counts[last] as number;',
    replace: '',
    tests: ['src/policy/core/latency-histogram.test.ts', 'test/http/server/otel.test.ts'],
  },
];
