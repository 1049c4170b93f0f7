// Knock-outs of issue #27 item 3: the rate budget, Brooker's deposit bucket and retry breaker, and their wiring.

import type { Knockout } from './knockout.js';

const RATE = ['src/policy/retry/rate-budget.test.ts'];
const DEPOSIT = ['src/policy/retry/deposit-bucket.test.ts'];
const BREAKER = ['src/policy/retry/retry-breaker.test.ts'];
const WIRING = ['src/mesh/retry-limits.wiring.test.ts'];

export const RETRY_LIMITS_KNOCKOUTS: Knockout[] = [
  {
    id: 'rate-budget-per-second-checked',
    mechanism: 'a rate budget refuses a perSecond that is NaN, 0, negative, infinite or absurd, naming the key',
    mark: 'rate-budget-per-second-checked',
    find: '!(perSecond > 0 && perSecond <= MAX_RATE_PER_SECOND)',
    replace: 'false',
    tests: RATE,
  },
  {
    id: 'rate-budget-refill',
    mechanism: 'the rate budget refills perSecond tokens a second, up to its burst',
    mark: 'rate-budget-refill',
    find: 'this.tokens = Math.min(this.burst, this.tokens + (nowMs - last) * this.perMs);',
    replace: 'this.tokens = this.tokens + (nowMs - last) * this.perMs;',
    tests: RATE,
  },
  {
    id: 'rate-budget-cap',
    mechanism: 'the rate budget refuses a retry when it holds less than one token',
    mark: 'rate-budget-cap',
    find: 'if (this.tokens < 1) return false;',
    replace: 'if (this.tokens < 0) return false;',
    tests: RATE,
  },
  {
    id: 'deposit-bucket-amount-checked',
    mechanism: 'a deposit bucket refuses a deposit, cost or size that is NaN, 0, negative or absurd',
    mark: 'deposit-bucket-amount-checked',
    find: '!(value >= MIN_AMOUNT && value <= MAX_TOKENS)',
    replace: 'false',
    tests: DEPOSIT,
  },
  {
    id: 'deposit-bucket-deposit',
    mechanism: 'every call deposits `deposit` tokens into the bucket, capped at maxTokens',
    mark: 'deposit-bucket-deposit',
    find: 'this.units = Math.min(this.maxUnits, this.units + this.depositUnits);',
    replace: 'this.units = this.units + this.depositUnits;',
    tests: DEPOSIT,
  },
  {
    id: 'deposit-bucket-cost',
    mechanism: 'a retry goes only when the bucket holds `cost` tokens',
    mark: 'deposit-bucket-cost',
    find: 'if (this.units < this.costUnits) return false;',
    replace: 'if (this.units <= 0) return false;',
    tests: DEPOSIT,
  },
  {
    id: 'retry-breaker-rate-checked',
    mechanism: 'a retry breaker refuses a failureRate outside (0, 1), naming the key',
    mark: 'retry-breaker-rate-checked',
    find: "typeof rate !== 'number' || !(rate > 0 && rate < 1)",
    replace: "typeof rate !== 'number'",
    tests: BREAKER,
  },
  {
    id: 'retry-breaker-window',
    mechanism: 'the retry breaker counts only the outcomes of its window (10 time buckets)',
    mark: 'retry-breaker-window',
    find: 'if ((this.epochs[i] as number) > epoch - RETRY_BREAKER_BUCKETS) {',
    replace: 'if ((this.epochs[i] as number) > Number.NEGATIVE_INFINITY) {',
    tests: BREAKER,
  },
  {
    id: 'retry-breaker-threshold',
    mechanism: 'the retry breaker is open only when the failure rate is above the threshold over minSamples outcomes',
    mark: 'retry-breaker-threshold',
    find: 'return total >= this.config.minSamples && failures > this.config.failureRate * total;',
    replace: 'return failures >= this.config.failureRate * total;',
    tests: BREAKER,
  },
  {
    id: 'retry-breaker-counts-failures',
    mechanism: 'a failed attempt counts as a failure in the retry breaker',
    mark: 'retry-breaker-counts-failures',
    find: 'this.breaker.record(true, nowMs);',
    replace: 'this.breaker.record(false, nowMs);',
    tests: BREAKER,
  },
  {
    id: 'retry-breaker-gate',
    mechanism: 'an open retry breaker refuses the retry (budget-exhausted)',
    mark: 'retry-breaker-gate',
    find: 'if (this.breaker.isOpen(nowMs)) return false;',
    replace: '',
    tests: BREAKER,
  },
  {
    id: 'retry-breaker-built',
    mechanism: "a RetryPolicy with retryBreaker puts each upstream's budget behind a breaker",
    mark: 'retry-breaker-built',
    find: 'if (breaker !== null) budget = new RetryBreakerGate(budget, breaker);',
    replace: '',
    tests: BREAKER,
  },
  {
    id: 'mesh-export-reports-time-budgets',
    mechanism: 'mesh export reports a rate budget or a deposit bucket as dropped (the mesh has neither)',
    mark: 'mesh-export-reports-time-budgets',
    find: "if (b.kind === 'rate' || b.kind === 'deposit-bucket')",
    replace: "if (b.kind === ('x' as never))",
    tests: WIRING,
  },
  {
    id: 'mesh-export-reports-retry-breaker',
    mechanism: 'mesh export reports a retry breaker as dropped',
    mark: 'mesh-export-reports-retry-breaker',
    find: 'if (attempts > 1 && c.retryBreaker !== null) {',
    replace: 'if (false) {',
    tests: WIRING,
  },
  {
    id: 'lint-deposit-bucket-share',
    mechanism: "lint counts a deposit bucket's share as deposit / cost",
    mark: 'lint-deposit-bucket-share',
    find: "if (budget.kind === 'deposit-bucket') {",
    replace: "if (budget.kind === ('x' as never)) {",
    tests: WIRING,
  },
];
