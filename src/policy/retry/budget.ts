// Retry budgets (gRPC A6 token bucket, Envoy percent, ratio, rate, Brooker's deposit bucket, none); config validation.

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';
import {
  DepositBucket,
  type DepositBucketOptions,
  depositBucketIssues,
  resolveDepositBucket,
} from './deposit-bucket.js';
import { defaultRateBurst, RateBudget, type RateBudgetOptions, rateBudgetIssues } from './rate-budget.js';
import {
  DEFAULT_MIN_RETRIES_PER_SEC,
  DEFAULT_RETRY_RATIO,
  RatioBudget,
  type RatioBudgetOptions,
  ratioBudgetIssues,
} from './ratio-budget.js';

export {
  DepositBucket,
  type DepositBucketOptions,
  RateBudget,
  type RateBudgetOptions,
  RatioBudget,
  type RatioBudgetOptions,
};

/** What RetryPolicy talks to. Every method is O(1) and allocation-free. */
export interface RetryBudget {
  readonly kind: BudgetConfig['kind'];
  /** Token bucket: +tokenRatio. Percent: no-op. `nowMs`: when the outcome came (the retry breaker's window; omitted,
   * the latest time it saw). */
  recordSuccess(nowMs?: number): void;
  /** Token bucket: −1 token (record first, then test the threshold, as C-core does). Percent: no-op. */
  recordFailure(nowMs?: number): void;
  /** Percent budget: one more active request. Ratio: a deposit. Token bucket: no-op. */
  callStarted(nowMs: number): void;
  /** Percent budget: one fewer active request (never below 0). Token bucket: no-op. */
  callEnded(): void;
  /** May a retry go now? The percent budget takes a retry slot, the ratio budget a withdrawal, when it answers true. */
  acquireRetry(nowMs: number): boolean;
  /** Percent budget: releases the slot taken by acquireRetry. Token bucket: no-op. */
  retryEnded(): void;
  /** Tokens (bucket), free retry slots (percent) or Infinity (none), for telemetry. */
  level(): number;
}

export interface TokenBucketOptions {
  maxTokens: number;
  tokenRatio: number;
}

export interface PercentBudgetOptions {
  percent?: number;
  minConcurrency?: number;
}

export type BudgetConfig =
  | { kind: 'token-bucket'; maxTokens: number; tokenRatio: number }
  | { kind: 'percent'; percent?: number; minConcurrency?: number }
  | ({ kind: 'ratio' } & RatioBudgetOptions)
  | ({ kind: 'rate' } & RateBudgetOptions)
  | ({ kind: 'deposit-bucket' } & DepositBucketOptions)
  | { kind: 'none' };

/** The kinds, as messages list them. */
const KINDS_TEXT = 'token-bucket, percent, ratio, rate, deposit-bucket, none';

const MILLI = 1000;
/** gRPC A6: maxTokens must be in (0, 1000]. */
export const MAX_BUCKET_TOKENS = 1000;
/** Envoy retry budget defaults (envoy/config/cluster/v3/circuit_breaker.proto). */
export const DEFAULT_BUDGET_PERCENT = 20;
export const DEFAULT_MIN_RETRY_CONCURRENCY = 3;

/**
 * A token amount in whole milli-tokens, truncated as gRPC reads it: C-core keeps the first 3 decimals of the JSON
 * number and drops the rest (retry_service_config.cc), grpc-java casts `tokenRatio · 1000` to int
 * (RetriableStream.Throttle). So 0.5466 is 546, never rounded up to 547. The truncation is of the decimal written,
 * not of its binary double: 1.005 · 1000 is 1004.999… in doubles, yet 1.005 keeps 1005.
 */
function grpcMilli(value: number): number {
  // The double product can land just below or above a whole milli the decimal has: compare against that decimal.
  // @ko grpc-token-ratio-truncated
  let milli = Math.floor(value * MILLI);
  if ((milli + 1) / MILLI <= value) milli++;
  else if (milli / MILLI > value) milli--;
  return milli;
}

