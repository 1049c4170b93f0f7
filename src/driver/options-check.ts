// Validation of the HTTP drivers' options (client-wide and per call): every problem named by its key, at once.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../policy/core/config-error.js';
import { collectDuration } from '../policy/core/duration.js';
import { compileRetryOn } from '../policy/retry/classify.js';
import { MAX_ATTEMPTS_LIMIT } from '../policy/retry/retry-config.js';
import { HOOK_NAMES } from './events.js';
import { UPSTREAM_OPTION_KEYS, upstreamOptionIssues } from './upstream/options.js';

/** Keys of the per-call `seawall` options. */
export const REQUEST_OPTION_KEYS: ReadonlySet<string> = new Set([
  'maxAttempts',
  'retryOn',
  'perTryTimeout',
  'deadlineMs',
  'timeout',
  'idempotent',
  'idempotencyKey',
  'bufferResponse',
  'oneLayer',
  'upstream',
  'propagate',
]);

/** Keys of `reads` / `writes`: the overrides that can only make a call more conservative. */
const OVERRIDE_KEYS: ReadonlySet<string> = new Set(['maxAttempts', 'retryOn', 'perTryTimeout']);

/** A key of one driver's options alone: createFetch's `fetch`, retryInterceptor's `pool`. */
export type DriverKey = 'fetch' | 'pool';
const DRIVER_KEYS: readonly DriverKey[] = ['fetch', 'pool'];

/** Keys of createFetch's and retryInterceptor's options (`fetch` is createFetch's alone, `pool` retryInterceptor's). */
export const CLIENT_OPTION_KEYS: ReadonlySet<string> = new Set([
  'policy',
  'oneLayer',
  'idempotencyKeys',
  'rejectOnGiveUp',
  'bufferResponse',
  'reads',
  'writes',
  'retriesDisabled',
  'env',
  'telemetry',
  'upstream',
  'propagate',
  'trustClaims',
  'unrefBackoff',
  'drain',
  ...HOOK_NAMES,
  ...UPSTREAM_OPTION_KEYS,
  ...DRIVER_KEYS,
]);

const BOOLEAN_CLIENT_KEYS = [
  'oneLayer',
  'idempotencyKeys',
  'rejectOnGiveUp',
  'bufferResponse',
  'retriesDisabled',
  'propagate',
  'trustClaims',
  'unrefBackoff',
] as const;

/** Longest upstream key or Idempotency-Key accepted (a header value, and a key of a bounded map). */
export const MAX_KEY_LENGTH = 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return typeof value;
}

function checkBoolean(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (value !== undefined && typeof value !== 'boolean') {
    issues.push({ path, message: `must be true or false, got ${describe(value)}` });
  }
}

function checkKeyString(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (value === undefined) return;
  // Visible ASCII and spaces only: the value travels in a header (an Idempotency-Key) or keys a bounded map.
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_KEY_LENGTH ||
    !/^[\x20-\x7e]+$/.test(value)
  ) {
    issues.push({
      path,
      message: `must be a non-empty string of at most ${MAX_KEY_LENGTH} printable ASCII characters, got ${describe(value)}`,
    });
  }
}

function checkMaxAttempts(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_ATTEMPTS_LIMIT) {
    issues.push({ path, message: `must be an integer from 1 to ${MAX_ATTEMPTS_LIMIT}, got ${describe(value)}` });
  }
}

function checkPositiveDuration(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (value === undefined) return;
  const ms = collectDuration(value, path, issues);
  if (ms === 0) issues.push({ path, message: 'must be greater than 0' });
}

/** The overrides shared by per-call options and `reads` / `writes`. */
function checkOverrides(input: Record<string, unknown>, path: string, issues: ConfigIssue[]): void {
  checkMaxAttempts(input.maxAttempts, joinPath(path, 'maxAttempts'), issues);
  if (input.retryOn !== undefined) compileRetryOn(input.retryOn, joinPath(path, 'retryOn'), issues);
  checkPositiveDuration(input.perTryTimeout, joinPath(path, 'perTryTimeout'), issues);
}

