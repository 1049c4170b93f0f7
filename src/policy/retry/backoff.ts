// Backoff between attempts: none, constant, exponential, full/equal/decorrelated jitter, Envoy- and gRPC-style.

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

export type BackoffConfig =
  | 'none'
  | 'full-jitter'
  | { kind: 'none' }
  | { kind: 'constant'; delay: Duration }
  | { kind: 'exponential'; base: Duration; cap: Duration; multiplier?: number }
  | { kind: 'full-jitter'; base?: Duration; cap?: Duration }
  | { kind: 'equal-jitter'; base?: Duration; cap?: Duration }
  | { kind: 'decorrelated-jitter'; base?: Duration; cap?: Duration }
  | { kind: 'envoy'; base?: Duration; max?: Duration }
  | { kind: 'grpc'; initial?: Duration; max?: Duration; multiplier?: number };

export type BackoffKind =
  | 'none'
  | 'constant'
  | 'exponential'
  | 'full-jitter'
  | 'equal-jitter'
  | 'decorrelated-jitter'
  | 'envoy'
  | 'grpc';

/**
 * A validated backoff in milliseconds. `baseMs` is the base / initial / constant delay; `capMs` the cap / max.
 * none: 0, 0, 1. constant: delay, delay, 1.
 */
export interface ResolvedBackoff {
  kind: BackoffKind;
  baseMs: number;
  capMs: number;
  multiplier: number;
}

/** The seed's full jitter: 50 ms base, 500 ms cap (incident.md, variant a-jitter). */
export const DEFAULT_JITTER_BASE_MS = 50;
export const DEFAULT_JITTER_CAP_MS = 500;
/** Envoy route retry_back_off: base_interval 25 ms, max_interval 10 × base. */
export const DEFAULT_ENVOY_BASE_MS = 25;
/** gRPC A6 examples / connection-backoff defaults: 1 s initial, 120 s max, ×1.6. */
export const DEFAULT_GRPC_INITIAL_MS = 1000;
export const DEFAULT_GRPC_MAX_MS = 120_000;
export const DEFAULT_GRPC_MULTIPLIER = 1.6;

const TWO_POW_32 = 4294967296;

/** Per kind: allowed keys, the key names of base and cap, and their defaults (undefined = required). */
type KindSpec = {
  keys: readonly string[];
  base?: string;
  cap?: string;
  baseDefault?: number;
  capDefault?: (baseMs: number) => number;
};

const JITTER: KindSpec = {
  keys: ['kind', 'base', 'cap'],
  base: 'base',
  cap: 'cap',
  baseDefault: DEFAULT_JITTER_BASE_MS,
  capDefault: () => DEFAULT_JITTER_CAP_MS,
};

const SPECS: Readonly<Record<BackoffKind, KindSpec>> = {
  none: { keys: ['kind'] },
  constant: { keys: ['kind', 'delay'], base: 'delay' },
  exponential: { keys: ['kind', 'base', 'cap', 'multiplier'], base: 'base', cap: 'cap' },
  'full-jitter': JITTER,
  'equal-jitter': JITTER,
  'decorrelated-jitter': JITTER,
  envoy: {
    keys: ['kind', 'base', 'max'],
    base: 'base',
    cap: 'max',
    baseDefault: DEFAULT_ENVOY_BASE_MS,
    capDefault: (baseMs) => 10 * baseMs,
  },
  grpc: {
    keys: ['kind', 'initial', 'max', 'multiplier'],
    base: 'initial',
    cap: 'max',
    baseDefault: DEFAULT_GRPC_INITIAL_MS,
    capDefault: () => DEFAULT_GRPC_MAX_MS,
  },
};

/**
 * Checks a backoff config, pushing one issue per problem (paths under `path`), and resolves it to milliseconds.
 * Returns undefined when there were issues.
 */
export function validateBackoffConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedBackoff | undefined {
  if (input === 'none') return { kind: 'none', baseMs: 0, capMs: 0, multiplier: 1 };
  if (input === 'full-jitter') {
    return { kind: 'full-jitter', baseMs: DEFAULT_JITTER_BASE_MS, capMs: DEFAULT_JITTER_CAP_MS, multiplier: 2 };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    issues.push({ path, message: 'must be "none", "full-jitter" or an object with a kind' });
    return undefined;
  }
  const o = input as Record<string, unknown>;
  const kind = o.kind as BackoffKind;
  const spec = typeof o.kind === 'string' && Object.hasOwn(SPECS, kind) ? SPECS[kind] : undefined;
  if (spec === undefined) {
    issues.push({ path: joinPath(path, 'kind'), message: `must be one of ${Object.keys(SPECS).join(', ')}` });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(o)) {
    if (!spec.keys.includes(key))
      issues.push({ path: joinPath(path, key), message: `is not a ${kind} backoff option` });
  }
  if (kind === 'none') return issues.length > before ? undefined : { kind, baseMs: 0, capMs: 0, multiplier: 1 };

  const duration = (key: string, fallback: number | undefined): number | undefined => {
    const keyPath = joinPath(path, key);
    if (o[key] !== undefined) return collectDuration(o[key], keyPath, issues);
    if (fallback === undefined) issues.push({ path: keyPath, message: 'is required' });
    return fallback;
  };
  // A missing or invalid duration always pushes an issue, so past the issue checks below these are numbers.
  const baseMs = duration(spec.base as string, spec.baseDefault) as number;
  if (kind === 'constant') {
    return issues.length > before ? undefined : { kind, baseMs, capMs: baseMs, multiplier: 1 };
  }
  const capMs = duration(spec.cap as string, spec.capDefault?.(baseMs ?? 0)) as number;

  let multiplier = kind === 'grpc' ? DEFAULT_GRPC_MULTIPLIER : 2;
  if (o.multiplier !== undefined) {
    const m = o.multiplier;
    if (typeof m !== 'number' || !(m > 0) || m === Number.POSITIVE_INFINITY) {
      issues.push({ path: joinPath(path, 'multiplier'), message: 'must be a finite number > 0' });
    } else {
      multiplier = m;
    }
  }
  // Envoy rejects a zero base_interval; a zero base would never back off.
  if (kind === 'envoy' && baseMs === 0) {
    issues.push({ path: joinPath(path, 'base'), message: 'must be greater than 0' });
  }
  if (capMs < baseMs) issues.push({ path: joinPath(path, spec.cap as string), message: `must be >= ${spec.base}` });
  if (issues.length > before) return undefined;
  return { kind, baseMs, capMs, multiplier };
}

