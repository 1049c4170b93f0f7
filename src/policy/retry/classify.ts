// Classification of one attempt's outcome: does it match `retryOn`, is a retry safe, and what it means for the budget.

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';
import type { Outcome, RetryCondition, RetryOnSet } from '../core/types.js';

// The condition vocabulary is core (types.ts); it is re-exported here, where it is compiled and applied.
export type { RetryCondition, RetryOnSet } from '../core/types.js';

export const RETRY_CONDITION_NAMES: readonly string[] = [
  '5xx',
  'gateway-error',
  'reset',
  'reset-before-request',
  'connect-failure',
  'retriable-4xx',
  'timeout',
  '4xx',
];

/** The seed's fix: timeouts, 429, 502, 503, 504 — plus the two transport failures where the server never saw the request. */
export const DEFAULT_RETRY_ON: readonly RetryCondition[] = ['connect-failure', 'reset', 'timeout', 429, 502, 503, 504];

/** RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent (method names in any case). */
export function isIdempotentMethod(method: string): boolean {
  switch (method) {
    case 'GET':
    case 'HEAD':
    // @eq classify-post-patch-fast-path
    case 'PUT':
    case 'DELETE':
    case 'OPTIONS':
    case 'TRACE':
      return true;
    // @eq classify-post-patch-fast-path
    case 'POST':
    // @eq classify-post-patch-fast-path
    case 'PATCH':
      return false; // the usual non-idempotent spellings answer without the allocation of toUpperCase()
    default: {
      // Only the upper-case spelling is listed: read another spelling once more in upper case.
      const upper = method.toUpperCase();
      return upper !== method && isIdempotentMethod(upper);
    }
  }
}

/** Compiles `retryOn`; unknown names and impossible codes go to `issues` under `path`. */
export function compileRetryOn(conditions: unknown, path: string, issues: ConfigIssue[]): RetryOnSet {
  const statuses = new Set<number>();
  let timeout = false;
  let reset = false;
  let resetBeforeRequest = false;
  let connectFailure = false;
  const kept: RetryCondition[] = [];
  if (!Array.isArray(conditions)) {
    issues.push({ path, message: 'must be a list of retry conditions or status codes' });
    return { statuses, timeout, reset, resetBeforeRequest, connectFailure, conditions: kept };
  }
  conditions.forEach((condition: unknown, index) => {
    const where = joinPath(path, index);
    // @eq classify-condition-string
    if (typeof condition === 'number' || (typeof condition === 'string' && /^\d{3}$/.test(condition))) {
      const status = Number(condition);
      if (!Number.isInteger(status) || status < 400 || status > 599) {
        issues.push({ path: where, message: `must be a status code from 400 to 599, got ${condition}` });
        return;
      }
      statuses.add(status);
      kept.push(status);
      return;
    }
    switch (condition) {
      case '5xx':
        for (let s = 500; s <= 599; s++) statuses.add(s);
        reset = true;
        connectFailure = true;
        break;
      case '4xx':
        for (let s = 400; s <= 499; s++) statuses.add(s);
        break;
      case 'gateway-error':
        statuses.add(502).add(503).add(504);
        break;
      case 'retriable-4xx':
        statuses.add(409);
        break;
      case 'reset':
        reset = true;
        break;
      case 'reset-before-request':
        resetBeforeRequest = true;
        break;
      case 'connect-failure':
        connectFailure = true;
        break;
      case 'timeout':
        timeout = true;
        break;
      default:
        issues.push({
          path: where,
          message: `unknown retry condition ${JSON.stringify(condition)}; expected a status code or one of ${RETRY_CONDITION_NAMES.join(', ')}`,
        });
        return;
    }
    kept.push(condition as RetryCondition);
  });
  return {
    statuses,
    timeout,
    reset,
    resetBeforeRequest: resetBeforeRequest || reset,
    connectFailure,
    conditions: kept,
  };
}