/** Problems of a per-call `seawall` options object (paths under `path`, e.g. "seawall"). */
export function requestOptionIssues(input: unknown, path = 'seawall'): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(input)) {
    issues.push({ path, message: `must be an object such as { timeout: '2s' }, got ${describe(input)}` });
    return issues;
  }
  for (const key of Object.keys(input)) {
    if (!REQUEST_OPTION_KEYS.has(key)) issues.push(unknownKey(joinPath(path, key), key, REQUEST_OPTION_KEYS));
  }
  checkOverrides(input, path, issues);
  const deadlineMs = input.deadlineMs;
  if (deadlineMs !== undefined && !(typeof deadlineMs === 'number' && Number.isFinite(deadlineMs) && deadlineMs >= 0)) {
    issues.push({
      path: joinPath(path, 'deadlineMs'),
      message: `must be a finite number of epoch ms (e.g. Date.now() + 2000), got ${describe(deadlineMs)}`,
    });
  }
  if (input.timeout !== undefined) collectDuration(input.timeout, joinPath(path, 'timeout'), issues);
  for (const key of ['idempotent', 'bufferResponse', 'oneLayer', 'propagate'] as const) {
    checkBoolean(input[key], joinPath(path, key), issues);
  }
  checkKeyString(input.idempotencyKey, joinPath(path, 'idempotencyKey'), issues);
  checkKeyString(input.upstream, joinPath(path, 'upstream'), issues);
  return issues;
}

/** Throws one ConfigError naming every problem of a per-call `seawall` options object. */
export function checkRequestOptions(input: unknown): void {
  const issues = requestOptionIssues(input);
  if (issues.length > 0) throw new ConfigError(issues);
}

/**
 * Problems of createFetch's / retryInterceptor's options, the policy excepted (RetryPolicy checks its own). `own`: the
 * driver's own key (its value is the driver's to check), or null for none.
 */
export function clientOptionIssues(input: unknown, own: DriverKey | null): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(input)) {
    return [{ path: '', message: 'pass an object such as { policy: new RetryPolicy({ maxAttempts: 3 }) }' }];
  }
  for (const key of Object.keys(input)) {
    const other = (DRIVER_KEYS as readonly string[]).includes(key) && key !== own;
    if (!CLIENT_OPTION_KEYS.has(key) || other) {
      const known = [...CLIENT_OPTION_KEYS].filter((k) => k === own || !(DRIVER_KEYS as readonly string[]).includes(k));
      issues.push(unknownKey(key, key, known, 'is not an option of the Seawall client'));
    }
  }
  const policy = input.policy;
  if (policy === undefined || policy === null) {
    issues.push({ path: 'policy', message: 'is required: a RetryPolicy, or its config such as { maxAttempts: 3 }' });
  } else if (typeof policy !== 'object') {
    issues.push({ path: 'policy', message: `must be a RetryPolicy or its config object, got ${describe(policy)}` });
  }
  for (const key of BOOLEAN_CLIENT_KEYS) checkBoolean(input[key], key, issues);
  for (const key of ['reads', 'writes'] as const) {
    const overrides = input[key];
    if (overrides === undefined) continue;
    if (!isRecord(overrides)) {
      issues.push({ path: key, message: `must be an object such as { maxAttempts: 2 }, got ${describe(overrides)}` });
      continue;
    }
    for (const name of Object.keys(overrides)) {
      if (!OVERRIDE_KEYS.has(name)) issues.push(unknownKey(joinPath(key, name), name, OVERRIDE_KEYS));
    }
    checkOverrides(overrides, key, issues);
  }
  if (input.env !== undefined && !isRecord(input.env)) {
    issues.push({ path: 'env', message: `must be an object of environment variables, got ${describe(input.env)}` });
  }
  const telemetry = input.telemetry;
  if (telemetry !== undefined && typeof telemetry !== 'boolean' && !isRecord(telemetry)) {
    issues.push({ path: 'telemetry', message: `must be true, false or { tracer, meter }, got ${describe(telemetry)}` });
  }
  checkKeyString(input.upstream, 'upstream', issues);
  for (const key of HOOK_NAMES) {
    const hook = input[key];
    if (hook !== undefined && typeof hook !== 'function') {
      issues.push({ path: key, message: `must be a function (event) => void, got ${describe(hook)}` });
    }
  }
  checkDrain(input.drain, issues);
  upstreamOptionIssues(input, issues);
  if (own === 'fetch' && input.fetch !== undefined && typeof input.fetch !== 'function') {
    issues.push({ path: 'fetch', message: `must be a fetch function, got ${describe(input.fetch)}` });
  }
  return issues;
}

function checkDrain(drain: unknown, issues: ConfigIssue[]): void {
  if (drain === undefined) return;
  if (!isRecord(drain)) {
    issues.push({ path: 'drain', message: `must be an object such as { maxBytes: 65536, timeout: '1s' }` });
    return;
  }
  for (const key of Object.keys(drain)) {
    if (key !== 'maxBytes' && key !== 'timeout') {
      issues.push(unknownKey(joinPath('drain', key), key, ['maxBytes', 'timeout']));
    }
  }
  const maxBytes = drain.maxBytes;
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && (maxBytes as number) >= 0)) {
    issues.push({ path: 'drain.maxBytes', message: `must be an integer >= 0, got ${describe(maxBytes)}` });
  }
  if (drain.timeout !== undefined) collectDuration(drain.timeout, 'drain.timeout', issues);
}