function tokenBucketIssues(opts: unknown, path: string, issues: ConfigIssue[]): void {
  const o = (typeof opts === 'object' && opts !== null ? opts : {}) as Record<string, unknown>;
  const max = o.maxTokens;
  if (typeof max !== 'number' || !(max > 0 && max <= MAX_BUCKET_TOKENS)) {
    issues.push({ path: joinPath(path, 'maxTokens'), message: 'must be a number in (0, 1000]' });
  } else if (grpcMilli(max) < 1) {
    issues.push({ path: joinPath(path, 'maxTokens'), message: 'must be at least 0.001 (gRPC keeps 3 decimals)' });
  }
  const ratio = o.tokenRatio;
  if (typeof ratio !== 'number' || !(ratio > 0) || ratio === Number.POSITIVE_INFINITY) {
    issues.push({ path: joinPath(path, 'tokenRatio'), message: 'must be a finite number > 0' });
  } else if (grpcMilli(ratio) < 1) {
    issues.push({ path: joinPath(path, 'tokenRatio'), message: 'must be at least 0.001 (gRPC keeps 3 decimals)' });
  }
}

function percentBudgetIssues(o: Record<string, unknown>, path: string, issues: ConfigIssue[]): void {
  const percent = o.percent;
  if (percent !== undefined && (typeof percent !== 'number' || !(percent >= 0 && percent <= 100))) {
    issues.push({ path: joinPath(path, 'percent'), message: 'must be a number in [0, 100]' });
  }
  const min = o.minConcurrency;
  if (min !== undefined && !(Number.isSafeInteger(min) && (min as number) >= 0)) {
    issues.push({ path: joinPath(path, 'minConcurrency'), message: 'must be an integer >= 0' });
  }
}

function throwIfAny(issues: ConfigIssue[]): void {
  if (issues.length > 0) throw new ConfigError(issues);
}

/**
 * gRPC A6 retry throttling. Tokens start full; a failure costs 1, a success earns `tokenRatio`;
 * retries are allowed only while tokens > maxTokens / 2. Kept as integer milli-tokens, like C-core,
 * so ten successes of 0.1 earn back exactly one token.
 */
export class TokenBucket implements RetryBudget {
  readonly kind = 'token-bucket' as const;
  private milliTokens: number;
  private maxMilli: number;
  private ratioMilli: number;

  /** Throws ConfigError unless maxTokens ∈ (0, 1000] and tokenRatio > 0 (both truncated to 3 decimals, as gRPC). */
  constructor(opts: TokenBucketOptions) {
    const issues: ConfigIssue[] = [];
    tokenBucketIssues(opts, 'budget', issues);
    throwIfAny(issues);
    this.maxMilli = grpcMilli(opts.maxTokens);
    this.ratioMilli = grpcMilli(opts.tokenRatio);
    this.milliTokens = this.maxMilli;
  }

  get tokens(): number {
    return this.milliTokens / MILLI;
  }

  get maxTokens(): number {
    return this.maxMilli / MILLI;
  }

  get tokenRatio(): number {
    return this.ratioMilli / MILLI;
  }

  onSuccess(): void {
    const next = this.milliTokens + this.ratioMilli;
    this.milliTokens = Math.min(next, this.maxMilli);
  }

  onFailure(): void {
    const next = this.milliTokens - MILLI;
    this.milliTokens = Math.max(next, 0);
  }

  /** gRPC A6: equal to half is denied. Integer compare: 2·tokens > max is exact. */
  allowRetry(): boolean {
    // @ko token-bucket-threshold
    return this.milliTokens * 2 > this.maxMilli;
  }

