// The adaptive throttle's configuration (throttle.ts): keys, defaults, bounds and validation with key paths.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

/**
 * Client-side adaptive throttling (Google SRE book, ch. 21 "Handling Overload", "Client-side throttling"): each
 * attempt is refused locally with probability max(0, (requests − k·accepts) / (requests + 1)) over the last `window`.
 */
export interface ThrottleConfig {
  kind: 'adaptive';
  /** The multiplier of accepts: the callee is sent about k × what it accepts. A number in [1, 100]; default 2. */
  k?: number;
  /** How much history counts (a time window of WINDOW_BUCKETS buckets), from 1s to 1h; default 2m. */
  window?: Duration;
  /** No local refusal while the window holds fewer requests than this (integer from 0 to 1,000,000); default 20. */
  minRequests?: number;
}

export interface ResolvedThrottleConfig {
  readonly k: number;
  readonly windowMs: number;
  readonly minRequests: number;
}

export const DEFAULT_THROTTLE_K = 2;
export const DEFAULT_THROTTLE_WINDOW_MS = 120_000;
export const DEFAULT_THROTTLE_MIN_REQUESTS = 20;
/** The window's buckets: the counts of the oldest bucket leave together, so history is forgotten in 1/20 steps. */
export const WINDOW_BUCKETS = 20;
export const MIN_THROTTLE_WINDOW_MS = 1000;
export const MAX_THROTTLE_WINDOW_MS = 3_600_000;
export const MAX_THROTTLE_K = 100;
export const MAX_THROTTLE_MIN_REQUESTS = 1_000_000;

const KEYS = ['kind', 'k', 'window', 'minRequests'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a throttle config, pushing one issue per problem (paths under `path`); undefined if any. */
export function validateThrottleConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedThrottleConfig | undefined {
  if (!isRecord(input)) {
    issues.push({ path, message: 'must be an object such as { kind: "adaptive", k: 2, window: "2m" }' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(input)) {
    if (!KEYS.includes(key) && input[key] !== undefined) issues.push(unknownKey(joinPath(path, key), key, KEYS));
  }
  if (input.kind !== 'adaptive') issues.push({ path: joinPath(path, 'kind'), message: 'must be "adaptive"' });
  const { k = DEFAULT_THROTTLE_K, minRequests = DEFAULT_THROTTLE_MIN_REQUESTS } = input;
  // k < 1 would refuse calls to a backend that accepts every one of them (requests > k·accepts with no rejection).
  if (typeof k !== 'number' || !(k >= 1 && k <= MAX_THROTTLE_K)) {
    const message = `must be a number from 1 to ${MAX_THROTTLE_K} (below 1 it would refuse calls a healthy callee accepts)`;
    issues.push({ path: joinPath(path, 'k'), message });
  }
  const windowMs = collectDuration(input.window ?? DEFAULT_THROTTLE_WINDOW_MS, joinPath(path, 'window'), issues);
  if (windowMs !== undefined && (windowMs < MIN_THROTTLE_WINDOW_MS || windowMs > MAX_THROTTLE_WINDOW_MS)) {
    issues.push({ path: joinPath(path, 'window'), message: 'must be from 1s to 1h' });
  }
  if (
    !Number.isInteger(minRequests) ||
    (minRequests as number) < 0 ||
    (minRequests as number) > MAX_THROTTLE_MIN_REQUESTS
  ) {
    const message = `must be an integer from 0 to ${MAX_THROTTLE_MIN_REQUESTS.toLocaleString('en-US')}`;
    issues.push({ path: joinPath(path, 'minRequests'), message });
  }
  if (issues.length > before) return undefined;
  return Object.freeze({ k: k as number, windowMs: windowMs as number, minRequests: minRequests as number });
}

/** The resolved config, or a ConfigError naming every problem (paths under `path`). */
export function resolveThrottleConfig(input: unknown, path = 'throttle'): ResolvedThrottleConfig {
  const issues: ConfigIssue[] = [];
  const resolved = validateThrottleConfig(input, path, issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}
