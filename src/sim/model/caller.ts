// The caller side of the simulated system: calls over a service's edges, each driven by the production RetryCall.

import type { Outcome, StopReason } from '../../policy/core/types.js';
import { answerClaimHeaders, sentDeadlineMs } from '../../policy/hop/hop.js';
import type { CallerHost } from './caller-host.js';
import { abortCalls, cancelAttempt } from './cancel.js';
import { EV_MESSAGE, EV_RETRY, EV_TRY_TIMEOUT } from './events.js';
import { admitAttempt, LOCAL_REFUSAL_STATUS } from './guards.js';
import { SHED_LOCALLY_OUTCOME, TIMEOUT_OUTCOME } from './outcomes.js';
import { ANSWERED, CALLING, Call, type EdgeRuntime, Request, TIMED_OUT, WAITING } from './records.js';
import { answerAfterCall, CALLS_NEXT, CALLS_WAIT, requiredFailure } from './service-answer.js';

export function startCalls(world: CallerHost, request: Request): void {
  request.state = CALLING;
  const edges = request.instance.edges;
  if (!request.instance.service.parallel) {
    startCall(world, request, 0);
    return;
  }
  const calls: Call[] = [];
  request.calls = calls;
  for (let i = 0; i < edges.length; i++) {
    if (request.state !== CALLING) break;
    startCall(world, request, i);
  }
}

/** Starts the call over the parent's `index`th edge. */
function startCall(world: CallerHost, parent: Request, index: number): void {
  const edge = parent.instance.edges[index] as EdgeRuntime;
  // What the inbound request brought (its deadline, the hop marker) shapes the call, as the HTTP client's context does.
  const call = new Call(parent, edge, index, edge.policy.start(world.engine.nowMs, edge.traits, parent));
  if (Array.isArray(parent.calls)) parent.calls.push(call);
  else parent.calls = call;
  nextAttempt(world, call);
}

function nextAttempt(world: CallerHost, call: Call): void {
  // beginAttemptMs() is beginAttempt() without the AttemptPlan object: the plan's perTryTimeoutMs, or -1 to stop.
  const retry = call.retry;
  const timeoutMs = retry.beginAttemptMs(world.engine.nowMs);
  if (timeoutMs < 0) {
    callEnded(world, call, retry.stopReason as StopReason);
    return;
  }
  const edge = call.edge;
  // Between the retry loop and the wire: the breaker, the limits and the balancer's pick (guards.ts).
  const target = admitAttempt(call, world.engine, world.metrics);
  if (target === null) {
    refusedLocally(world, call);
    return;
  }
  // What the attempt sends (hop.ts): the marker on a Seawall hop, and the call's deadline when the policy propagates it.
  const attempt = new Request(
    call,
    target,
    call.parent.user,
    // @ko sim-deadline-propagation
    sentDeadlineMs(retry.deadlineMs, edge.propagate),
    edge.seawall,
  );
  call.attempt = attempt;
  if (timeoutMs !== Number.POSITIVE_INFINITY) world.engine.after(timeoutMs, EV_TRY_TIMEOUT, attempt);
  world.engine.after(world.networkIsZero ? 0 : world.network.sample(), EV_MESSAGE, attempt);
}

/** `outcome` indexes the OutcomeTable: the status and Retry-After the callee answered with. */
export function onResponse(world: CallerHost, attempt: Request, outcome: number): void {
  if (attempt.reply !== WAITING) return;
  attempt.reply = ANSWERED;
  const call = attempt.call as Call;
  attempt.call = null;
  call.attempt = null;
  // A Seawall call reads the callee's claims (hop.ts responseOutcome); a callee without Seawall sends none.
  const edge = call.edge;
  const response = world.outcomes.at(outcome, edge.seawall && edge.callee.seawall);
  call.lastStatus = response.status;
  decide(world, call, response);
}

export function onTryTimeout(world: CallerHost, attempt: Request): void {
  if (attempt.reply !== WAITING) return;
  attempt.reply = TIMED_OUT;
  const call = attempt.call as Call;
  attempt.call = null; // finished callers must not be kept alive by work still queued downstream
  call.attempt = null;
  call.lastStatus = 0;
  // Without cancellation the callee never learns that nobody waits: the incident's "the DB still runs".
  // @ko sim-cancellation
  if (world.cancellation) cancelAttempt(world, attempt);
  decide(world, call, TIMEOUT_OUTCOME);
}

