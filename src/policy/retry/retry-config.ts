// RetryPolicy configuration: the public keys, their defaults, validation with key paths, and warnings for risky settings.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../hop/retry-after.js';
import { type BackoffConfig, type ResolvedBackoff, validateBackoffConfig } from './backoff.js';
import { type BudgetConfig, validateBudgetConfig } from './budget.js';
import { compileRetryOn, DEFAULT_RETRY_ON, type RetryCondition, type RetryOnSet } from './classify.js';
import { type ResolvedRetryBreaker, type RetryBreakerConfig, validateRetryBreaker } from './retry-breaker.js';
import { callDeadlineMs } from './retry-facts.js';

/** RetryPolicy's config. The same keys are used in TypeScript and in scenario YAML. */
export interface RetryPolicyConfig {
  /** Attempts including the first (default 3). 1 turns retries off: the operator's kill switch. */
  maxAttempts?: number;
  /** Time allowed for one attempt; the effective value is min(perTryTimeout, time left before the deadline). */
  perTryTimeout?: Duration;
  /** Wait between attempts (default full jitter, 50 ms base, 500 ms cap). */
  backoff?: BackoffConfig;
  /** Retry budget shared by every call through this policy, per upstream (default token bucket 10 / 0.1). `false` = none. */
  budget?: BudgetConfig | false;
  /**
   * No retries while this caller's own failure rate over a window is above a threshold (Brooker's retry circuit
   * breaker); first attempts always go. Per upstream, beside the budget. Default none; `false` = none.
   */
  retryBreaker?: RetryBreakerConfig | false;
  /** Outcomes that may be retried (default connect-failure, reset, timeout, 429, 502, 503, 504). */
  retryOn?: RetryCondition[];
  /** Treat `Retry-After` / `grpc-retry-pushback-ms` as a floor on the wait (default true). */
  honorRetryAfter?: boolean;
  /** A server asking for a longer wait than this is not retried (default 300 s, Envoy's max_interval). */
  maxRetryAfter?: Duration;
  /**
   * The call's overall deadline: start + patience − margin (an inherited or per-call deadline can only shorten it).
   * Default 15 s (Envoy's route timeout), so a dead upstream cannot leave a call pending forever; `false` = none.
   */
  deadline?: { patience?: Duration; margin?: Duration } | false;
  /** Send the deadline downstream on every attempt (default true). */
  propagateDeadline?: boolean;
  /** Retry non-idempotent requests without an idempotency key on 500/timeout (default false: unsafe). */
  retryNonIdempotent?: boolean;
  /**
   * Which layer retries (docs/hops.md). false (default): the outermost Seawall hop retries, calls made inside a request
   * from another Seawall hop make one attempt. true: error ownership: this call retries only errors its callee claims
   * (or that carry no claim), even inside a Seawall hop, and never an error relayed unclaimed from further down.
   */
  ownership?: boolean;
}

/** Validated config with every duration in ms. */
export interface ResolvedRetryConfig {
  readonly maxAttempts: number;
  /** Infinity when unset. */
  readonly perTryTimeoutMs: number;
  readonly backoff: ResolvedBackoff;
  readonly budget: BudgetConfig | null;
  readonly retryBreaker: ResolvedRetryBreaker | null;
  readonly retryOn: RetryOnSet;
  readonly honorRetryAfter: boolean;
  readonly maxRetryAfterMs: number;
  /** null with `deadline: false`. */
  readonly patienceMs: number | null;
  readonly marginMs: number;
  readonly propagateDeadline: boolean;
  readonly retryNonIdempotent: boolean;
  readonly ownership: boolean;
}

/** Highest accepted maxAttempts: a bound on the work one call may cause. */
export const MAX_ATTEMPTS_LIMIT = 100;
/** gRPC caps maxAttempts at 5; above that Seawall warns. */
export const MAX_ATTEMPTS_WARNING = 5;
/** The overall deadline of a call when the config gives none (Envoy's default route timeout). */
export const DEFAULT_PATIENCE_MS = 15_000;