  /** New limits; C-core rescales the tokens so a throttled client stays throttled: tokens·newMax/oldMax. */
  reconfigure(opts: TokenBucketOptions): void {
    const issues: ConfigIssue[] = [];
    tokenBucketIssues(opts, 'budget', issues);
    throwIfAny(issues);
    const newMax = grpcMilli(opts.maxTokens);
    // tokens ≤ oldMax, so the floor is already within [0, newMax]; integers below 2^53, so exact.
    this.milliTokens = Math.floor((this.milliTokens * newMax) / this.maxMilli);
    this.maxMilli = newMax;
    this.ratioMilli = grpcMilli(opts.tokenRatio);
  }

  recordSuccess(): void {
    this.onSuccess();
  }

  recordFailure(): void {
    this.onFailure();
  }

  callStarted(): void {}

  callEnded(): void {}

  // @ko sim-token-bucket
  acquireRetry(): boolean {
    return this.allowRetry();
  }

  retryEnded(): void {}

  level(): number {
    return this.milliTokens / MILLI;
  }
}

/**
 * Envoy retry budget: at most max(trunc(percent/100 · active), minConcurrency) retries in flight at once.
 * `active` counts requests between callStarted and callEnded (Envoy counts active + pending requests).
 */
export class PercentBudget implements RetryBudget {
  readonly kind = 'percent' as const;
  private readonly percent: number;
  private readonly minConcurrency: number;
  private active = 0;
  private retries = 0;

  /** Throws ConfigError unless percent ∈ [0, 100] and minConcurrency is an integer ≥ 0. */
  constructor(opts: PercentBudgetOptions = {}) {
    const issues: ConfigIssue[] = [];
    percentBudgetIssues(opts as Record<string, unknown>, 'budget', issues);
    throwIfAny(issues);
    this.percent = opts.percent ?? DEFAULT_BUDGET_PERCENT;
    this.minConcurrency = opts.minConcurrency ?? DEFAULT_MIN_RETRY_CONCURRENCY;
  }

  get activeRequests(): number {
    return this.active;
  }

  get activeRetries(): number {
    return this.retries;
  }

  /**
   * Envoy's arithmetic exactly (resource_manager_impl.h, RetryBudgetImpl::max): the double percent / 100 · active,
   * truncated. So 29 % of 100 active is 28 (0.29 · 100 is 28.999… in binary), as Envoy allows; most percents (the
   * default 20 among them) give the exact share.
   */
  allowedRetries(activeRequests: number = this.active): number {
    // @ko percent-budget-envoy-arithmetic
    const byPercent = Math.trunc((this.percent / 100) * activeRequests);
    // @eq budget-bypercent-minconcurrency-bypercent
    if (byPercent > this.minConcurrency) return byPercent;
    return this.minConcurrency; // also for a NaN count
  }

  /** Takes a retry slot if one is free. */
  acquire(): boolean {
    // @ko percent-budget
    if (this.retries >= this.allowedRetries()) return false;
    this.retries++;
    return true;
  }

  /** Releases a retry slot; never goes below 0. */
  release(): void {
    if (this.retries > 0) this.retries--;
  }

  recordSuccess(): void {}

  recordFailure(): void {}

  callStarted(): void {
    this.active++;
  }

  callEnded(): void {
    if (this.active > 0) this.active--;
  }

  acquireRetry(): boolean {
    return this.acquire();
  }

  retryEnded(): void {
    this.release();
  }

  level(): number {
    return Math.max(this.allowedRetries() - this.retries, 0);
  }
}

/** No budget: every retry is allowed. */
export class NoBudget implements RetryBudget {
  readonly kind = 'none' as const;
  recordSuccess(): void {}
  recordFailure(): void {}
  callStarted(): void {}
  callEnded(): void {}
  acquireRetry(): boolean {
    return true;
  }
  retryEnded(): void {}
  level(): number {
    return Number.POSITIVE_INFINITY;
  }
}

