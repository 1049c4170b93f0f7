// Attempt outcomes as the policy sees them, shared per (status, response headers) so a run does not allocate one per response.

import type { Outcome } from '../../policy/core/types.js';
import { responseOutcome } from '../../policy/hop/hop.js';

export const TIMEOUT_OUTCOME: Outcome = Object.freeze({ kind: 'timeout' });
/** An attempt a local guard refused (an open breaker, a limit's overflow, no endpoint): it never left the caller. */
export const SHED_LOCALLY_OUTCOME: Outcome = Object.freeze({ kind: 'shed-locally' });
/** An attempt out when its call was aborted (cancellation): it says nothing about the callee. */
export const ABORTED_OUTCOME: Outcome = Object.freeze({ kind: 'aborted' });

export type ResponseOutcome = Extract<Outcome, { kind: 'response' }>;

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Every distinct response outcome of a run gets a small integer, so a response event carries its outcome in the
 * engine's numeric `arg` and the request message needs no field for it. There are only a handful per run.
 */
export class OutcomeTable {
  /** As read by a caller that trusts the callee's claims (a Seawall hop). */
  private readonly trusted: ResponseOutcome[] = [];
  /** The same responses read by a caller outside the trust boundary: claims ignored. */
  private readonly untrusted: ResponseOutcome[] = [];
  /** Responses without headers, by status (the common case: one lookup). */
  private readonly plain = new Map<number, number>();
  /** Keyed by the headers object (shared and frozen: a refusal's per shedder config, claims per marking), then status. */
  private readonly byHeaders = new Map<Readonly<Record<string, string>>, Map<number, number>>();

  /**
   * The index of a response outcome. `headers`: what the callee sent besides the status (a refusal's Retry-After and
   * retry-after-ms, claim headers), read by the policy's one response reader exactly as the HTTP drivers read real
   * headers. Pass shared objects: they are interned by identity.
   */
  index(status: number, headers: Readonly<Record<string, string>> | null): number {
    const source = headers ?? NO_HEADERS;
    let byStatus = headers === null ? this.plain : this.byHeaders.get(source);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.byHeaders.set(source, byStatus);
    }
    const known = byStatus.get(status);
    if (known !== undefined) return known;
    const header = (name: string): string | undefined => source[name];
    byStatus.set(status, this.trusted.length);
    this.untrusted.push(Object.freeze(responseOutcome(status, header, false) as ResponseOutcome));
    return this.trusted.push(Object.freeze(responseOutcome(status, header, true) as ResponseOutcome)) - 1;
  }

  /** The outcome as a caller reads it: `trusted` for a Seawall hop, which believes the callee's claims. */
  at(index: number, trusted = true): ResponseOutcome {
    return (trusted ? this.trusted[index] : this.untrusted[index]) as ResponseOutcome;
  }
}
