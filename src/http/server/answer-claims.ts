// The claim headers of a handler's answer, decided once for every server adapter (node:http/Express, Fastify, Hono).

import type { SeawallContext } from '../../driver/context.js';
import { answerClaimHeaders, CLAIM_HEADER, CRITERIA_MET_HEADER } from '../../policy/hop/hop.js';

/** Every claim header an answer can carry (lower case). */
export const CLAIM_HEADERS: readonly string[] = Object.freeze([CLAIM_HEADER, CRITERIA_MET_HEADER]);

/** What an adapter does to a handler's 5xx: set these headers (over any value there), remove these claim headers. */
export interface ClaimEdit {
  readonly set: Readonly<Record<string, string>>;
  readonly remove: readonly string[];
}

/** One edit per marking (the policy's header objects are shared constants): no allocation per answer. */
const EDITS = new WeakMap<Readonly<Record<string, string>>, ClaimEdit>();

function claimEdit(set: Readonly<Record<string, string>> | null): ClaimEdit | null {
  if (set === null) return null;
  let edit = EDITS.get(set);
  if (edit === undefined) {
    edit = Object.freeze({ set, remove: Object.freeze(CLAIM_HEADERS.filter((name) => !(name in set))) });
    EDITS.set(set, edit);
  }
  return edit;
}

/**
 * The claim headers of a handler's answer (semantics.md §6, policy/hop.ts answerClaimHeaders), or null to leave it
 * as it is (below 500 it is never marked).
 * - A call made inside `request` failed (its relay sink holds a mark, context.ts): the answer relays it and carries
 *   exactly that marking ("0", or "0" + `x-seawall-retry-criteria-met: 1`), whatever claim headers it already has:
 *   a handler forwarding the downstream's answer as is copied the callee's claim, which must never go up.
 * - None failed: the handler's own claim header wins (`handlerSet(name)` says it set that header); else the 5xx is
 *   the service's own error, claimed ("1").
 *
 * The middleware's own refusals (503 queue full, 504 expired) never come here: they are claimed (hop.ts Refusal).
 */
export function handlerClaimHeaders(
  status: number,
  request: SeawallContext | undefined,
  handlerSet: (name: string) => boolean,
): ClaimEdit | null {
  if (status < 500) return null;
  const relayed = request?.relay?.relayed ?? null;
  if (relayed === null && (handlerSet(CLAIM_HEADER) || handlerSet(CRITERIA_MET_HEADER))) return null;
  // @ko http-answer-claims
  return claimEdit(answerClaimHeaders(status, relayed));
}
