// Brooker's retry token bucket ("Fixing retries with token buckets and circuit breakers", 2022): calls deposit, retries pay.

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';

export interface DepositBucketOptions {
  /** Tokens every call deposits (default 0.1). */
  deposit?: number;
  /** Tokens every retry costs (default 1). */
  cost?: number;
  /** The bucket's size (default 10): at most maxTokens / cost retries in a row after a calm spell. */
  maxTokens?: number;
  /** Start with maxTokens (default true) or empty (a new caller then earns its first retry with cost / deposit calls). */
  startFull?: boolean;
}

export const DEFAULT_DEPOSIT = 0.1;
export const DEFAULT_DEPOSIT_COST = 1;
export const DEFAULT_DEPOSIT_MAX_TOKENS = 10;
export const DEFAULT_DEPOSIT_START_FULL = true;
/** Tokens are kept in whole millionths, so 10 deposits of 0.1 pay exactly one retry of 1. */
const UNITS = 1e6;
/** The largest deposit, cost and size: 10^12 units, far inside exact doubles. */
const MAX_TOKENS = 1e6;
const MIN_AMOUNT = 1 / UNITS;

function amountIssue(value: unknown, path: string, key: string, issues: ConfigIssue[]): void {
  if (value === undefined) return;
  // @ko deposit-bucket-amount-checked
  if (typeof value !== 'number' || !(value >= MIN_AMOUNT && value <= MAX_TOKENS)) {
    issues.push({ path: joinPath(path, key), message: 'must be a number of tokens in [0.000001, 1000000]' });
  }
}

/** Checks a deposit bucket's keys (the `kind` and unknown keys are checked by the caller). */
export function depositBucketIssues(o: Record<string, unknown>, path: string, issues: ConfigIssue[]): void {
  const before = issues.length;
  amountIssue(o.deposit, path, 'deposit', issues);
  amountIssue(o.cost, path, 'cost', issues);
  amountIssue(o.maxTokens, path, 'maxTokens', issues);
  if (o.startFull !== undefined && typeof o.startFull !== 'boolean') {
    issues.push({ path: joinPath(path, 'startFull'), message: 'must be true or false' });
  }
  if (issues.length > before) return;
  const cost = (o.cost as number | undefined) ?? DEFAULT_DEPOSIT_COST;
  const max = (o.maxTokens as number | undefined) ?? DEFAULT_DEPOSIT_MAX_TOKENS;
  if (max < cost) {
    issues.push({
      path: joinPath(path, 'maxTokens'),
      message: `must be at least cost (${cost}): a smaller bucket never holds one retry`,
    });
  }
}

/** The options with their defaults: the one place they are applied. */
export function resolveDepositBucket(o: DepositBucketOptions): Required<DepositBucketOptions> {
  return {
    deposit: o.deposit ?? DEFAULT_DEPOSIT,
    cost: o.cost ?? DEFAULT_DEPOSIT_COST,
    maxTokens: o.maxTokens ?? DEFAULT_DEPOSIT_MAX_TOKENS,
    startFull: o.startFull ?? DEFAULT_DEPOSIT_START_FULL,
  };
}

/**
 * Every call deposits `deposit` tokens (up to maxTokens); a retry goes only when the bucket holds `cost`, and takes it.
 * At a low failure rate the deposits outrun the retries and every failed attempt is retried (N retries); above
 * deposit / cost failures per call the bucket runs dry and retries settle at deposit / cost per call (0.1 by default).
 * Brooker's post deposits on a success; this bucket deposits on every call, so its share holds at any failure rate
 * (the papers' figure "0.1 retries per request above 10 %"). Whole millionths of a token, so the sums are exact.
 */
export class DepositBucket {
  readonly kind = 'deposit-bucket' as const;
  private readonly depositUnits: number;
  private readonly costUnits: number;
  private readonly maxUnits: number;
  private units: number;

  /** Throws ConfigError on an invalid option. */
  constructor(opts: DepositBucketOptions = {}) {
    const issues: ConfigIssue[] = [];
    depositBucketIssues(opts as Record<string, unknown>, 'budget', issues);
    if (issues.length > 0) throw new ConfigError(issues);
    const o = resolveDepositBucket(opts);
    this.depositUnits = Math.round(o.deposit * UNITS);
    this.costUnits = Math.round(o.cost * UNITS);
    this.maxUnits = Math.round(o.maxTokens * UNITS);
    this.units = o.startFull ? this.maxUnits : 0;
  }

  /** One call: its deposit, up to the bucket's size. */
  callStarted(): void {
    // @ko deposit-bucket-deposit
    this.units = Math.min(this.maxUnits, this.units + this.depositUnits);
  }

  /** Takes `cost` if the bucket holds it. */
  acquireRetry(): boolean {
    // @ko deposit-bucket-cost
    if (this.units < this.costUnits) return false;
    this.units -= this.costUnits;
    return true;
  }

  recordSuccess(): void {}
  recordFailure(): void {}
  callEnded(): void {}
  retryEnded(): void {}

  /** Tokens in the bucket, for telemetry. */
  level(): number {
    return this.units / UNITS;
  }
}