const DEFAULT_BUDGET: BudgetConfig = { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 };
const DEFAULT_BACKOFF: BackoffConfig = { kind: 'full-jitter', base: 50, cap: 500 };
const KNOWN_KEYS = new Set([
  'maxAttempts',
  'perTryTimeout',
  'backoff',
  'budget',
  'retryBreaker',
  'retryOn',
  'honorRetryAfter',
  'maxRetryAfter',
  'deadline',
  'propagateDeadline',
  'retryNonIdempotent',
  'ownership',
]);

export interface RetryConfigValidation {
  /** Present when there are no issues. */
  config?: ResolvedRetryConfig;
  /** Impossible settings: the config cannot be used. */
  issues: ConfigIssue[];
  /** Dangerous settings: the config works, but probably not as intended. */
  warnings: ConfigIssue[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readBoolean(
  input: Record<string, unknown>,
  key: string,
  fallback: boolean,
  path: string,
  issues: ConfigIssue[],
) {
  const value = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  issues.push({ path: joinPath(path, key), message: 'must be true or false' });
  return fallback;
}

function readMaxAttempts(value: unknown, path: string, issues: ConfigIssue[]): number {
  if (value === undefined) return 3;
  // Number.isInteger is false for anything that is not a number, so no typeof check is needed.
  if (!Number.isInteger(value) || (value as number) < 1) {
    issues.push({ path, message: 'must be an integer ≥ 1' });
    return 1;
  }
  if ((value as number) > MAX_ATTEMPTS_LIMIT) {
    issues.push({ path, message: `must be at most ${MAX_ATTEMPTS_LIMIT}` });
    return 1;
  }
  return value as number;
}

function readDeadline(
  value: unknown,
  path: string,
  issues: ConfigIssue[],
): { patienceMs: number | null; marginMs: number } {
  if (value === undefined) return { patienceMs: DEFAULT_PATIENCE_MS, marginMs: 0 };
  // @eq retry-config-patiencems-marginms
  if (value === false) return { patienceMs: null, marginMs: 0 };
  if (!isRecord(value)) {
    issues.push({ path, message: 'must be an object with patience and margin, or false (no deadline)' });
    // @eq retry-config-patiencems-marginms
    return { patienceMs: null, marginMs: 0 };
  }
  for (const key of Object.keys(value)) {
    if (key !== 'patience' && key !== 'margin') {
      issues.push(unknownKey(joinPath(path, key), key, ['patience', 'margin']));
    }
  }
  const patienceMs =
    value.patience === undefined
      ? DEFAULT_PATIENCE_MS
      : (collectDuration(value.patience, joinPath(path, 'patience'), issues) ?? null);
  const marginMs =
    value.margin === undefined ? 0 : (collectDuration(value.margin, joinPath(path, 'margin'), issues) ?? 0);
  if (patienceMs !== null && marginMs >= patienceMs) {
    issues.push({ path: joinPath(path, 'margin'), message: 'must be shorter than patience' });
  }
  return { patienceMs, marginMs };
}

/** Validates a RetryPolicy config; `path` prefixes every issue (e.g. `variants.good.calls.a -> b`). */
export function validateRetryConfig(input: unknown, path = ''): RetryConfigValidation {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const raw = input === undefined || input === null ? {} : input;
  if (!isRecord(raw)) return { issues: [{ path, message: 'must be an object' }], warnings };
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) issues.push(unknownKey(joinPath(path, key), key, KNOWN_KEYS));
  }
  const maxAttempts = readMaxAttempts(raw.maxAttempts, joinPath(path, 'maxAttempts'), issues);
  const perTryTimeoutMs =
    raw.perTryTimeout === undefined
      ? Number.POSITIVE_INFINITY
      : (collectDuration(raw.perTryTimeout, joinPath(path, 'perTryTimeout'), issues) ?? Number.POSITIVE_INFINITY);
  if (perTryTimeoutMs === 0) issues.push({ path: joinPath(path, 'perTryTimeout'), message: 'must be greater than 0' });
  const backoff = validateBackoffConfig(raw.backoff ?? DEFAULT_BACKOFF, joinPath(path, 'backoff'), issues);
  let budget: BudgetConfig | null = DEFAULT_BUDGET;
  if (raw.budget === false || raw.budget === null) budget = null;
  else if (raw.budget !== undefined)
    budget = validateBudgetConfig(raw.budget, joinPath(path, 'budget'), issues) ?? null;
  const retryBreaker = validateRetryBreaker(raw.retryBreaker, joinPath(path, 'retryBreaker'), issues) ?? null;
  const retryOn = compileRetryOn(raw.retryOn ?? DEFAULT_RETRY_ON, joinPath(path, 'retryOn'), issues);
  const honorRetryAfter = readBoolean(raw, 'honorRetryAfter', true, path, issues);
  const maxRetryAfterMs =
    raw.maxRetryAfter === undefined
      ? DEFAULT_MAX_RETRY_AFTER_MS
      : (collectDuration(raw.maxRetryAfter, joinPath(path, 'maxRetryAfter'), issues) ?? DEFAULT_MAX_RETRY_AFTER_MS);
  const { patienceMs, marginMs } = readDeadline(raw.deadline, joinPath(path, 'deadline'), issues);
  const propagateDeadline = readBoolean(raw, 'propagateDeadline', true, path, issues);
  const retryNonIdempotent = readBoolean(raw, 'retryNonIdempotent', false, path, issues);
  const ownership = readBoolean(raw, 'ownership', false, path, issues);

