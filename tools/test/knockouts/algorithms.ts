// Knock-outs of issue #25 item 9: each algorithm is what its name says (AWS, gRPC A6, Finagle, Envoy), one per rule.

import type { Knockout } from './knockout.js';

export const ALGORITHM_KNOCKOUTS: Knockout[] = [
  {
    id: 'decorrelated-first-from-base',
    mechanism:
      "decorrelated jitter's first retry draws from [base, 3·base] (AWS: sleep starts at base), not exactly base",
    mark: 'decorrelated-first-from-base',
    find: 'const sleepMs = n === 1 ? b.baseMs : previousDelayMs;',
    replace: 'const sleepMs = previousDelayMs;',
    tests: ['src/policy/retry/backoff.decorrelated.test.ts'],
  },
  {
    id: 'breaker-count-window-minimum',
    mechanism: 'a count window smaller than minimumCalls is refused (the failure rate could never open the breaker)',
    mark: 'breaker-count-window-minimum',
    find: "if (window?.kind === 'count' && isInt(minimumCalls, 1) && (minimumCalls as number) > window.size) {",
    replace: 'if (false) {',
    tests: ['src/policy/upstream/algorithms.test.ts'],
  },
  {
    id: 'grpc-token-ratio-truncated',
    mechanism: 'gRPC A6 token amounts keep 3 decimals and drop the rest (C-core, grpc-java), never rounding up',
    mark: 'grpc-token-ratio-truncated',
    find: 'let milli = Math.floor(value * MILLI);\n  if ((milli + 1) / MILLI <= value) milli++;\n  else if (milli / MILLI > value) milli--;\n  return milli;',
    replace: 'return Math.round(value * MILLI);',
    tests: ['src/policy/retry/budget.reference.test.ts'],
  },
  {
    id: 'ratio-budget-finagle-quantum',
    mechanism:
      "the ratio budget counts in Finagle's units (a deposit of 1000, a retry of trunc(1000 / ratio)), not 0.001s",
    mark: 'ratio-budget-finagle-quantum',
    find: 'this.deposit = ratio > 0 ? DEPOSIT : 0;\n    this.withdrawal = ratio > 0 ? Math.trunc(DEPOSIT / ratio) : DEPOSIT;',
    replace: 'this.deposit = Math.round(ratio * DEPOSIT);\n    this.withdrawal = DEPOSIT;',
    tests: ['src/policy/retry/budget.reference.test.ts'],
  },
  {
    id: 'balancer-p2c-with-replacement',
    mechanism: "p2c's two draws are independent, with replacement, as Envoy's LEAST_REQUEST draws them",
    mark: 'balancer-p2c-with-replacement',
    find: 'const second = drawIndex(u2, count);',
    replace: 'let second = drawIndex(u2, count - 1);\n    if (second >= first) second++;',
    tests: ['src/policy/upstream/algorithms.test.ts'],
  },
  {
    id: 'balancer-panic-whole-percent',
    mechanism: 'a fractional panic threshold counts as the whole percent Envoy reads (convertPercent truncates)',
    mark: 'balancer-panic-whole-percent',
    find: 'return Math.trunc(100 * (threshold / 100));',
    replace: 'return threshold;',
    tests: ['src/policy/upstream/algorithms.test.ts'],
  },
  {
    id: 'percent-budget-envoy-arithmetic',
    mechanism: "the percent budget's limit is Envoy's double arithmetic, trunc(percent / 100 · active)",
    mark: 'percent-budget-envoy-arithmetic',
    find: 'const byPercent = Math.trunc((this.percent / 100) * activeRequests);',
    replace: 'const byPercent = Math.trunc((this.percent * activeRequests) / 100);',
    tests: ['src/policy/retry/budget.reference.test.ts'],
  },
  {
    id: 'a6-credit-only-ok',
    mechanism: 'gRPC A6: only an OK answer earns tokens; a 4xx the policy does not retry leaves the bucket alone',
    mark: 'a6-credit-only-ok',
    find: 'if (!retryOn.statuses.has(status)) return NOT_MATCHED;',
    replace:
      "if (!retryOn.statuses.has(status)) return status < 500 && status !== 429 ? { ...NOT_MATCHED, budget: 'success' } : NOT_MATCHED;",
    tests: ['src/policy/retry/budget.reference.test.ts'],
  },
];
