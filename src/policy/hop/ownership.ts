// Error ownership (Uber, semantics.md §6): who may retry an error, and what a failed call tells the hop above it.

import type { Claim, HeaderValue } from '../core/types.js';

export type { Claim } from '../core/types.js';

/** Response header: "1" = an error the responding service produced itself (claimed), "0" = one it relayed (unclaimed). */
export const CLAIM_HEADER = 'x-seawall-claimed';
/**
 * Response header of the at-least-once guarantee ("1"): the retry criteria were met downstream and no hop has retried
 * yet, so the next hop up that has retries configured may retry. Sent by a hop without retries that relays a claimed
 * error; never sent together with a claim.
 */
export const CRITERIA_MET_HEADER = 'x-seawall-retry-criteria-met';

/** What a hop marks a relayed error with: a relaying hop never claims. */
export type RelayedClaim = 'criteria-met' | 'unclaimed';

/** One row of the ownership table: may this caller retry, and what it sends up if the call still fails. */
export interface OwnershipRow {
  readonly retry: boolean;
  readonly passUp: RelayedClaim;
}

const RETRY_THEN_UNCLAIM: OwnershipRow = Object.freeze({ retry: true, passUp: 'unclaimed' });
const PASS_CRITERIA_MET: OwnershipRow = Object.freeze({ retry: false, passUp: 'criteria-met' });
const UNCLAIMED: OwnershipRow = Object.freeze({ retry: false, passUp: 'unclaimed' });

/**
 * The decision table (semantics.md §6), one row per case:
 *
 * | received       | retries configured | retry | passes up if it still fails |
 * |----------------|--------------------|-------|-----------------------------|
 * | claimed        | yes                | yes   | unclaimed                   |
 * | claimed        | no                 | no    | criteria-met (at least once)|
 * | criteria-met   | yes                | yes   | unclaimed                   |
 * | criteria-met   | no                 | no    | criteria-met                |
 * | unclaimed      | any                | no    | unclaimed                   |
 * | absent         | yes                | yes   | unclaimed (nearest caller)  |
 * | absent         | no                 | no    | unclaimed                   |
 */
export function ownershipDecision(received: Claim, retriesConfigured: boolean): OwnershipRow {
  switch (received) {
    case 'claimed':
    case 'criteria-met':
      // @ko ownership-at-least-once
      return retriesConfigured ? RETRY_THEN_UNCLAIM : PASS_CRITERIA_MET;
    case 'absent':
      return retriesConfigured ? RETRY_THEN_UNCLAIM : UNCLAIMED;
    default:
      return UNCLAIMED;
  }
}

/** One header's single value: undefined when absent, repeated with different values, or not a plain string. */
function single(value: HeaderValue): string | undefined {
  if (typeof value === 'string') return value.trim();
  // @eq ownership-array-isarray-value-value
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const first = value[0];
  if (typeof first !== 'string') return undefined;
  for (let i = 1; i < value.length; i++) if (value[i] !== first) return undefined;
  return first.trim();
}

/**
 * Reads a response's claim headers. Anything but the exact values "1" and "0" is `absent` (a malformed or conflicting
 * claim is no claim: the caller falls back to the nearest-caller row, never to a retry storm). Pass `trusted: false`
 * for a callee outside the trust boundary: its claims and flags are ignored.
 */
export function readClaim(claim: HeaderValue, criteriaMet: HeaderValue, trusted = true): Claim {
  if (!trusted) return 'absent';
  const c = single(claim);
  if (c === '1') return 'claimed';
  if (single(criteriaMet) === '1') return 'criteria-met';
  if (c === '0') return 'unclaimed';
  return 'absent';
}

/**
 * Two marks of one answer (several calls of the request failed): unclaimed wins, so the combination does not depend
 * on the order the calls failed in, and one hop that spent its retries is enough to stop the hops above.
 */
export function combineRelayed(a: RelayedClaim | null, b: RelayedClaim | null): RelayedClaim | null {
  // @eq ownership-a-null-shortcut
  if (a === null) return b;
  // @eq ownership-b-null-shortcut
  if (b === null) return a;
  return a === 'unclaimed' || b === 'unclaimed' ? 'unclaimed' : 'criteria-met';
}

const CLAIMED_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [CLAIM_HEADER]: '1' });
const UNCLAIMED_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [CLAIM_HEADER]: '0' });
const CRITERIA_MET_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  [CLAIM_HEADER]: '0',
  [CRITERIA_MET_HEADER]: '1',
});

/**
 * The claim headers of a 5xx answer. `relayed`: how the failed downstream call the answer relays said to mark it
 * (RetryCall.passUp), or null for the service's own error, which it claims.
 */
export function errorClaimHeaders(relayed: RelayedClaim | null): Readonly<Record<string, string>> {
  if (relayed === null) return CLAIMED_HEADERS;
  return relayed === 'criteria-met' ? CRITERIA_MET_HEADERS : UNCLAIMED_HEADERS;
}
