// The retry circuit breaker (Brooker, 2022): no retries while the caller's own recent failure rate is above a threshold.

import { type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';
import type { RetryBudget } from './budget.js';

export interface RetryBreakerConfig {
  /** Retries stop while failed / all attempt outcomes over the window is above this (0 to 1, both excluded). */
  failureRate: number;
  /** How far back outcomes count (default 10 s; 100 ms to 1 h), kept as 10 time buckets. */
  window?: Duration;
  /** Outcomes the window must hold before the rate can stop a retry (default 1: the rate as it is). */
  minSamples?: number;
}

export interface ResolvedRetryBreaker {
  readonly failureRate: number;
  readonly windowMs: number;
  readonly minSamples: number;
}

export const DEFAULT_RETRY_BREAKER_WINDOW_MS = 10_000;
export const DEFAULT_RETRY_BREAKER_MIN_SAMPLES = 1;
/** The window is this many buckets: memory and the work of one decision are fixed, whatever the traffic. */
export const RETRY_BREAKER_BUCKETS = 10;
const MIN_WINDOW_MS = 100;
const MAX_WINDOW_MS = 3_600_000;
const MAX_MIN_SAMPLES = 1_000_000;
const KEYS = ['failureRate', 'window', 'minSamples'];

/** Checks a `retryBreaker` block; pushes one issue per problem. `false`/`null`/`undefined`: none (null). */
export function validateRetryBreaker(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedRetryBreaker | null | undefined {
  if (input === false || input === null || input === undefined) return null;
  if (typeof input !== 'object' || Array.isArray(input)) {
    issues.push({ path, message: 'must be an object { failureRate, window, minSamples }, or false' });
    return undefined;
  }
  const o = input as Record<string, unknown>;
  const before = issues.length;
  for (const key of Object.keys(o)) if (!KEYS.includes(key)) issues.push(unknownKey(joinPath(path, key), key, KEYS));
  const rate = o.failureRate;
  // 0 would refuse every retry after any failure, 1 none ever: both mean something else (maxAttempts 1, no breaker).
  // @ko retry-breaker-rate-checked
  if (typeof rate !== 'number' || !(rate > 0 && rate < 1)) {
    issues.push({ path: joinPath(path, 'failureRate'), message: 'must be a number between 0 and 1 (both excluded)' });
  }
  let windowMs: number | undefined = DEFAULT_RETRY_BREAKER_WINDOW_MS;
  if (o.window !== undefined) {
    windowMs = collectDuration(o.window, joinPath(path, 'window'), issues);
    if (windowMs !== undefined && !(windowMs >= MIN_WINDOW_MS && windowMs <= MAX_WINDOW_MS)) {
      issues.push({ path: joinPath(path, 'window'), message: 'must be from 100ms to 1h' });
    }
  }
  const min = o.minSamples;
  if (min !== undefined && !(Number.isSafeInteger(min) && (min as number) >= 1 && (min as number) <= MAX_MIN_SAMPLES)) {
    issues.push({ path: joinPath(path, 'minSamples'), message: 'must be an integer from 1 to 1000000' });
  }
  if (issues.length > before) return undefined;
  return {
    failureRate: rate as number,
    windowMs: windowMs as number,
    minSamples: (min as number | undefined) ?? DEFAULT_RETRY_BREAKER_MIN_SAMPLES,
  };
}

/**
 * Outcomes of the last `window`, in RETRY_BREAKER_BUCKETS buckets of window / 10 each (the current bucket and the nine
 * before it). Every attempt's outcome counts, first attempts and retries alike, as the budget sees them. `now` is
 * given, never read; an outcome whose clock steps back counts into the latest bucket.
 */
export class RetryBreaker {
  private readonly bucketMs: number;
  private readonly failures = new Float64Array(RETRY_BREAKER_BUCKETS);
  private readonly totals = new Float64Array(RETRY_BREAKER_BUCKETS);
  /** The bucket number (floor(now / bucketMs)) each slot holds; -Infinity while empty. */
  private readonly epochs = new Float64Array(RETRY_BREAKER_BUCKETS).fill(Number.NEGATIVE_INFINITY);
  private latest = Number.NEGATIVE_INFINITY;

  constructor(readonly config: ResolvedRetryBreaker) {
    this.bucketMs = config.windowMs / RETRY_BREAKER_BUCKETS;
  }

  /** The bucket number of `nowMs`, never earlier than the latest recorded (a step back counts as then). */
  private epochOf(nowMs: number): number {
    const epoch = Math.floor(nowMs / this.bucketMs);
    if (epoch > this.latest && Number.isFinite(epoch)) return epoch;
    return this.latest === Number.NEGATIVE_INFINITY ? 0 : this.latest;
  }

  /** Counts one outcome at `nowMs`. */
  record(failed: boolean, nowMs: number): void {
    const epoch = this.epochOf(nowMs);
    this.latest = epoch;
    const slot = ((epoch % RETRY_BREAKER_BUCKETS) + RETRY_BREAKER_BUCKETS) % RETRY_BREAKER_BUCKETS;
    if (this.epochs[slot] !== epoch) {
      this.epochs[slot] = epoch;
      this.failures[slot] = 0;
      this.totals[slot] = 0;
    }
    this.totals[slot] = (this.totals[slot] as number) + 1;
    if (failed) this.failures[slot] = (this.failures[slot] as number) + 1;
  }

  /** Failed and all outcomes in the window ending at `nowMs` (a read: it moves no clock). */
  counts(nowMs: number): { failures: number; total: number } {
    const epoch = this.epochOf(nowMs);
    let failures = 0;
    let total = 0;
    for (let i = 0; i < RETRY_BREAKER_BUCKETS; i++) {
      // @ko retry-breaker-window
      if ((this.epochs[i] as number) > epoch - RETRY_BREAKER_BUCKETS) {
        failures += this.failures[i] as number;
        total += this.totals[i] as number;
      }
    }
    return { failures, total };
  }

  /** Open (retries refused): the window holds minSamples outcomes and more than failureRate of them failed. */
  isOpen(nowMs: number): boolean {
    const { failures, total } = this.counts(nowMs);
    // @ko retry-breaker-threshold
    return total >= this.config.minSamples && failures > this.config.failureRate * total;
  }
}

/**
 * A budget behind a retry breaker: outcomes go to both, a retry asks the breaker first (so a refused retry takes
 * nothing from the budget). Only retries are asked about: a first attempt never passes through acquireRetry.
 */
export class RetryBreakerGate implements RetryBudget {
  readonly breaker: RetryBreaker;

  /** `config` as validateRetryBreaker resolved it. */
  constructor(
    readonly inner: RetryBudget,
    config: ResolvedRetryBreaker,
  ) {
    this.breaker = new RetryBreaker(config);
  }

  get kind(): RetryBudget['kind'] {
    return this.inner.kind;
  }

  recordSuccess(nowMs = Number.NaN): void {
    this.breaker.record(false, nowMs);
    this.inner.recordSuccess(nowMs);
  }

  recordFailure(nowMs = Number.NaN): void {
    // @ko retry-breaker-counts-failures
    this.breaker.record(true, nowMs);
    this.inner.recordFailure(nowMs);
  }

  callStarted(nowMs: number): void {
    this.inner.callStarted(nowMs);
  }

  callEnded(): void {
    this.inner.callEnded();
  }

  acquireRetry(nowMs: number): boolean {
    // @ko retry-breaker-gate
    if (this.breaker.isOpen(nowMs)) return false;
    return this.inner.acquireRetry(nowMs);
  }

  retryEnded(): void {
    this.inner.retryEnded();
  }

  level(): number {
    return this.inner.level();
  }
}