/** Resolves a backoff config to milliseconds; throws ConfigError listing every problem. */
export function resolveBackoff(config: BackoffConfig): ResolvedBackoff {
  const issues: ConfigIssue[] = [];
  const resolved = validateBackoffConfig(config, 'backoff', issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}

/** min(cap, base · multiplier^n), safe when multiplier^n overflows (never NaN, never above cap). */
function ceilingMs(baseMs: number, capMs: number, multiplier: number, n: number): number {
  // `|| 0`: the product is NaN only for a zero base times an overflowed power (0 · ∞), and a zero base stays zero.
  return Math.min(baseMs * multiplier ** n, capMs) || 0;
}

/**
 * Envoy's JitteredExponentialBackOffStrategy as coded (source/common/common/backoff_strategy.cc):
 * next_1 = base; wait = randomInt mod next_n; next_{n+1} = next_n < max/2 ? 2·next_n : max.
 * (Envoy's docs say [0, (2^N − 1)·base); the code, reproduced here, draws from [0, base·2^(N−1)).)
 */
export function envoyBackoffDelay(baseMs: number, maxMs: number, retry: number, randomInt: number): number {
  // A zero, negative or NaN base never grows (and x mod 0 is NaN); a NaN max would never be reached.
  // @eq backoff-basems-maxms
  if (!(baseMs > 0 && maxMs >= 0)) return 0;
  let next = baseMs;
  // Once next is max it stays max, so stop there: at most ~log2(max/base) steps, whatever `retry` is.
  // @eq backoff-next-next-maxms-next
  for (let n = 1; n < retry && next !== maxMs; n++) next = next < maxMs / 2 ? next * 2 : maxMs;
  // NaN (next 0 or non-numeric input) or a negative randomInt: no wait rather than a poisoned timer.
  return Math.max(randomInt % next, 0) || 0;
}

/**
 * Delay before retry number `retry` (1 = the first retry, after attempt 1 failed). `previousDelayMs` is the
 * previous wait (0 before the first retry; decorrelated jitter reads it from the second retry on); `u` a draw in [0, 1). Pure, allocation-free; the result is finite,
 * >= 0 and <= backoffBoundMs(b). Out-of-range inputs are clamped: u to [0, 1], retry to >= 1.
 */
export function backoffDelay(b: ResolvedBackoff, retry: number, previousDelayMs: number, u: number): number {
  // `|| x` maps NaN (which Math.min/max propagate) to the low end.
  const r = Math.min(Math.max(u, 0), 1) || 0;
  const n = Math.max(retry, 1) || 1;
  switch (b.kind) {
    case 'constant':
      return b.baseMs;
    case 'exponential':
      return ceilingMs(b.baseMs, b.capMs, b.multiplier, n);
    case 'full-jitter':
      // The seed: uniform(0, min(cap, base · 2^attempt)), so 50 ms / 500 ms gives U(0, 100 ms) on the first retry.
      // @ko full-jitter
      return r * ceilingMs(b.baseMs, b.capMs, b.multiplier, n);
    case 'equal-jitter': {
      const half = ceilingMs(b.baseMs, b.capMs, b.multiplier, n) / 2;
      return half + r * half;
    }
    case 'decorrelated-jitter': {
      // AWS architecture blog ("Exponential Backoff And Jitter"): sleep starts at base, then each wait is
      // sleep = min(cap, U(base, 3 · sleep)). So the first retry draws from [base, 3·base], not exactly base (which
      // would bring every client back in one wave); a restarted backoff (n = 1 again) starts from base too.
      // Clamping 3·previous to a finite value keeps u = 0 at base (0 · ∞ would be NaN) without changing any draw.
      // @ko decorrelated-first-from-base
      const sleepMs = n === 1 ? b.baseMs : previousDelayMs;
      const hi = Math.max(b.baseMs, Math.min(3 * sleepMs, Number.MAX_VALUE) || 0);
      return Math.min(b.baseMs + r * (hi - b.baseMs), b.capMs);
    }
    case 'envoy':
      return envoyBackoffDelay(b.baseMs, b.capMs, n, Math.floor(r * TWO_POW_32));
    case 'grpc':
      // gRPC A6 (current text): min(initial · mult^(n−1), max) · U(0.8, 1.2).
      return ceilingMs(b.baseMs, b.capMs, b.multiplier, n - 1) * (0.8 + 0.4 * r);
    default:
      return 0;
  }
}

/** The largest delay `backoffDelay(b, …)` can return for any retry, previous delay and draw. */
export function backoffBoundMs(b: ResolvedBackoff): number {
  // none resolves with cap 0 and constant with cap = delay, so only gRPC's jitter above max needs its own case.
  return b.kind === 'grpc' ? 1.2 * b.capMs : b.capMs;
}
