// A service's answer after its calls: the one rule the simulated services (caller.ts) and the lab's (lab/service.ts) apply.

import { relayedStatus } from '../../policy/hop/hop.js';

/** answerAfterCall: parallel calls still out; nothing to answer yet. */
export const CALLS_WAIT = -1;
/** answerAfterCall: sequential calls; make the next one. */
export const CALLS_NEXT = -2;

/**
 * The status a call's end gives its service to answer with: 0 when the call succeeded or is optional (it decides
 * nothing), else the status it relays (what the last attempt got, 504 when it got none: hop.ts relayedStatus).
 */
export function requiredFailure(succeeded: boolean, optional: boolean, lastStatus: number): number {
  return succeeded || optional ? 0 : relayedStatus(lastStatus);
}

/**
 * What a service does when its call number `index` (of `callCount`) ends with `failure` (requiredFailure's value):
 * answer now (the status), make the next call (CALLS_NEXT, sequential calls) or wait (CALLS_WAIT, parallel calls
 * still out: `othersOut`, started or not yet started).
 *
 * The first required call to fail answers the service's request AT ONCE, with the status it relays, for parallel
 * calls as for sequential ones: a real service awaiting `Promise.all` over its calls is rejected by the first failure
 * and answers then, without waiting for its siblings. From that answer on the service no longer holds a worker for
 * the request (the simulator's World.finish, the lab's release), and the siblings still out are NOT cancelled by it
 * (Promise.all cancels nothing): each runs on until its own call ends, or until cancellation stops it (the
 * simulator's `cancellation: true`; over HTTP, Seawall's inbound signal when the client goes or the deadline passes).
 * Their work is nobody's any more: the wasted-work rule (wasted.ts) counts it wasted, since the request it was made
 * for is no longer handled. Only when every call succeeded (or failed optionally) does the service answer 200.
 */
export function answerAfterCall(
  parallel: boolean,
  failure: number,
  index: number,
  callCount: number,
  othersOut: boolean,
): number {
  // @ko service-answer-fail-fast
  if (failure !== 0) return failure;
  if (parallel) return othersOut ? CALLS_WAIT : 200;
  return index + 1 < callCount ? CALLS_NEXT : 200;
}
