// The meaning of a call's settings as plain data, so two spellings (a scenario, a mesh read back) can be compared.

import type { ResolvedLoadShedderConfig } from '../policy/admission/shed-config.js';
import { validateRetryConfig } from '../policy/retry/retry-config.js';
import { callDeadlineMs, effectiveAttempts } from '../policy/retry/retry-facts.js';
import { DEFAULT_PANIC_THRESHOLD } from '../policy/upstream/balancer.js';
import { validateConcurrencyBreakerConfig } from '../policy/upstream/concurrency.js';
import { validateOutlierDetectionConfig } from '../policy/upstream/outlier-config.js';
import { UINT32_MAX } from './envoy/defaults.js';
import { canonicalRetryOn, hasUnsafeConditions } from './retry-on.js';

/**
 * A call's settings as the mesh sees them: only what changes behaviour (retry-only settings vanish when the call
 * makes one attempt; max_retries when the limits' retry budget replaces it; limits at UINT32_MAX are no limits).
 */
export function canonicalCall(block: Record<string, unknown>, attemptsOverride?: number): Record<string, unknown> {
  const { seawall, oneLayer, limits, outlierDetection, loadBalancer, circuitBreaker, ...retry } = block;
  const c = validateRetryConfig(retry).config;
  if (c === undefined) throw new Error(`not a valid retry policy: ${JSON.stringify(retry)}`);
  const attempts = attemptsOverride ?? effectiveAttempts(c);
  const out: Record<string, unknown> = {
    maxAttempts: attempts,
    deadline: callDeadlineMs(c),
    propagateDeadline: seawall !== false && c.propagateDeadline,
  };
  const l = limits === undefined || limits === false ? undefined : validateConcurrencyBreakerConfig(limits, '', []);
  if (attempts > 1) {
    out.perTryTimeout = Number.isFinite(c.perTryTimeoutMs) ? c.perTryTimeoutMs : null;
    out.backoff = { kind: c.backoff.kind, baseMs: c.backoff.baseMs, capMs: c.backoff.capMs };
    // Envoy has one retry budget per upstream, in its circuit breakers: the policy's percent budget and the limits'
    // retryBudget say the same thing there.
    out.budget =
      c.budget !== null && c.budget.kind !== 'none'
        ? c.budget
        : l?.retryBudget
          ? { kind: 'percent', ...l.retryBudget }
          : null;
    out.retryOn = canonicalRetryOn(c.retryOn);
    out.honorRetryAfter = c.honorRetryAfter ? c.maxRetryAfterMs : false;
    out.retryNonIdempotent = c.retryNonIdempotent && hasUnsafeConditions(c.retryOn);
  }
  if (l !== undefined) {
    // max_retries counts only without a retry budget in the same thresholds (circuit_breaker.proto).
    const budgeted = l.retryBudget !== null;
    const values = {
      maxConnections: l.maxConnections,
      maxPendingRequests: l.maxPendingRequests,
      maxRequests: l.maxRequests,
      ...(budgeted ? {} : { maxRetries: l.maxRetries }),
    };
    if (!Object.values(values).every((v) => v >= UINT32_MAX)) out.limits = values;
  }
  if (outlierDetection !== undefined && outlierDetection !== false) {
    const od = validateOutlierDetectionConfig(outlierDetection, '', []);
    if (od !== undefined) {
      const { maxHosts, ...rest } = od;
      out.outlierDetection = rest;
    }
  }
  const lb = (loadBalancer ?? {}) as { kind?: string; panicThreshold?: number };
  out.loadBalancer = { kind: lb.kind ?? 'round-robin', panicThreshold: lb.panicThreshold ?? DEFAULT_PANIC_THRESHOLD };
  if (circuitBreaker !== undefined && circuitBreaker !== false) out.circuitBreaker = true;
  return out;
}

/** A service's limits in front of the process (as the simulator resolved them); null when it has none. */
export function canonicalService(s: {
  workers?: number;
  queueLimit?: number;
  shed: ResolvedLoadShedderConfig | null;
}): Record<string, unknown> | null {
  if (s.workers === undefined && s.queueLimit === undefined) return null;
  return { workers: s.workers ?? null, queueLimit: s.queueLimit ?? null, retryAfter: s.shed?.retryAfterMs ?? null };
}

/** Dotted paths of the leaves where `a` and `b` differ. */
export function diffPaths(a: unknown, b: unknown, prefix = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffPaths(a[k], b[k], prefix === '' ? k : `${prefix}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}
