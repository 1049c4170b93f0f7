// The circuit breaker's configuration: keys, defaults, bounds and validation with key paths (breaker.ts uses it).

import { type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

/** The failure-rate window: the last `size` calls, or the last `duration` kept in `buckets` fixed buckets. */
export type BreakerWindowConfig =
  | { kind: 'count'; size?: number }
  | { kind: 'time'; duration?: Duration; buckets?: number };

export interface FailureRateConfig {
  /** Opens when failures are at least this share of the window's calls, in percent (0, 100]; default 50. */
  percent?: number;
  /** ...and the window holds at least this many calls (integer ≥ 1, at most a count window's size); default 20. */
  minimumCalls?: number;
  /** Default { kind: 'time', duration: '10s', buckets: 10 }. */
  window?: BreakerWindowConfig;
}

export interface CircuitBreakerConfig {
  /** Consecutive failures that open the circuit (integer ≥ 1); default 5. false: open on the failure rate only. */
  failureThreshold?: number | false;
  /** Opening on a failure rate over a sliding window (on by default, see FailureRateConfig); false: off. */
  failureRate?: FailureRateConfig | false;
  /** How long the circuit stays open before it half-opens; default 5s. */
  breakDuration?: Duration;
  /** Each re-open (a failed probe) multiplies the break by this (≥ 1); default 1 (no growth). Reset on close. */
  breakDurationMultiplier?: number;
  /** Cap on the grown break; default 10 × breakDuration (as Envoy caps its backoff and ejection times). */
  maxBreakDuration?: Duration;
  /** Probes allowed at once while half-open (integer ≥ 1); default 1. */
  halfOpenMaxProbes?: number;
  /** Probe successes that close the circuit (integer ≥ 1); default 1. One probe failure re-opens it. */
  successesToClose?: number;
  /**
   * How long a probe may stay out unreported; default breakDuration. A probe still out then counts as a failed probe
   * (the circuit re-opens from the lease's end), so one hung probe cannot keep every later call refused.
   */
  probeLease?: Duration;
}

export type ResolvedBreakerWindow =
  | { kind: 'count'; size: number }
  | { kind: 'time'; durationMs: number; buckets: number };

export interface ResolvedCircuitBreakerConfig {
  /** Infinity when off. */
  readonly failureThreshold: number;
  readonly failureRate: { percent: number; minimumCalls: number; window: ResolvedBreakerWindow } | null;
  readonly breakDurationMs: number;
  readonly breakDurationMultiplier: number;
  readonly maxBreakDurationMs: number;
  readonly halfOpenMaxProbes: number;
  readonly successesToClose: number;
  readonly probeLeaseMs: number;
}

export const DEFAULT_FAILURE_THRESHOLD = 5;
export const DEFAULT_FAILURE_RATE_PERCENT = 50;
export const DEFAULT_MINIMUM_CALLS = 20;
export const DEFAULT_BREAK_DURATION_MS = 5000;
export const DEFAULT_BREAKER_WINDOW: ResolvedBreakerWindow = Object.freeze({
  kind: 'time',
  durationMs: 10_000,
  buckets: 10,
});
/** Bounds on a window's memory, 16 bytes per bucket (a count window has a bucket per call): 160 kB at most. */
export const MAX_BREAKER_WINDOW_SIZE = 10_000;
export const MAX_BREAKER_WINDOW_BUCKETS = 1000;

const KEYS = ['failureThreshold', 'failureRate', 'breakDuration', 'breakDurationMultiplier', 'maxBreakDuration'].concat(
  'halfOpenMaxProbes',
  'successesToClose',
  'probeLease',
);
const RATE_KEYS = ['percent', 'minimumCalls', 'window'];
const WINDOW_KEYS: Readonly<Record<string, readonly string[]>> = {
  count: ['kind', 'size'],
  time: ['kind', 'duration', 'buckets'],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInt(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** Pushes `message` at path.key unless `ok`; returns ok. */
function need(ok: boolean, issues: ConfigIssue[], path: string, key: string, message: string): boolean {
  if (!ok) issues.push({ path: joinPath(path, key), message });
  return ok;
}

function checkKeys(raw: Record<string, unknown>, known: readonly string[], path: string, issues: ConfigIssue[]): void {
  for (const key of Object.keys(raw)) {
    if (!known.includes(key) && raw[key] !== undefined) issues.push(unknownKey(joinPath(path, key), key, known));
  }
}

function validateWindow(input: unknown, path: string, issues: ConfigIssue[]): ResolvedBreakerWindow | undefined {
  if (input === undefined) return DEFAULT_BREAKER_WINDOW;
  if (!isRecord(input)) {
    issues.push({ path, message: 'must be an object such as { kind: "time", duration: "10s", buckets: 10 }' });
    return undefined;
  }
  const kind = typeof input.kind === 'string' && Object.hasOwn(WINDOW_KEYS, input.kind) ? input.kind : undefined;
  if (!need(kind !== undefined, issues, path, 'kind', 'must be "count" or "time"')) return undefined;
  checkKeys(input, WINDOW_KEYS[kind as string] as readonly string[], path, issues);
  if (kind === 'count') {
    const { size = 100 } = input;
    const msg = `must be an integer from 1 to ${MAX_BREAKER_WINDOW_SIZE}`;
    return need(isInt(size, 1, MAX_BREAKER_WINDOW_SIZE), issues, path, 'size', msg)
      ? { kind, size: size as number }
      : undefined;
  }
  const { buckets = 10 } = input;
  const durationMs = collectDuration(input.duration ?? 10_000, joinPath(path, 'duration'), issues);
  const msg = `must be an integer from 1 to ${MAX_BREAKER_WINDOW_BUCKETS}`;
  if (!need(isInt(buckets, 1, MAX_BREAKER_WINDOW_BUCKETS), issues, path, 'buckets', msg) || durationMs === undefined)
    return;
  if (!need(durationMs >= (buckets as number), issues, path, 'duration', 'must be at least 1ms per bucket')) return;
  return { kind: 'time', durationMs, buckets: buckets as number };
}

function validateRate(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedCircuitBreakerConfig['failureRate'] {
  if (input === false) return null;
  if (input !== undefined && !isRecord(input)) {
    issues.push({ path, message: 'must be an object such as { percent: 50, minimumCalls: 20 }, or false' });
    return null;
  }
  const raw = input ?? {};
  checkKeys(raw, RATE_KEYS, path, issues);
  const { percent = DEFAULT_FAILURE_RATE_PERCENT, minimumCalls = DEFAULT_MINIMUM_CALLS } = raw;
  const percentOk = typeof percent === 'number' && percent > 0 && percent <= 100;
  need(percentOk, issues, path, 'percent', 'must be a number in (0, 100]');
  need(isInt(minimumCalls, 1), issues, path, 'minimumCalls', 'must be an integer ≥ 1');
  const window = validateWindow(raw.window, joinPath(path, 'window'), issues);
  // A count window never holds more than `size` calls, so a larger minimumCalls would never let the rate trigger.
  // Refused, as cockatiel's CountBreaker refuses it (resilience4j lowers minimumNumberOfCalls to the size instead).
  // @ko breaker-count-window-minimum
  if (window?.kind === 'count' && isInt(minimumCalls, 1) && (minimumCalls as number) > window.size) {
    const given = raw.minimumCalls === undefined ? ` (the default ${DEFAULT_MINIMUM_CALLS})` : '';
    const message = `must be at most window.size (${window.size}): with ${minimumCalls}${given} the failure rate could never open the breaker`;
    issues.push({ path: joinPath(path, 'minimumCalls'), message });
    return null;
  }
  return window ? { percent: percent as number, minimumCalls: minimumCalls as number, window } : null;
}

/** Checks a circuit-breaker config, pushing one issue per problem (paths under `path`); undefined if any. */
export function validateCircuitBreakerConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedCircuitBreakerConfig | undefined {
  if (input === undefined) input = {};
  if (!isRecord(input)) {
    issues.push({ path, message: 'must be an object such as { failureThreshold: 5, breakDuration: "5s" }' });
    return undefined;
  }
  const before = issues.length;
  checkKeys(input, KEYS, path, issues);
  const { failureThreshold = DEFAULT_FAILURE_THRESHOLD, breakDurationMultiplier: multiplier = 1 } = input;
  const { halfOpenMaxProbes = 1, successesToClose = 1 } = input;
  const thresholdOk = failureThreshold === false || isInt(failureThreshold, 1);
  need(thresholdOk, issues, path, 'failureThreshold', 'must be an integer ≥ 1, or false');
  const failureRate = validateRate(input.failureRate, joinPath(path, 'failureRate'), issues);
  if (failureThreshold === false && input.failureRate === false) {
    issues.push({ path, message: 'needs failureThreshold or failureRate: with both false it never opens' });
  }
  const breakMs = collectDuration(
    input.breakDuration ?? DEFAULT_BREAK_DURATION_MS,
    joinPath(path, 'breakDuration'),
    issues,
  );
  need(breakMs !== 0, issues, path, 'breakDuration', 'must be longer than 0');
  const multiplierOk = typeof multiplier === 'number' && multiplier >= 1 && multiplier <= 100;
  need(multiplierOk, issues, path, 'breakDurationMultiplier', 'must be a number in [1, 100]');
  const maxMs =
    input.maxBreakDuration === undefined
      ? (breakMs ?? 0) * 10
      : collectDuration(input.maxBreakDuration, joinPath(path, 'maxBreakDuration'), issues);
  const maxOk = breakMs === undefined || maxMs === undefined || maxMs >= breakMs;
  need(maxOk, issues, path, 'maxBreakDuration', 'must be at least breakDuration');
  need(isInt(halfOpenMaxProbes, 1), issues, path, 'halfOpenMaxProbes', 'must be an integer ≥ 1');
  need(isInt(successesToClose, 1), issues, path, 'successesToClose', 'must be an integer ≥ 1');
  const leaseMs =
    input.probeLease === undefined ? breakMs : collectDuration(input.probeLease, joinPath(path, 'probeLease'), issues);
  need(
    input.probeLease === undefined || leaseMs !== 0,
    issues,
    path,
    'probeLease',
    'must be longer than 0 (a probe needs time to answer)',
  );
  if (issues.length !== before) return undefined;
  return {
    failureThreshold: failureThreshold === false ? Infinity : (failureThreshold as number),
    failureRate,
    breakDurationMs: breakMs as number,
    breakDurationMultiplier: multiplier as number,
    maxBreakDurationMs: maxMs as number,
    halfOpenMaxProbes: halfOpenMaxProbes as number,
    successesToClose: successesToClose as number,
    probeLeaseMs: leaseMs as number,
  };
}