/** What follows the attempt's outcome is the guard pipeline's one step (policy/upstream/pipeline.ts afterOutcome). */
function decide(world: CallerHost, call: Call, outcome: Outcome): void {
  const pipeline = call.edge.guards.pipeline;
  if (call.done) {
    pipeline.attemptEnded(call, outcome, world.engine);
    return;
  }
  // The wait before the retry, or RETRY_STOPPED / RETRY_REFUSED (over max_retries: the call ends on what its last
  // attempt said, as Envoy does); either way stopReason says why. The guards read the time from the engine.
  const waitMs = pipeline.afterOutcome(call, call.retry, outcome, world.engine, world.engine.nowMs);
  if (waitMs < 0) {
    callEnded(world, call, call.retry.stopReason as StopReason);
    return;
  }
  retried(world, call);
  if (waitMs > 0) world.engine.after(waitMs, EV_RETRY, call);
  else nextAttempt(world, call);
}

/**
 * A guard refused the attempt before it left: it ends as the policy's `shed-locally` (never retried), and the caller
 * answers a local 503 (Envoy's overflow answer), marked as relayed like any failed call's answer.
 */
function refusedLocally(world: CallerHost, call: Call): void {
  call.lastStatus = LOCAL_REFUSAL_STATUS;
  decide(world, call, SHED_LOCALLY_OUTCOME);
}

/** Counts the edge once in its user's retry radius (how many hops retried on behalf of one root request). */
function retried(world: CallerHost, call: Call): void {
  const user = call.parent.user;
  const id = call.edge.id;
  if (id < 31) {
    const bit = 1 << id;
    if ((user.retriedMask & bit) !== 0) return;
    user.retriedMask |= bit;
  } else {
    let more = user.retriedMore;
    if (more === null) more = user.retriedMore = [];
    else if (more.includes(id)) return;
    more.push(id);
  }
  // @ko sim-retry-radius
  world.metrics.hopRetried(radiusOf(user));
}

/** Edges counted for `user` so far. */
function radiusOf(user: { retriedMask: number; retriedMore: number[] | null }): number {
  let bits = user.retriedMask;
  let count = 0;
  while (bits !== 0) {
    bits &= bits - 1;
    count++;
  }
  return count + (user.retriedMore === null ? 0 : user.retriedMore.length);
}

export function onRetry(world: CallerHost, call: Call): void {
  if (!call.done) nextAttempt(world, call);
}

function callEnded(world: CallerHost, call: Call, reason: StopReason): void {
  call.done = true;
  // A retry decided but never made (its deadline passed during the backoff) frees its max_retries slot.
  call.edge.guards.pipeline.callEnded(call, world.engine);
  const parent = call.parent;
  if (parent.state !== CALLING) return; // the request already ended (a sibling failed, or it was cancelled)
  const calls = parent.calls;
  const parallel = Array.isArray(calls);
  const count = parent.instance.edges.length;
  // The service's answer after this call (service-answer.ts, as the lab's services apply it).
  const status = requiredFailure(reason === 'succeeded', call.edge.optional, call.lastStatus);
  const others = status === 0 && parallel && !(calls.length === count && allDone(calls));
  const answer = answerAfterCall(parallel, status, call.index, count, others);
  if (answer === CALLS_WAIT) return;
  if (answer === CALLS_NEXT) {
    startCall(world, parent, call.index + 1);
    return;
  }
  if (status === 0) {
    world.respond(parent, 200, null);
    return;
  }
  // A failed required call: the service answers the status it got, marked as relayed (a relaying hop never claims).
  if (world.cancellation && parallel) abortCalls(world, parent);
  const service = parent.instance.service;
  // @ko sim-relayed-unclaimed
  world.respond(parent, status, service.seawall ? answerClaimHeaders(status, call.retry.relayMark) : null);
}

/** Parallel calls: every one has ended. */
function allDone(calls: Call[]): boolean {
  for (let i = 0; i < calls.length; i++) if (!(calls[i] as Call).done) return false;
  return true;
}
