// The lab's --scale: a variant's model with its rates and pool sizes shrunk together, for the lab and the simulator alike.

import type { ConcurrencyBreakerConfig } from '../policy/upstream/concurrency.js';
import type { ModelSpec } from '../sim/scenario/types.js';

/** A count scaled and rounded, never below 1 (a pool of 0 connections serves nobody). */
function scaledCount(n: number, scale: number): number {
  return Math.max(1, Math.round(n * scale));
}

function scaledLimits(limits: ConcurrencyBreakerConfig | null, scale: number): ConcurrencyBreakerConfig | null {
  if (limits === null) return null;
  const out: ConcurrencyBreakerConfig = { ...limits };
  for (const key of ['maxConnections', 'maxPendingRequests', 'maxRequests', 'maxRetries'] as const) {
    const value = limits[key];
    if (typeof value === 'number') out[key] = scaledCount(value, scale);
  }
  return out;
}

/**
 * `model` at `scale` (0 < scale ≤ 1): user arrival rates × scale; every pool of concurrent work (a service's workers,
 * a fault's workers, the edges' concurrency limits) and every bounded queue × scale, rounded, at least 1. Times
 * (service times, patience, timeouts, backoff) and ratios (error rates, budget ratios) are unchanged, so utilisation,
 * queueing delay and the retry loop's arithmetic stay what they were: a 50-connection pool at 700 req/s and a
 * 5-connection pool at 70 req/s are both 70 % busy. Rounding can move a ratio (15 of 50 connections at 0.1 is 2 of
 * 5): the simulator runs the same scaled model, so lab and simulator compare like with like.
 */
export function scaleModel(model: ModelSpec, scale: number): ModelSpec {
  if (!(scale > 0 && scale <= 1)) throw new RangeError(`scale must be in (0, 1], got ${scale}`);
  if (scale === 1) return model;
  return {
    ...model,
    traffic: model.traffic.map((t) => ({ ...t, ratePerS: t.ratePerS * scale })),
    services: model.services.map((s) => {
      if (s.shed === null) return s;
      const queueLimit = s.shed.queueLimit;
      return {
        ...s,
        shed: {
          ...s.shed,
          // @ko lab-scale-pools
          workers: scaledCount(s.shed.workers, scale),
          ...(typeof queueLimit === 'number' && Number.isFinite(queueLimit)
            ? { queueLimit: queueLimit === 0 ? 0 : scaledCount(queueLimit, scale) }
            : {}),
        },
      };
    }),
    edges: model.edges.map((e) => ({ ...e, limits: scaledLimits(e.limits, scale) })),
    faults: model.faults.map((f) => (f.workers === null ? f : { ...f, workers: scaledCount(f.workers, scale) })),
  };
}
