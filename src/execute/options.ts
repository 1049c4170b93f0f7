// Options of createExecutor and of one execute() call, and their validation (every problem named by its key, at once).

import type { ClientHooks } from '../driver/events.js';
import type { CallOverrides, SeawallClientOptions } from '../driver/options.js';
import { requestOptionIssues } from '../driver/options-check.js';
import { ConfigError, type ConfigIssue, unknownKey } from '../policy/core/config-error.js';
import type { Duration } from '../policy/core/duration.js';
import type { RetryPolicy } from '../policy/retry/retry.js';
import type { RetryPolicyConfig } from '../policy/retry/retry-config.js';
import type { ExecuteClassifier } from './classify.js';

/** createExecutor's options. */
export interface ExecutorOptions<T = unknown> extends ClientHooks {
  /** The retry policy (it owns the budget), or its config. */
  policy: RetryPolicy | RetryPolicyConfig;
  /** The budget key and the name in errors and events (default 'execute'): name the dependency, e.g. 'member-db'. */
  upstream?: string;
  /** Maps what an attempt threw or returned to an outcome; undefined answers fall back to defaultClassify. */
  classify?: ExecuteClassifier<T>;
  /**
   * Applies the one-layer rule inside an inbound Seawall request (default false, unlike createFetch's: work that is not
   * a service call retries where it runs; see EXECUTE_ONE_LAYER).
   */
  oneLayer?: boolean;
  /** Kill switch: one attempt per call. Default: whether SEAWALL_DISABLE_RETRIES is set in `env` at creation. */
  retriesDisabled?: boolean;
  /** Environment to read the kill switch from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Unref the backoff timer too (default false: an awaited call keeps the process alive while it waits). */
  unrefBackoff?: boolean;
}

/** Options of one execute() call: each can only make the call more conservative than the policy. */
export interface ExecuteOptions<T = unknown> extends CallOverrides {
  /** Aborts the call (the attempt's signal fires too); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Absolute deadline (epoch ms); it can only shorten the inbound request's and the policy's. */
  deadlineMs?: number;
  /** Relative deadline ("2s", 800). */
  timeout?: Duration;
  /** The work is safe to repeat (default false: a timeout or a reset after the work may have run is not retried). */
  idempotent?: boolean;
  /** Overrides the executor's `oneLayer`. */
  oneLayer?: boolean;
  /** Budget key for this call (default: the executor's `upstream`). */
  upstream?: string;
  /** Overrides the executor's classifier for this call. */
  classify?: ExecuteClassifier<T>;
}

const EXECUTOR_KEYS: ReadonlySet<string> = new Set([
  'policy',
  'upstream',
  'classify',
  'oneLayer',
  'retriesDisabled',
  'env',
  'unrefBackoff',
  'onRetry',
  'onGiveUp',
]);

const CALL_KEYS: ReadonlySet<string> = new Set([
  'signal',
  'deadlineMs',
  'timeout',
  'perTryTimeout',
  'maxAttempts',
  'retryOn',
  'idempotent',
  'oneLayer',
  'upstream',
  'classify',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkFunction(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (value !== undefined && typeof value !== 'function') {
    issues.push({ path, message: `must be a function, got ${value === null ? 'null' : typeof value}` });
  }
}

/**
 * The executor's options as the HTTP client's (the keys they share; ClientSettings checks their values and the policy),
 * or a ConfigError naming every problem of the keys that are execute's own.
 */
export function clientOptionsOf(input: unknown): SeawallClientOptions {
  if (!isRecord(input)) {
    throw new ConfigError([{ path: '', message: 'pass an object such as { policy: { maxAttempts: 3 } }' }]);
  }
  const issues: ConfigIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!EXECUTOR_KEYS.has(key)) issues.push(unknownKey(key, key, EXECUTOR_KEYS, 'is not an option of createExecutor'));
  }
  checkFunction(input.classify, 'classify', issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const { classify: _classify, upstream, ...shared } = input;
  // No HTTP headers to send (fn gets the deadline itself) and no HTTP spans: propagation and telemetry are off.
  return {
    ...shared,
    oneLayer: shared.oneLayer ?? EXECUTE_ONE_LAYER,
    upstream: upstream ?? 'execute',
    telemetry: false,
    propagate: false,
  } as unknown as SeawallClientOptions;
}

/**
 * execute()'s default for the one-layer rule: off. The rule is about service calls (the outermost Seawall hop retries
 * the whole path, so the hops below make one attempt each). Work that is not a service call — a database query, a
 * queue publish, a child process — is the end of the path: nothing below it retries, and only the code that ran it
 * knows a failure was a refusal worth repeating (a PostgreSQL 40001 rolled the transaction back; the hop above sees a
 * 500 and cannot tell). So it retries where it runs, bounded by the inherited deadline and the executor's budget.
 */
// @ko execute-one-layer-off
export const EXECUTE_ONE_LAYER = false;

/** Per-call options already checked (held weakly: a constant options object is checked once). */
const checked = new WeakSet<object>();

/** Throws one ConfigError naming every problem of one call's options. */
export function checkExecuteOptions(input: unknown): void {
  if (input === undefined || (typeof input === 'object' && input !== null && checked.has(input))) return;
  if (!isRecord(input)) {
    throw new ConfigError([{ path: 'options', message: "must be an object such as { timeout: '2s' }" }]);
  }
  const issues: ConfigIssue[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!CALL_KEYS.has(key)) issues.push(unknownKey(`options.${key}`, key, CALL_KEYS));
    else if (key !== 'signal' && key !== 'classify') rest[key] = value;
  }
  const signal = input.signal;
  if (
    signal !== undefined &&
    !(
      isRecord(signal) &&
      typeof signal.aborted === 'boolean' &&
      typeof signal.addEventListener === 'function' &&
      typeof signal.removeEventListener === 'function' // the call's end removes its listener: without it, it hung
    )
  ) {
    issues.push({ path: 'options.signal', message: 'must be an AbortSignal' });
  }
  checkFunction(input.classify, 'options.classify', issues);
  issues.push(...requestOptionIssues(rest, 'options'));
  if (issues.length > 0) throw new ConfigError(issues);
  checked.add(input);
}