const KEYS: Readonly<Record<string, readonly string[]>> = {
  'token-bucket': ['kind', 'maxTokens', 'tokenRatio'],
  percent: ['kind', 'percent', 'minConcurrency'],
  ratio: ['kind', 'ratio', 'minRetriesPerSec', 'ttl'],
  rate: ['kind', 'perSecond', 'burst'],
  'deposit-bucket': ['kind', 'deposit', 'cost', 'maxTokens', 'startFull'],
  none: ['kind'],
};

/**
 * Checks a budget config, pushing one issue per problem (paths under `path`).
 * `false`, `null` and `undefined` mean no budget. Returns undefined when there were issues.
 */
export function validateBudgetConfig(input: unknown, path: string, issues: ConfigIssue[]): BudgetConfig | undefined {
  if (input === false || input === null || input === undefined) return { kind: 'none' };
  if (typeof input !== 'object' || Array.isArray(input)) {
    issues.push({ path, message: `must be an object with kind ${KINDS_TEXT}, or false` });
    return undefined;
  }
  const o = input as Record<string, unknown>;
  const allowed = typeof o.kind === 'string' && Object.hasOwn(KEYS, o.kind) ? KEYS[o.kind] : undefined;
  if (allowed === undefined) {
    issues.push({ path: joinPath(path, 'kind'), message: `must be one of ${KINDS_TEXT}` });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) issues.push({ path: joinPath(path, key), message: `is not a ${o.kind} budget option` });
  }
  if (o.kind === 'token-bucket') tokenBucketIssues(o, path, issues);
  else if (o.kind === 'percent') percentBudgetIssues(o, path, issues);
  else if (o.kind === 'rate') rateBudgetIssues(o, path, issues);
  else if (o.kind === 'deposit-bucket') depositBucketIssues(o, path, issues);
  // @eq budget-ttlms-kind-ratio-ratiobudgetissues
  const ttlMs = o.kind === 'ratio' ? ratioBudgetIssues(o, path, issues) : undefined;
  if (issues.length > before) return undefined;
  if (o.kind === 'ratio') {
    return {
      kind: 'ratio',
      ratio: (o.ratio as number | undefined) ?? DEFAULT_RETRY_RATIO,
      minRetriesPerSec: (o.minRetriesPerSec as number | undefined) ?? DEFAULT_MIN_RETRIES_PER_SEC,
      ttl: ttlMs as number,
    };
  }
  if (o.kind === 'token-bucket') {
    return { kind: 'token-bucket', maxTokens: o.maxTokens as number, tokenRatio: o.tokenRatio as number };
  }
  if (o.kind === 'rate') {
    const perSecond = o.perSecond as number;
    return { kind: 'rate', perSecond, burst: (o.burst as number | undefined) ?? defaultRateBurst(perSecond) };
  }
  if (o.kind === 'deposit-bucket')
    return { kind: 'deposit-bucket', ...resolveDepositBucket(o as DepositBucketOptions) };
  if (o.kind === 'percent') {
    return {
      kind: 'percent',
      percent: (o.percent as number | undefined) ?? DEFAULT_BUDGET_PERCENT,
      minConcurrency: (o.minConcurrency as number | undefined) ?? DEFAULT_MIN_RETRY_CONCURRENCY,
    };
  }
  return { kind: 'none' };
}

/** A fresh budget for `config` (false/null/undefined: NoBudget). Throws ConfigError on an invalid config. */
export function createBudget(config: BudgetConfig | false | null | undefined): RetryBudget {
  if (!config) return new NoBudget();
  switch (config.kind) {
    case 'token-bucket':
      return new TokenBucket(config);
    case 'percent':
      return new PercentBudget(config);
    case 'ratio':
      return new RatioBudget(config);
    case 'rate':
      return new RateBudget(config);
    case 'deposit-bucket':
      return new DepositBucket(config);
    case 'none':
      return new NoBudget();
    default:
      throw new ConfigError([{ path: 'budget.kind', message: `must be one of ${KINDS_TEXT}` }]);
  }
}
