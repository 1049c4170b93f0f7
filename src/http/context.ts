// The inbound request's context (deadline, hop, cancellation) carried through async code with AsyncLocalStorage.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { RelayedClaim } from '../policy/ownership.js';

/** What an outbound call inherits from the inbound request being handled. */
export interface SeawallContext {
  /** Absolute deadline of the inbound request (epoch ms), or null when it has none. */
  readonly deadlineMs: number | null;
  /** The inbound request came from another Seawall hop (it carried the attempt header): retry at one layer only. */
  readonly fromSeawallHop: boolean;
  /** Fires when the inbound request's deadline passes or its client goes away. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Set by Seawall's client when a call made inside this request fails: how an error answer relaying it is marked
   * (policy/ownership.ts; a relaying hop never claims). The middleware reads it when the handler answers with a 5xx.
   */
  relayed?: RelayedClaim | null;
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
