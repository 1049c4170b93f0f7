// The ratio retry budget (Finagle's RetryBudget, Linkerd's retryBudget): retries at most `ratio` of requests over a window.

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

export interface RatioBudgetOptions {
  /** Retries allowed per request, over the window (default 0.2: Finagle's percentCanRetry, Linkerd's retryRatio). */
  ratio?: number;
  /** Retries always allowed per second of the window, whatever the traffic (default 10). 0 = none. */
  minRetriesPerSec?: number;
  /** How long a request's deposit (and a retry's withdrawal) counts (default 10 s; 1 s to 60 s). */
  ttl?: Duration;
}

export const DEFAULT_RETRY_RATIO = 0.2;
export const DEFAULT_MIN_RETRIES_PER_SEC = 10;
export const DEFAULT_RATIO_TTL_MS = 10_000;
/** The window is kept as one counter per second, so its memory is bounded by the longest ttl. */
const SLOT_MS = 1000;
const MAX_TTL_MS = 60_000;
/** What one call deposits, in units of the window (Finagle's TokenRetryBudget.ScaleFactor). */
const DEPOSIT = 1000;
/** The smallest ratio above 0: a retry then costs 10^9 units, so the window's sums stay well inside exact doubles. */
export const MIN_RETRY_RATIO = 1e-6;

/** Checks a ratio budget's keys (the `kind` and unknown keys are checked by the caller). */
export function ratioBudgetIssues(o: Record<string, unknown>, path: string, issues: ConfigIssue[]): number | undefined {
  const ratio = o.ratio;
  // @eq ratio-budget-ratio-ratio-number
  if (ratio !== undefined && (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1000))) {
    // @eq ratio-budget-issues-push-path-joinpath
    issues.push({ path: joinPath(path, 'ratio'), message: 'must be a number in [0, 1000]' });
  } else if (typeof ratio === 'number' && ratio > 0 && ratio < MIN_RETRY_RATIO) {
    issues.push({
      path: joinPath(path, 'ratio'),
      message: 'must be 0 or at least 0.000001 (a retry per million calls)',
    });
  }
  const min = o.minRetriesPerSec;
  // @eq ratio-budget-min-min-number
  if (min !== undefined && (typeof min !== 'number' || !(min >= 0 && min <= 1e6))) {
    // @eq ratio-budget-issues-push-path-joinpath-2
    issues.push({ path: joinPath(path, 'minRetriesPerSec'), message: 'must be a number in [0, 1000000]' });
  }
  if (o.ttl === undefined) return DEFAULT_RATIO_TTL_MS;
  const ttlMs = collectDuration(o.ttl, joinPath(path, 'ttl'), issues);
  if (ttlMs === undefined) return undefined;
  if (ttlMs < SLOT_MS || ttlMs > MAX_TTL_MS || ttlMs % SLOT_MS !== 0) {
    // @eq ratio-budget-issues-push-path-joinpath-3
    issues.push({ path: joinPath(path, 'ttl'), message: 'must be whole seconds from 1s to 60s' });
    return undefined;
  }
  return ttlMs;
}

/**
 * Each call deposits `ratio` of a retry; each retry withdraws one. A retry is allowed while deposits − withdrawals over
 * the last `ttl`, plus a reserve of minRetriesPerSec · ttl, leave one whole retry. So under a sustained total failure
 * a caller sends (1 + ratio) attempts per call (plus the reserve), and d such hops send (1 + ratio)^d to the leaf.
 * Quantised as Finagle's RetryBudget (finagle-core RetryBudget.scala, TokenRetryBudget): a call deposits 1000 units, a
 * retry withdraws trunc(1000 / ratio), so any ratio > 0 buys retries (0.0004: 4 in 10,000 calls) and a ratio whose
 * inverse is not whole buys slightly more than its share (0.3: 3,000.3 per 10,000, as Finagle). Integer units, one
 * counter per second of the window; `now` is given, never read.
 */
export class RatioBudget {
  readonly kind = 'ratio' as const;
  /** Units one call deposits (0 for ratio 0: then only the reserve pays for retries) and one retry withdraws. */
  private readonly deposit: number;
  private readonly withdrawal: number;
  private readonly reserve: number;
  /** Net units per second of the window (a ring), and their sum. */
  private readonly slots: Float64Array;
  private sum = 0;
  private current = 0;
  /** Start of the current slot (ms); NaN until the first use. */
  private slotStartMs = Number.NaN;

  /** Throws ConfigError on an invalid option. */
  constructor(opts: RatioBudgetOptions = {}) {
    const issues: ConfigIssue[] = [];
    const ttlMs = ratioBudgetIssues(opts as Record<string, unknown>, 'budget', issues);
    // @eq ratio-budget-issues-length-ttlms-throw
    if (issues.length > 0 || ttlMs === undefined) throw new ConfigError(issues);
    const ratio = opts.ratio ?? DEFAULT_RETRY_RATIO;
    const minPerSec = opts.minRetriesPerSec ?? DEFAULT_MIN_RETRIES_PER_SEC;
    // @ko ratio-budget-finagle-quantum
    this.deposit = ratio > 0 ? DEPOSIT : 0;
    this.withdrawal = ratio > 0 ? Math.trunc(DEPOSIT / ratio) : DEPOSIT;
    this.slots = new Float64Array(ttlMs / SLOT_MS);
    this.reserve = Math.round(minPerSec * (ttlMs / SLOT_MS) * this.withdrawal);
  }

  /** Moves the window to `nowMs`, forgetting the seconds that left it. A clock that steps back changes nothing. */
  private advance(nowMs: number): void {
    if (Number.isNaN(this.slotStartMs)) {
      this.slotStartMs = Number.isFinite(nowMs) ? nowMs : 0;
      return;
    }
    // A NaN or infinite now moves nothing: an infinite one would pin the window there, and no deposit expire again.
    // @ko ratio-budget-window
    if (!(nowMs - this.slotStartMs >= SLOT_MS) || nowMs === Number.POSITIVE_INFINITY) return;
    const slots = this.slots;
    const steps = Math.floor((nowMs - this.slotStartMs) / SLOT_MS);
    // @eq ratio-budget-steps-slots-length
    if (steps >= slots.length) {
      slots.fill(0);
      this.sum = 0;
      this.current = 0;
    } else {
      for (let i = 0; i < steps; i++) {
        this.current = this.current + 1 === slots.length ? 0 : this.current + 1;
        this.sum -= slots[this.current] as number;
        slots[this.current] = 0;
      }
    }
    this.slotStartMs += steps * SLOT_MS;
  }

  /** One call: deposits `ratio` of a retry. */
  callStarted(nowMs: number): void {
    this.advance(nowMs);
    this.slots[this.current] = (this.slots[this.current] as number) + this.deposit;
    this.sum += this.deposit;
  }

  /** Takes one retry if the window (with the reserve) holds one. */
  acquireRetry(nowMs: number): boolean {
    this.advance(nowMs);
    if (this.sum + this.reserve < this.withdrawal) return false;
    // @ko ratio-budget-withdrawal
    this.slots[this.current] = (this.slots[this.current] as number) - this.withdrawal;
    this.sum -= this.withdrawal;
    return true;
  }

  recordSuccess(): void {}
  recordFailure(): void {}
  callEnded(): void {}
  retryEnded(): void {}

  /** Whole retries available now (as of the last call). */
  level(): number {
    return Math.max(Math.floor((this.sum + this.reserve) / this.withdrawal), 0);
  }
}
