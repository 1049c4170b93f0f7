// A refusal as a service without Seawall sends it: the one rule the simulated services and the lab's plain ones apply.

import { RETRY_AFTER_HEADER } from '../../policy/hop/hop.js';

/** Per refusal (hop.ts keeps one headers object per Refusal), what a plain server keeps of it. */
const WITHOUT_SEAWALL = new WeakMap<object, Readonly<Record<string, string>> | null>();

/**
 * The headers of a refusal (the LoadShedder's 503, a deadline drop) by a service without Seawall: the standard
 * Retry-After only, or null when the refusal has none. A plain server reads no hop header and writes none either:
 * no retry-after-ms, no claims, no marker. Cached per refusal, so the simulator allocates nothing per request.
 */
export function refusalWithoutSeawall(
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> | null {
  let plain = WITHOUT_SEAWALL.get(headers);
  if (plain === undefined) {
    const retryAfter = headers[RETRY_AFTER_HEADER];
    // @ko plain-refusal-retry-after-only
    plain = retryAfter === undefined ? null : Object.freeze({ [RETRY_AFTER_HEADER]: retryAfter });
    WITHOUT_SEAWALL.set(headers, plain);
  }
  return plain;
}
