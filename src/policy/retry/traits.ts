// Per-call traits (RequestTraits) can lower a policy's limits, never break them: the checks, with the trait's name.

import { ConfigError } from '../core/config-error.js';
import type { RequestTraits } from '../core/types.js';
import { MAX_ATTEMPTS_LIMIT } from './retry-config.js';

function traitIssue(path: string, message: string): never {
  throw new ConfigError([{ path, message }]);
}

/** Per-call traits can lower limits, never break them: NaN, strings and negatives are refused, naming the trait. */
export function checkTraits(traits: RequestTraits): void {
  const { maxAttempts, deadlineMs, inheritedDeadlineMs, perTryTimeoutMs, method } = traits;
  if (
    maxAttempts !== undefined &&
    !(Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= MAX_ATTEMPTS_LIMIT)
  ) {
    traitIssue('maxAttempts', `must be an integer from 1 to ${MAX_ATTEMPTS_LIMIT}, got ${String(maxAttempts)}`);
  }
  if (deadlineMs !== undefined && deadlineMs !== null && !Number.isFinite(deadlineMs)) {
    traitIssue('deadlineMs', `must be a finite number of epoch ms (or null), got ${String(deadlineMs)}`);
  }
  if (inheritedDeadlineMs !== undefined && inheritedDeadlineMs !== null && !Number.isFinite(inheritedDeadlineMs)) {
    traitIssue(
      'inheritedDeadlineMs',
      `must be a finite number of epoch ms (or null), got ${String(inheritedDeadlineMs)}`,
    );
  }
  if (perTryTimeoutMs !== undefined && !(typeof perTryTimeoutMs === 'number' && perTryTimeoutMs > 0)) {
    traitIssue('perTryTimeoutMs', `must be a number of ms > 0, got ${String(perTryTimeoutMs)}`);
  }
  // A method decides whether a replay is safe; a non-string one (from JavaScript) must not end in a TypeError.
  // @eq traits-method-method-method-stri
  if (method !== undefined && method !== null && typeof method !== 'string') {
    traitIssue('method', `must be an HTTP method name such as "GET" (or undefined), got ${typeof method}`);
  }
}
