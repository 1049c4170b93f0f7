// execute()'s classifier: what an attempt threw or returned, as the policy's Outcome (the policy then decides).

import { outcomeOfError, SENT } from '../driver/outcome.js';
import type { Outcome } from '../policy/core/types.js';

/** How one attempt of execute() ended: it threw `error`, or returned `value`. */
export type Attempted<T> =
  | { readonly thrown: true; readonly error: unknown }
  | { readonly thrown: false; readonly value: T };

/**
 * A classifier's answer. The policy decides with it exactly as with an HTTP outcome (retryOn, replay safety, attempts,
 * budget, deadline):
 * - `'success'`: the work is done (the call resolves; a thrown error resolves it with undefined);
 * - `'retry'`: refused before the work was done (read as a 503: retried for any work while 503 is in retryOn, as by
 *   default);
 * - `{ retryAfterMs }`: as `'retry'`, waiting at least that long (a 503 with `retry-after-ms`; maxRetryAfter applies);
 * - `'fail'`: not retryable (a local error: the call fails at once, and the budget learns nothing);
 * - an `Outcome` (`{ kind: 'reset' }`, `{ kind: 'timeout' }`, `{ kind: 'connect-failure' }`, ...): the policy's own
 *   vocabulary; a reset or a timeout is retried only when the call is `idempotent: true`.
 */
export type ExecuteVerdict = 'success' | 'retry' | 'fail' | { readonly retryAfterMs: number } | Outcome;

/** The user's classifier: a verdict, or undefined to let defaultClassify decide. */
export type ExecuteClassifier<T = unknown> = (attempted: Attempted<T>) => ExecuteVerdict | undefined;

const SUCCESS: Outcome = { kind: 'response', status: 200 };
const RETRY: Outcome = { kind: 'response', status: 503 };
const FAIL: Outcome = { kind: 'local-error' };
const TIMEOUT: Outcome = { kind: 'timeout' };

const OUTCOME_KINDS: ReadonlySet<string> = new Set([
  'response',
  'connect-failure',
  'reset',
  'timeout',
  'aborted',
  'shed-locally',
  'local-error',
]);

/**
 * The default: a returned value is a success; a thrown error is read by its code as the HTTP drivers read transport
 * errors (ECONNREFUSED, ENOTFOUND, EAI_AGAIN... connect-failure; ECONNRESET, EPIPE: a reset after the request was
 * sent, retried only when idempotent; ETIMEDOUT: timeout); any other error is not retried.
 */
export function defaultClassify(attempted: Attempted<unknown>): ExecuteVerdict {
  return attempted.thrown ? outcomeOfError(attempted.error, SENT) : 'success';
}

function describe(value: unknown): string {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    return typeof value;
  }
}

/** A verdict as the policy's Outcome; a TypeError for an answer that is none of the verdicts. */
export function verdictOutcome(verdict: ExecuteVerdict): Outcome {
  if (verdict === 'success') return SUCCESS;
  if (verdict === 'retry') return RETRY;
  if (verdict === 'fail') return FAIL;
  if (typeof verdict === 'object' && verdict !== null) {
    if ('kind' in verdict) {
      if (!OUTCOME_KINDS.has(verdict.kind)) throw badVerdict(verdict);
      if (verdict.kind === 'response') {
        const status = verdict.status;
        if (!Number.isInteger(status) || status < 100 || status > 599) throw badVerdict(verdict);
      }
      return verdict;
    }
    const ms = (verdict as { retryAfterMs: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) {
      return { kind: 'response', status: 503, retryAfterMs: String(Math.ceil(ms)) };
    }
  }
  throw badVerdict(verdict);
}

function badVerdict(verdict: unknown): TypeError {
  return new TypeError(
    `seawall: the execute classifier returned ${describe(verdict)}; expected 'success', 'retry', 'fail', { retryAfterMs: n >= 0 }, an Outcome such as { kind: 'reset' }, or undefined`,
  );
}

/**
 * The outcome of one attempt: the user's verdict (undefined: the default's). An error that is our own per-try signal's
 * reason is a timeout whatever the classifier says (the policy's per-try timeout cut it short).
 */
export function classifyAttempt<T>(
  attempted: Attempted<T>,
  classify: ExecuteClassifier<T> | undefined,
  signal: AbortSignal,
): Outcome {
  if (attempted.thrown && signal.aborted && attempted.error === signal.reason) return TIMEOUT;
  const verdict = classify?.(attempted) ?? defaultClassify(attempted);
  return verdictOutcome(verdict);
}

/** Is this outcome a success for the policy (classify.ts: a response below 400)? */
export function isSuccess(outcome: Outcome): boolean {
  return outcome.kind === 'response' && outcome.status < 400;
}
