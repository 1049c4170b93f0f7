// Knock-outs of issue #12's mechanisms: the circuit breaker, the concurrency breaker, outlier detection, the balancer.

import type { Knockout } from './knockout.js';

const BREAKER = 'src/policy/breaker.ts';
const CONCURRENCY = 'src/policy/concurrency.ts';
const OUTLIER = 'src/policy/outlier.ts';
const BALANCER = 'src/policy/balancer.ts';
const BREAKER_TESTS = ['src/policy/breaker.test.ts', 'src/policy/breaker.property.test.ts'];
const OUTLIER_TESTS = ['src/policy/outlier.test.ts', 'src/policy/outlier.property.test.ts'];
const OUTLIER_UNIT = ['src/policy/outlier.test.ts'];

export const BREAKER_KNOCKOUTS: Knockout[] = [
  {
    id: 'breaker-open-fails-fast',
    mechanism: 'an open circuit breaker refuses calls at once',
    file: BREAKER,
    find: 'n.rejectedOpen++;\n      return REJECT_OPEN;',
    replace: 'n.rejectedOpen++;',
    tests: BREAKER_TESTS,
  },
  {
    id: 'breaker-consecutive-failures',
    mechanism: 'the circuit breaker opens after failureThreshold consecutive failures',
    file: BREAKER,
    find: 'if (this.consecutive >= this.config.failureThreshold || ',
    replace: 'if (false || ',
    tests: BREAKER_TESTS,
  },
  {
    id: 'breaker-rate-minimum-volume',
    mechanism: 'the failure rate opens the breaker only over at least minimumCalls calls',
    file: BREAKER,
    find: 'w.calls >= rate.minimumCalls;',
    replace: 'w.calls >= 1;',
    tests: BREAKER_TESTS,
  },
  {
    id: 'breaker-half-open-bounded',
    mechanism: 'half-open lets at most halfOpenMaxProbes probes through, never everyone',
    file: BREAKER,
    find: 'if (this.probeSlots >= this.config.halfOpenMaxProbes) {',
    replace: 'if (false) {',
    tests: BREAKER_TESTS,
  },
  {
    id: 'breaker-stale-reports',
    mechanism: 'a late report from an earlier breaker state cannot restart a break or close the circuit',
    file: BREAKER,
    find: 'if (permit.generation !== this.generation) {',
    replace: 'if (false) {',
    tests: BREAKER_TESTS,
  },
  {
    id: 'concurrency-overflow',
    mechanism: 'the concurrency breaker refuses a unit over its limit instead of handing it out',
    file: CONCURRENCY,
    find: 'if (this.active[resource] >= this.limit(resource)) {',
    replace: 'if (false) {',
    tests: ['src/policy/concurrency.test.ts'],
  },
  {
    id: 'concurrency-retry-budget',
    mechanism: "Envoy's retry budget caps concurrent retries at a share of the requests outstanding",
    file: CONCURRENCY,
    find: 'return this.budget ? this.budget.allowedRetries(this.active.request + this.active.pending) : c.maxRetries;',
    replace: 'return c.maxRetries;',
    tests: ['src/policy/concurrency.test.ts'],
  },
  {
    id: 'outlier-max-ejection-percent',
    mechanism: 'maxEjectionPercent keeps hosts in the pool when many fail at once (a shared-DB outage)',
    file: OUTLIER,
    find: 'if (100 * (this.active + 1) <= cfg.maxEjectionPercent * this.hosts.size) return true;',
    replace: 'return true;',
    tests: OUTLIER_TESTS,
  },
  {
    id: 'outlier-ejection-time-grows',
    mechanism: 'a host ejected again stays out longer (base × times ejected, capped)',
    file: OUTLIER,
    find: 'if (h.multiplier * cfg.baseEjectionTimeMs < cfg.maxEjectionTimeMs + cfg.baseEjectionTimeMs) h.multiplier++;',
    replace: 'h.multiplier = 1;',
    tests: OUTLIER_UNIT,
  },
  {
    id: 'outlier-multiplier-decays',
    mechanism: 'a host healthy for an interval after its return loses a step of its ejection multiplier',
    file: OUTLIER,
    find: 'if (nowMs - h.unejectedAtMs >= cfg.intervalMs) h.multiplier--;',
    replace: '',
    tests: OUTLIER_UNIT,
  },
  {
    id: 'outlier-success-rate',
    mechanism: 'success-rate ejection: a host far below the mean success rate is ejected at the sweep',
    file: OUTLIER,
    find: "this.detectAtSweep(srHosts[i] as HostState, 'success-rate', nowMs, random, report);",
    replace: '{}',
    tests: OUTLIER_UNIT,
  },
  {
    id: 'balancer-skips-ejected',
    mechanism: 'the balancer sends no attempt to an ejected endpoint',
    file: BALANCER,
    find: 'const ok = !ejections.isEjected(this.endpoints[i] as string, nowMs);',
    replace: 'const ok = true;',
    tests: ['src/policy/balancer.test.ts'],
  },
  {
    id: 'balancer-avoids-previous',
    mechanism: 'a retry goes to another endpoint than the one that failed',
    file: BALANCER,
    find: 'if (previous >= 0 && previous < n && this.usable[previous] === 1 && count > 1) {',
    replace: 'if (false) {',
    tests: ['src/policy/balancer.test.ts'],
  },
  {
    id: 'balancer-panic',
    mechanism: "Envoy's panic threshold: with too few endpoints left, ejections are ignored",
    file: BALANCER,
    find: 'if (count * 100 < this.config.panicThreshold * n) {',
    replace: 'if (false) {',
    tests: ['src/policy/balancer.test.ts'],
  },
  {
    id: 'balancer-p2c-least-loaded',
    mechanism: 'power of two choices sends to the less loaded of two endpoints',
    file: BALANCER,
    find: 'return (this.inFlight[b] as number) < (this.inFlight[a] as number) ? b : a;',
    replace: 'return a;',
    tests: ['src/policy/balancer.test.ts'],
  },
];
