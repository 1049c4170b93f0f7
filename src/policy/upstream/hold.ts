// What one call holds of its upstream's guards (endpoint, breaker permit, limit slots) and why a guard refused it.

import type { BreakerPermit } from './breaker.js';
import type { ConcurrencyPermit } from './concurrency.js';

/**
 * Why an attempt was refused before any network I/O (the policy's `shed-locally` outcome): the circuit breaker is open
 * or its half-open probes are all out, a concurrency cap is reached (Envoy's circuit_breakers), or every endpoint is
 * ejected with the panic threshold at 0 (Envoy's "no healthy upstream"), or the adaptive throttle drew a local
 * refusal (`throttled`: the callee has been answering "too much").
 */
export type UpstreamRefusal =
  | 'breaker-open'
  | 'breaker-half-open-full'
  | 'max-pending'
  | 'max-requests'
  | 'max-retries'
  | 'no-healthy-endpoint'
  | 'throttled';

export const UPSTREAM_REFUSALS: readonly UpstreamRefusal[] = [
  'breaker-open',
  'breaker-half-open-full',
  'max-pending',
  'max-requests',
  'max-retries',
  'no-healthy-endpoint',
  'throttled',
];

export function zeroRefusals(): Record<UpstreamRefusal, number> {
  return Object.fromEntries(UPSTREAM_REFUSALS.map((r) => [r, 0])) as Record<UpstreamRefusal, number>;
}

/**
 * The permits of one call, written only by GuardPipeline: the endpoint, breaker permit and concurrency slot of the
 * attempt in flight, and the retry slot held from a retry's decision to its attempt's end (Envoy holds max_retries
 * over the backoff too). A driver keeps these fields on its own per-call object (the simulator's Call, the HTTP
 * client's CallAdmission), so admitting an attempt allocates nothing.
 */
export interface GuardHold {
  /** The balancer's endpoint of the attempt in flight, or of the last one (a retry avoids it); -1 before the first. */
  endpoint: number;
  breakerPermit: BreakerPermit | null;
  /** The attempt's 'request' (or 'pending') slot of the limits. */
  slot: ConcurrencyPermit | null;
  /** The limits' 'retry' slot, from a retry's decision until its attempt ends (or the call does). */
  retrySlot: ConcurrencyPermit | null;
  /** The balancer counts an attempt in flight to `endpoint` (and the detector will hear of its result). */
  started: boolean;
  /** The attempt in flight is a retry (counted in the pipeline's retries). */
  retried: boolean;
  /** Admitted with a pool view, not yet reported sent (GuardPipeline.sent): not counted in upstream_rq_total yet. */
  unsent: boolean;
  /** The attempt in flight was counted sent by the adaptive throttle, which will hear how it ended. */
  throttleCounted: boolean;
  /** Why the last attempt or retry was refused, if it was. */
  refusal: UpstreamRefusal | null;
}
