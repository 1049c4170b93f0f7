// Attempt outcomes as the policy sees them, shared per (status, Retry-After) so a run does not allocate one per response.

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
  private readonly byStatusAndHint = new Map<string, number>();

  /** The index of a response outcome. */
  index(status: number, retryAfter: string | null): number {
    if (retryAfter === null) {
      const known = this.byStatus.get(status);
      if (known !== undefined) return known;
      this.byStatus.set(status, this.outcomes.length);
      return this.outcomes.push(Object.freeze({ kind: 'response', status })) - 1;
    }
    const key = `${status} ${retryAfter}`;
    const known = this.byStatusAndHint.get(key);
    if (known !== undefined) return known;
    this.byStatusAndHint.set(key, this.outcomes.length);
    return this.outcomes.push(Object.freeze({ kind: 'response', status, retryAfter })) - 1;
  }

  at(index: number): ResponseOutcome {
    return this.outcomes[index] as ResponseOutcome;
  }
}
