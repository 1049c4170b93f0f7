// Wasted work: the one rule that decides whether a finished execution could still have served a waiting user.

import { CALLING, ENTRY, type Request, WAITING } from './records.js';

/**
 * Wasted work, defined once for the simulator and the lab (`seawall lab` uses the same rule, read off its logs).
 *
 * An execution (one that took a worker; counted at the deepest service for `wastedWorkFraction`, and per service in
 * the timeseries' `wasted`) is WASTED when, at the instant it finishes, its result can no longer reach a waiting
 * user: the user request has ended (answered, or the user gave up at their patience), or some attempt on the chain
 * from the user down to this execution is no longer awaited by the caller that sent it (that caller's attempt timed
 * out, was aborted or cancelled, or the caller's own call ended), at ANY level, not only the direct caller.
 * Otherwise it is useful (even if its answer is later lost for another reason).
 *
 * The walk goes up from `request` (the execution) through the Call that sent it to the parent Request whose handling
 * made that call, and so on up to the user's request at the entry service. A link is awaited when the attempt is
 * still WAITING for its answer (not answered, timed out, abandoned or cancelled: caller.ts and cancel.ts clear
 * `Request.call` then), its call has not ended, and the parent is still CALLING, i.e. its own handling has not ended
 * (a parallel sibling's failure answered it, or it was cancelled). The chain is as long as the call graph is deep; it
 * allocates nothing. Call it before anything else marks the execution's own request done or answered.
 */
export function isWasted(request: Request): boolean {
  if (request.user.ended) return true;
  let attempt = request;
  for (;;) {
    const reply = attempt.reply;
    if (reply === ENTRY) return false; // the user's own request, and the user still waits
    if (reply !== WAITING) return true; // answered, timed out, abandoned or cancelled: its caller has moved on
    const call = attempt.call;
    if (call === null || call.done) return true;
    const parent = call.parent;
    if (parent.state !== CALLING) return true;
    attempt = parent;
  }
}
