// Cancellation (only when a scenario sets `cancellation: true`): callers withdraw what they stopped waiting for.

import { ABANDONED, ABORTED, CALLING, CANCELLED, QUEUED, type Request, WAITING, WORKING } from './records.js';

export interface CancelHost {
  readonly engine: { readonly nowMs: number };
  /** Ends a request's handling without an answer: frees its worker and counts the work. */
  finish(request: Request): void;
}

/** The caller hung up on this attempt: the callee drops it (or, if it has not arrived yet, never starts it). */
export function cancelAttempt(host: CancelHost, attempt: Request): void {
  attempt.reply = CANCELLED;
  cancelRequest(host, attempt);
}

/** Drops queued work (LoadShedder.cancel), stops downstream calls; work on a worker runs to its end. */
export function cancelRequest(host: CancelHost, request: Request): void {
  switch (request.state) {
    case QUEUED: {
      const shedder = request.instance.shedder;
      if (request.slot >= 0 && shedder?.cancelQueued(request.slot, request)) host.finish(request);
      break;
    }
    case WORKING:
      request.state = ABORTED;
      break;
    case CALLING:
      abortCalls(host, request);
      host.finish(request);
      break;
  }
}

/** Aborts a request's calls in progress (RetryCall.abort) and cancels their attempts still out. */
export function abortCalls(host: CancelHost, parent: Request): void {
  const calls = parent.calls === null ? [] : Array.isArray(parent.calls) ? parent.calls : [parent.calls];
  for (const call of calls) {
    if (call.done) continue;
    call.done = true;
    call.retry.abort(host.engine.nowMs);
    // The guard pipeline ends what the call holds: its attempt still out (as aborted), or the retry it held through
    // its backoff (never made).
    call.edge.guards.pipeline.callEnded(call, host.engine);
    const attempt = call.attempt;
    call.attempt = null;
    if (attempt !== null && attempt.reply === WAITING) {
      attempt.reply = ABANDONED;
      attempt.call = null;
      cancelAttempt(host, attempt);
    }
  }
}
