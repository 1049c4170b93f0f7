// Attempt outcomes as the policy sees them, shared per status so a run does not allocate one per response.

import type { Outcome } from '../../policy/types.js';

export const TIMEOUT_OUTCOME: Outcome = Object.freeze({ kind: 'timeout' });

export class OutcomeCache {
  private readonly byStatus = new Map<number, Outcome>();

  /** A response outcome; `retryAfter` is the raw header value, as the HTTP driver would pass it. */
  response(status: number, retryAfter: string | null): Outcome {
    if (retryAfter !== null) return { kind: 'response', status, retryAfter };
    let outcome = this.byStatus.get(status);
    if (outcome === undefined) {
      outcome = Object.freeze({ kind: 'response', status });
      this.byStatus.set(status, outcome);
    }
    return outcome;
  }
}
