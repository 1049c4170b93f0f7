// Attempt outcomes as the policy sees them, shared per (status, refusal headers) so a run does not allocate one per response.

import { responseOutcome } from '../../policy/hop.js';
import type { Outcome } from '../../policy/types.js';

export const TIMEOUT_OUTCOME: Outcome = Object.freeze({ kind: 'timeout' });

export type ResponseOutcome = Extract<Outcome, { kind: 'response' }>;

/**
 * Every distinct response outcome of a run gets a small integer, so a response event carries its outcome in the
 * engine's numeric `arg` and the request message needs no field for it. There are only a handful per run.
 */
export class OutcomeTable {
  private readonly outcomes: ResponseOutcome[] = [];
  private readonly byStatus = new Map<number, number>();
  /** `retryAfter` is the raw header value, as the HTTP driver would pass it. */
  /** Keyed by the headers object of a callee's refusal (shared and frozen per shedder config: a handful per run). */
  private readonly byHeaders = new Map<Readonly<Record<string, string>>, number>();

  /**
   * The index of a response outcome. `headers`: what the callee sent besides the status (a refusal's Retry-After and
   * retry-after-ms), read by the policy's one response reader exactly as the HTTP drivers read real headers.
   */
  index(status: number, headers: Readonly<Record<string, string>> | null): number {
    if (headers === null) {
      const known = this.byStatus.get(status);
      if (known !== undefined) return known;
      this.byStatus.set(status, this.outcomes.length);
      return this.outcomes.push(Object.freeze({ kind: 'response', status })) - 1;
    }
    const known = this.byHeaders.get(headers);
    if (known !== undefined) return known;
    this.byHeaders.set(headers, this.outcomes.length);
    const outcome = responseOutcome(status, (name) => headers[name]) as ResponseOutcome;
    return this.outcomes.push(Object.freeze(outcome)) - 1;
  }

  at(index: number): ResponseOutcome {
    return this.outcomes[index] as ResponseOutcome;
  }
}
