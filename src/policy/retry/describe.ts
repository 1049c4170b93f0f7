// The short description of a retry budget and of a retry breaker: the one text the report and `mesh export` print.

import { type BudgetConfig, DEFAULT_BUDGET_PERCENT } from './budget.js';
import type { ResolvedRetryBreaker } from './retry-breaker.js';

function seconds(ms: number): string {
  return ms >= 1000 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** "budget 10 tokens / 0.1", "rate budget 20/s, burst 40", "deposit bucket +0.1/call, −1/retry, ≤ 10", ... */
export function describeBudget(budget: BudgetConfig | null): string {
  if (budget === null || budget.kind === 'none') return 'no retry budget';
  if (budget.kind === 'token-bucket') return `budget ${budget.maxTokens} tokens / ${budget.tokenRatio}`;
  if (budget.kind === 'percent') return `budget ${budget.percent ?? DEFAULT_BUDGET_PERCENT} % of calls`;
  if (budget.kind === 'rate') return `rate budget ${budget.perSecond}/s, burst ${budget.burst}`;
  if (budget.kind === 'deposit-bucket')
    return `deposit bucket +${budget.deposit}/call, −${budget.cost}/retry, ≤ ${budget.maxTokens}`;
  return 'ratio budget';
}

/** "retry breaker over 20 % failed in 10 s" (and its minimum of outcomes when above 1). */
export function describeRetryBreaker(breaker: ResolvedRetryBreaker): string {
  const min = breaker.minSamples > 1 ? ` (≥ ${breaker.minSamples} outcomes)` : '';
  return `retry breaker over ${Math.round(breaker.failureRate * 1e4) / 100} % failed in ${seconds(breaker.windowMs)}${min}`;
}