/** Compiles a list of retry conditions or throws a ConfigError naming each bad entry (for per-call overrides). */
export function compileRetryConditions(conditions: readonly RetryCondition[], path = 'retryOn'): RetryOnSet {
  const issues: ConfigIssue[] = [];
  const set = compileRetryOn(conditions, path, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  return set;
}

/** Why an outcome was classified the way it was. */
export type ClassReason =
  | 'success'
  | 'retryable'
  | 'not-in-retry-on'
  | 'unsafe'
  | 'aborted'
  | 'shed-locally'
  | 'local-error';

/** What the budget should learn from an outcome (gRPC A6: only OK earns tokens, only retryable failures drain them). */
export type BudgetEffect = 'success' | 'failure' | 'none';

export interface Classification {
  /** The call should go on (if attempts, budget and deadline allow). */
  readonly retryable: boolean;
  readonly reason: ClassReason;
  readonly budget: BudgetEffect;
}

/** The 5xx a server answers without having acted on the request (semantics.md §7): any request may replay them. */
export const REPLAY_SAFE_5XX: readonly number[] = Object.freeze([502, 503, 504]);

/** May a request that is not replay-safe be retried on this status? Below 500 yes; of the 5xx, REPLAY_SAFE_5XX. */
export function isReplaySafeStatus(status: number): boolean {
  return status < 500 || REPLAY_SAFE_5XX.includes(status);
}

/** The request traits classification needs, resolved once per call. */
export interface SafetyTraits {
  /** Idempotent by method or by declaration, or the request carries an idempotency key, or unsafe retries are allowed. */
  readonly replaySafe: boolean;
}

const SUCCESS: Classification = { retryable: false, reason: 'success', budget: 'success' };
const RETRYABLE: Classification = { retryable: true, reason: 'retryable', budget: 'failure' };
const UNSAFE: Classification = { retryable: false, reason: 'unsafe', budget: 'failure' };
const NOT_MATCHED: Classification = { retryable: false, reason: 'not-in-retry-on', budget: 'none' };
const ABORTED: Classification = { retryable: false, reason: 'aborted', budget: 'none' };
const SHED_LOCALLY: Classification = { retryable: false, reason: 'shed-locally', budget: 'none' };
const LOCAL_ERROR: Classification = { retryable: false, reason: 'local-error', budget: 'none' };

/**
 * Does this outcome call for another attempt? Safety follows semantics.md §7: connect failures, resets before a
 * response, 429, 502, 503 and 504 are safe to replay; 500-class errors and timeouts only when the request is replay-safe;
 * other 4xx only when listed explicitly. A 4xx that is not retried leaves the budget alone: gRPC A6 credits only OK
 * responses and charges only retryable failures (and "do not retry" pushbacks).
 * A reset is safe to replay only when it provably came before the server saw the request (`before-request`: the
 * request was never written, or an HTTP/2 REFUSED_STREAM; Envoy's reset-before-request). Any other reset — after the
 * request was written, or once the response had started, or when the driver cannot tell — is like a timeout: the
 * server may have done the work, so it needs replay safety.
 * A local error is never retried and leaves the budget alone: it says nothing about the upstream.
 */
export function classifyOutcome(outcome: Outcome, retryOn: RetryOnSet, safety: SafetyTraits): Classification {
  switch (outcome.kind) {
    case 'response': {
      const status = outcome.status;
      if (status < 400) return SUCCESS;
      // gRPC A6 credits only OK: a status the caller does not retry (a 404, a 400 like INVALID_ARGUMENT) neither costs
      // nor earns, whatever its class.
      // @ko a6-credit-only-ok
      if (!retryOn.statuses.has(status)) return NOT_MATCHED;
      // @ko unsafe-500-not-replayed
      if (!isReplaySafeStatus(status) && !safety.replaySafe) return UNSAFE;
      return RETRYABLE;
    }
    case 'timeout':
      // A timeout before the request was sent is a connect timeout (Envoy counts those as connect-failure): safe.
      if (outcome.stage === 'before-request')
        return retryOn.timeout || retryOn.connectFailure ? RETRYABLE : NOT_MATCHED;
      if (!retryOn.timeout) return NOT_MATCHED;
      return safety.replaySafe ? RETRYABLE : UNSAFE;
    case 'reset':
      if (outcome.stage === 'before-request') return retryOn.resetBeforeRequest ? RETRYABLE : NOT_MATCHED;
      if (!retryOn.reset) return NOT_MATCHED;
      return safety.replaySafe ? RETRYABLE : UNSAFE;
    case 'connect-failure':
      return retryOn.connectFailure ? RETRYABLE : NOT_MATCHED;
    case 'aborted':
      return ABORTED;
    case 'shed-locally':
      return SHED_LOCALLY;
    case 'local-error':
      return LOCAL_ERROR;
  }
}
