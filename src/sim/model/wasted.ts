// Wasted work: the one rule that decides whether a finished execution could still have served a waiting user.

import { CALLING, ENTRY, type Request, WAITING } from './records.js';

/**
 * The chain from an execution up to its user, as the simulator's records or the lab's logs know it. A link is the
 * request that brought an execution: either the user's own request at the entry service, or an attempt some caller
 * made while handling a request of its own. `atMs` is the instant the execution finished (the simulator reads its
 * records at that instant and ignores it; the lab compares the logged times with it).
 */
export interface WorkChain<L> {
  /** Is `link` the user's own request (the top of the chain)? */
  isUser(link: L): boolean;
  /** The user of that request still waits at `atMs` (not answered nor gone). */
  userWaits(link: L, atMs: number): boolean;
  /** The caller still awaits this attempt's answer at `atMs` (not timed out, aborted, cancelled; its call not ended). */
  awaited(link: L, atMs: number): boolean;
  /** The request the caller made this attempt for is still being handled at `atMs` (a sibling's failure ends it). */
  callerHandling(link: L, atMs: number): boolean;
  /** The link that brought the caller's request. */
  up(link: L): L;
}

/** Deeper than any call graph: a chain that long is a loop in broken logs, and nobody waits at its end. */
const MAX_CHAIN_LINKS = 64;

/**
 * Wasted work, defined once for the simulator and the lab (`seawall lab` reads the same rule off its logs through
 * its own WorkChain, src/lab/metrics.ts).
 *
 * An execution (one that took a worker; counted at the deepest service for `wastedWorkFraction`, and per service in
 * the timeseries' `wasted`) is WASTED when, at the instant it finishes, its result can no longer reach a waiting
 * user: the user request has ended (answered, or the user gave up at their patience), or some attempt on the chain
 * from the user down to this execution is no longer awaited by the caller that sent it (that caller's attempt timed
 * out, was aborted or cancelled, or the caller's own call ended), at ANY level, not only the direct caller, or the
 * request that attempt was made for is no longer being handled (a parallel sibling's failure answered it, or it was
 * cancelled). Otherwise it is useful (even if its answer is later lost for another reason).
 */
export function wastedOnChain<L>(chain: WorkChain<L>, execution: L, atMs: number): boolean {
  let link = execution;
  for (let links = 0; links < MAX_CHAIN_LINKS; links++) {
    if (chain.isUser(link)) return !chain.userWaits(link, atMs);
    if (!chain.awaited(link, atMs) || !chain.callerHandling(link, atMs)) return true;
    // @ko sim-wasted-whole-chain
    link = chain.up(link);
  }
  return true;
}

/**
 * The simulator's chain: a Request's `reply` says whether its caller still waits (caller.ts and cancel.ts clear
 * `Request.call` when it stops), its Call whether the call ended, the Call's parent whether it is still CALLING. It
 * allocates nothing.
 */
const SIM_CHAIN: WorkChain<Request> = {
  isUser: (request) => request.reply === ENTRY,
  userWaits: (request) => !request.user.ended,
  awaited: (request) => request.reply === WAITING && request.call !== null && !request.call.done,
  callerHandling: (request) => (request.call as NonNullable<Request['call']>).parent.state === CALLING,
  up: (request) => (request.call as NonNullable<Request['call']>).parent,
};

/** Is the simulated execution `request` wasted? Call it before anything else marks it done or answered. */
export function isWasted(request: Request): boolean {
  return wastedOnChain(SIM_CHAIN, request, 0);
}
