// The rate retry budget: at most `perSecond` retries a second, refilled by time, with a `burst` (Bronson et al., HotOS '21).

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';

export interface RateBudgetOptions {
  /** Retries a second the budget refills (Bronson et al. recover a metastable system with "less than 20 QPS"). */
  perSecond: number;
  /** Retries that may go at once after a quiet spell: the bucket's size (default perSecond, at least 1). */
  burst?: number;
}

/** The largest perSecond and burst: far above any retry rate one caller can send, small enough to stay exact. */
export const MAX_RATE_PER_SECOND = 1e6;

/** The burst a rate budget has when none is given: one second of refill, and never less than one whole retry. */
export function defaultRateBurst(perSecond: number): number {
  return Math.max(1, perSecond);
}

/** Checks a rate budget's keys (the `kind` and unknown keys are checked by the caller). */
export function rateBudgetIssues(o: Record<string, unknown>, path: string, issues: ConfigIssue[]): void {
  const perSecond = o.perSecond;
  // A NaN or an infinity fails both comparisons: `!(x > 0 && x <= max)` catches them.
  // @ko rate-budget-per-second-checked
  if (typeof perSecond !== 'number' || !(perSecond > 0 && perSecond <= MAX_RATE_PER_SECOND)) {
    issues.push({ path: joinPath(path, 'perSecond'), message: 'must be a number of retries a second in (0, 1000000]' });
  }
  const burst = o.burst;
  if (burst !== undefined && (typeof burst !== 'number' || !(burst >= 1 && burst <= MAX_RATE_PER_SECOND))) {
    issues.push({
      path: joinPath(path, 'burst'),
      message: 'must be a number in [1, 1000000] (below 1 no retry could ever go)',
    });
  }
}

/**
 * A token bucket refilled by the clock, not by traffic: it starts full (`burst` tokens), a retry takes one whole token,
 * and every millisecond adds perSecond / 1000, up to `burst`. So over any span of T seconds at most
 * burst + perSecond · T retries go, however many calls fail: a hard cap on the retry load one caller adds, which
 * does not grow with its traffic (unlike a ratio). `now` is given, never read; a clock that steps back refills nothing.
 */
export class RateBudget {
  readonly kind = 'rate' as const;
  private readonly perMs: number;
  private readonly burst: number;
  private tokens: number;
  /** When the tokens were last refilled (ms); NaN until the first use. */
  private lastMs = Number.NaN;

  /** Throws ConfigError on an invalid option. */
  constructor(opts: RateBudgetOptions) {
    const issues: ConfigIssue[] = [];
    rateBudgetIssues(opts as unknown as Record<string, unknown>, 'budget', issues);
    if (issues.length > 0) throw new ConfigError(issues);
    this.perMs = opts.perSecond / 1000;
    this.burst = opts.burst ?? defaultRateBurst(opts.perSecond);
    this.tokens = this.burst;
  }

  private refill(nowMs: number): void {
    const last = this.lastMs;
    if (Number.isNaN(last)) {
      this.lastMs = Number.isFinite(nowMs) ? nowMs : 0;
      return;
    }
    // A NaN, earlier or infinite now refills nothing (an infinite one would fill the bucket for ever after).
    if (!(nowMs > last) || nowMs === Number.POSITIVE_INFINITY) return;
    // @ko rate-budget-refill
    this.tokens = Math.min(this.burst, this.tokens + (nowMs - last) * this.perMs);
    this.lastMs = nowMs;
  }

  callStarted(nowMs: number): void {
    this.refill(nowMs);
  }

  /** Takes one whole token if the bucket holds one. */
  acquireRetry(nowMs: number): boolean {
    this.refill(nowMs);
    // @ko rate-budget-cap
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  recordSuccess(): void {}
  recordFailure(): void {}
  callEnded(): void {}
  retryEnded(): void {}

  /** Whole retries available now (as of the last call). */
  level(): number {
    return Math.floor(this.tokens);
  }
}