  if (maxAttempts > MAX_ATTEMPTS_WARNING) {
    warnings.push({
      path: joinPath(path, 'maxAttempts'),
      message: `${maxAttempts} attempts per call; gRPC caps this at ${MAX_ATTEMPTS_WARNING} — every layer that retries multiplies load`,
    });
  }
  // Each attempt gets min(perTryTimeout, time left), so perTryTimeout × maxAttempts above the deadline is by design
  // (the incident's fix: 3 × 800 ms in 1.9 s). The setting to warn about: a first attempt that times out leaves less
  // than one whole perTryTimeout, so the retry a timeout asks for is cut short or never sent.
  const callMs = callDeadlineMs({ patienceMs, marginMs });
  if (callMs !== null && maxAttempts >= 2 && Number.isFinite(perTryTimeoutMs) && perTryTimeoutMs * 2 > callMs) {
    warnings.push({
      path: joinPath(path, 'perTryTimeout'),
      message: `a timed-out first attempt (${perTryTimeoutMs} ms) leaves ${Math.max(0, callMs - perTryTimeoutMs)} ms of the ${callMs} ms deadline (patience − margin): the retry gets less than one perTryTimeout; shorten perTryTimeout to at most ${Math.floor(callMs / 2)} ms or lengthen the patience`,
    });
  }
  if (retryNonIdempotent && retryOn.timeout) {
    warnings.push({
      path: joinPath(path, 'retryNonIdempotent'),
      message:
        'retries non-idempotent requests on timeout without an idempotency key: the server may have done the work (double payment)',
    });
  }
  // @eq retry-config-issues-length-backoff
  if (issues.length > 0 || backoff === undefined) return { issues, warnings };
  return {
    config: {
      maxAttempts,
      perTryTimeoutMs,
      backoff,
      budget,
      retryBreaker,
      retryOn,
      honorRetryAfter,
      maxRetryAfterMs,
      patienceMs,
      marginMs,
      propagateDeadline,
      retryNonIdempotent,
      ownership,
    },
    issues,
    warnings,
  };
}

/** Validates or throws a ConfigError listing every problem. */
export function resolveRetryConfig(
  input: unknown,
  path = '',
): { config: ResolvedRetryConfig; warnings: ConfigIssue[] } {
  const result = validateRetryConfig(input, path);
  if (!result.config) throw new ConfigError(result.issues);
  return { config: result.config, warnings: result.warnings };
}
