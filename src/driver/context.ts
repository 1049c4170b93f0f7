// The inbound request's context (deadline, hop, cancellation) carried through async code with AsyncLocalStorage.

import { AsyncLocalStorage } from 'node:async_hooks';
import { combineRelayed, type RelayedClaim } from '../policy/hop/ownership.js';

/**
 * Where the calls made inside one inbound request leave their relay mark (policy/ownership.ts): how an error answer
 * relaying their failure is marked. One per inbound request, shared by reference, so a context derived from the
 * request's (`{ ...currentContext()!, deadlineMs }`) marks the same answer. The middleware reads it when the handler
 * answers with a 5xx.
 */
export class RelaySink {
  private mark: RelayedClaim | null = null;

  /** The combined mark of the failed calls so far, or null while none failed (a 5xx is then the service's own). */
  get relayed(): RelayedClaim | null {
    return this.mark;
  }

  /** Adds one call's RetryCall.relayMark (null: nothing to relay). Several marks combine: unclaimed wins. */
  note(mark: RelayedClaim | null): void {
    if (mark !== null) this.mark = combineRelayed(this.mark, mark);
  }

  /**
   * Forgets the failed calls: the handler recovered from them (a fallback) and a 5xx it answers now is its own
   * error, claimed (or marked by its own claim header).
   */
  clear(): void {
    this.mark = null;
  }
}

/** What an outbound call inherits from the inbound request being handled. */
export interface SeawallContext {
  /** Absolute deadline of the inbound request (epoch ms), or null when it has none. */
  readonly deadlineMs: number | null;
  /** The inbound request came from another Seawall hop (it carried the attempt header): retry at one layer only. */
  readonly fromSeawallHop: boolean;
  /** Fires when the inbound request's deadline passes or its client goes away. */
  readonly signal?: AbortSignal | undefined;
  /** The caller's attempt number (`x-seawall-attempt`: 1 = its first try; 2 or more: a retry), or null when unknown. */
  readonly attempt?: number | null | undefined;
  /**
   * The inbound request's relay sink: Seawall's client notes in it how a call made inside the request that failed
   * (a 5xx, or no answer) is to be relayed; the middleware marks the handler's 5xx with it. None in a hand-made
   * context (nothing is marked).
   */
  readonly relay?: RelaySink | undefined;
}

const storage = new AsyncLocalStorage<SeawallContext>();

/** The context of the inbound request being handled, if any. */
export function currentContext(): SeawallContext | undefined {
  return storage.getStore();
}

/** Runs `fn` with `context` as the current context (for everything it awaits or schedules). */
export function runWithContext<R>(context: SeawallContext, fn: () => R): R {
  return storage.run(context, fn);
}
