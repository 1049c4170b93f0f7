// The claim headers of a handler's answer, decided once for every server adapter (node:http/Express, Fastify, Hono).

import { answerClaimHeaders, CLAIM_HEADER, CRITERIA_MET_HEADER } from '../policy/hop.js';
import type { SeawallContext } from './context.js';

/**
 * The claim headers to add to a handler's answer (semantics.md §6, policy/hop.ts answerClaimHeaders), or null for
 * none: below 500, or when the handler marked the answer itself (`handlerSet(name)` says it set that header: the
 * handler's own marking always wins). Otherwise a 5xx is the service's own error, claimed ("1"), unless a call made
 * inside `request` failed (Seawall's client set `request.relayed`): then the answer relays it and is marked as that
 * call said ("0", or "0" + `x-seawall-retry-criteria-met: 1`). A relaying hop never claims.
 *
 * The middleware's own refusals (503 queue full, 504 expired) never come here: they are claimed (hop.ts Refusal).
 */
export function handlerClaimHeaders(
  status: number,
  request: SeawallContext | undefined,
  handlerSet: (name: string) => boolean,
): Readonly<Record<string, string>> | null {
  if (status < 500 || handlerSet(CLAIM_HEADER) || handlerSet(CRITERIA_MET_HEADER)) return null;
  return answerClaimHeaders(status, request?.relayed ?? null);
}
