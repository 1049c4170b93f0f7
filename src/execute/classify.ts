// execute()'s classifier: what an attempt threw or returned, as the policy's Outcome (the policy then decides).

import { outcomeOfError, SENT } from '../driver/outcome.js';
import type { HeaderValue, Outcome, ResetStage } from '../policy/core/types.js';

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

/** What each checked field of an Outcome verdict must be (the error names it). */
const FIELD_EXPECTED: Readonly<Record<string, string>> = {
  kind: "one of 'response', 'connect-failure', 'reset', 'timeout', 'aborted', 'shed-locally', 'local-error'",
  status: 'an integer status from 100 to 599',
  retryAfter: 'a header value (a string or a list of strings), as a Retry-After header carries it',
  retryAfterMs:
    "a header value (a string such as '100', or a list of strings); for a wait in ms return { retryAfterMs: 100 } without kind",
  pushbackMs: 'a header value (a string or a list of strings), as grpc-retry-pushback-ms carries it',
  claim: "'claimed', 'criteria-met', 'unclaimed', 'absent' or undefined",
  stage:
    "'before-request', 'after-request' or 'mid-response' for a reset ('before-request' for a timeout), or undefined",
};

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
    // @ko execute-verdict-checked
    if ('kind' in verdict) return checkedOutcome(verdict);
    const ms = (verdict as { retryAfterMs: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) {
      return { kind: 'response', status: 503, retryAfterMs: String(Math.ceil(ms)) };
    }
  }
  throw badVerdict(verdict);
}

/** A header value as drivers hand it on: a string, a list of strings, or absent. */
function isHeaderValue(value: unknown): value is HeaderValue {
  if (value === undefined || value === null || typeof value === 'string') return true;
  return Array.isArray(value) && value.every((line) => typeof line === 'string');
}

const CLAIMS: ReadonlySet<unknown> = new Set(['claimed', 'criteria-met', 'unclaimed', 'absent', undefined]);
const RESET_STAGES: ReadonlySet<unknown> = new Set(['before-request', 'after-request', 'mid-response', undefined]);

/**
 * An Outcome verdict, checked field by field and copied (the policy reads only what was checked; a getter is read
 * once): a TypeError naming the field for anything the policy would misread or throw on (`retryAfterMs: 100` is a
 * header value, so a string: `{ retryAfterMs: 100 }` without `kind` is the verdict that waits 100 ms).
 */
function checkedOutcome(verdict: Outcome): Outcome {
  const kind: unknown = verdict.kind;
  if (typeof kind !== 'string' || !OUTCOME_KINDS.has(kind)) throw badVerdict(verdict, 'kind');
  if (kind === 'response') {
    const { status, retryAfter, retryAfterMs, pushbackMs, claim } = verdict as Extract<Outcome, { kind: 'response' }>;
    if (!Number.isInteger(status) || status < 100 || status > 599) throw badVerdict(verdict, 'status');
    if (!isHeaderValue(retryAfter)) throw badVerdict(verdict, 'retryAfter');
    if (!isHeaderValue(retryAfterMs)) throw badVerdict(verdict, 'retryAfterMs');
    if (!isHeaderValue(pushbackMs)) throw badVerdict(verdict, 'pushbackMs');
    if (!CLAIMS.has(claim)) throw badVerdict(verdict, 'claim');
    const outcome: Outcome = { kind, status };
    if (retryAfter != null) outcome.retryAfter = retryAfter;
    if (retryAfterMs != null) outcome.retryAfterMs = retryAfterMs;
    if (pushbackMs != null) outcome.pushbackMs = pushbackMs;
    if (claim !== undefined) outcome.claim = claim;
    return outcome;
  }
  if (kind === 'reset') {
    const stage = (verdict as { stage?: unknown }).stage;
    if (!RESET_STAGES.has(stage)) throw badVerdict(verdict, 'stage');
    return stage === undefined ? { kind } : { kind, stage: stage as ResetStage };
  }
  if (kind === 'timeout') {
    const stage = (verdict as { stage?: unknown }).stage;
    if (stage !== undefined && stage !== 'before-request') throw badVerdict(verdict, 'stage');
    return stage === undefined ? { kind } : { kind, stage };
  }
  return { kind } as Outcome;
}

function badVerdict(verdict: unknown, field?: string): TypeError {
  if (field !== undefined) {
    const expected = FIELD_EXPECTED[field] ?? '';
    return new TypeError(
      `seawall: the execute classifier returned ${describe(verdict)}; its ${field} must be ${expected}`,
    );
  }
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
