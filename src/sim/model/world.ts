// The simulated system: traffic, services and callers as event handlers that drive the production RetryPolicy and LoadShedder.

import { createRandom } from '../../policy/random.js';
import { type LoadShedder, OFFER_QUEUED, OFFER_REJECT, OFFER_RUN } from '../../policy/shed.js';
import type { Outcome, RequestTraits, StopReason } from '../../policy/types.js';
import { Engine, type EventHandler } from '../engine.js';
import { BIN_MS, Metrics, type WindowDef } from '../metrics/collector.js';
import type { FaultSpec, ModelSpec } from '../scenario/types.js';
import { buildServices, buildSources } from './build.js';
import { abortCalls, cancelAttempt, cancelRequest } from './cancel.js';
import { Sampler as DistSampler, exponential, type Sampler } from './distributions.js';
import { applyFaults, type FaultTarget, sampleBin } from './faults.js';
import { OutcomeTable, TIMEOUT_OUTCOME } from './outcomes.js';
import {
  ABORTED,
  ANSWERED,
  CALLING,
  CANCELLED,
  Call,
  DONE,
  type EdgeRuntime,
  ENTRY,
  type Instance,
  QUEUED,
  Request,
  type ServiceRuntime,
  TIMED_OUT,
  type TrafficSource,
  UserRequest,
  WAITING,
  WORKING,
} from './records.js';

// Event types: one switch in handle(), no closure per event. Each type has its own FIFO lane in the engine.
const EV_ARRIVAL = 0;
const EV_GIVE_UP = 1;
const EV_MESSAGE = 2;
const EV_WORK_DONE = 3;
const EV_RESPONSE = 4;
const EV_TRY_TIMEOUT = 5;
const EV_RETRY = 6;
const EV_FAULT = 7;

/** Simulated calls are idempotent reads (GET): a timeout or a 5xx may be replayed, as retryOn allows. */
const GET: RequestTraits = Object.freeze({ idempotent: true });

export interface WorldOptions {
  model: ModelSpec;
  durationMs: number;
  windows: readonly WindowDef[];
  seed: number;
}

/**
 * One run of one variant. Every decision about retrying and admitting is made by the policy objects
 * (RetryCall.beginAttempt / onOutcome, LoadShedder.admit / dequeue); this class only moves messages in virtual time.
 */
export class World implements EventHandler, FaultTarget {
  readonly engine = new Engine();
  readonly metrics: Metrics;
  readonly services: ServiceRuntime[];
  readonly sources: TrafficSource[];
  readonly durationMs: number;
  readonly faults: readonly FaultSpec[];
  readonly faultActive: boolean[];
  private readonly network: Sampler;
  private readonly networkIsZero: boolean;
  private readonly cancellation: boolean;
  private readonly outcomes = new OutcomeTable();
  /** End of the next bin whose gauges are still to be sampled. */
  private nextSampleMs = BIN_MS;
  private nextSampleBin = 0;

  constructor(options: WorldOptions) {
    const { model } = options;
    const root = createRandom(options.seed);
    this.durationMs = options.durationMs;
    this.cancellation = model.cancellation;
    this.faults = model.faults;
    this.faultActive = model.faults.map(() => false);
    this.network = new DistSampler(model.networkLatency, root.fork('network'));
    this.networkIsZero = model.networkLatency.dist === 'constant' && model.networkLatency.valueMs === 0;
    this.services = buildServices(model, root);
    this.sources = buildSources(model, this.services, root);
    this.metrics = new Metrics(options.durationMs, options.windows, this.services.length);
  }

  /** Runs the whole duration. */
  run(): void {
    const engine = this.engine;
    for (const source of this.sources) this.scheduleArrival(source);
    this.faults.forEach((fault, i) => {
      engine.at(fault.startMs, EV_FAULT, null, 2 * i);
      engine.at(fault.endMs, EV_FAULT, null, 2 * i + 1);
    });
    engine.run(this.durationMs, this);
    this.sampleUntil(Number.POSITIVE_INFINITY);
    this.metrics.finish();
  }

  /** Gauges at each bin's end: the state left by the last event before the edge (no event per bin needed). */
  private sampleUntil(nowMs: number): void {
    const bins = this.metrics.binCount;
    while (this.nextSampleMs <= nowMs && this.nextSampleBin < bins) {
      sampleBin(this.services, this.metrics, this.nextSampleBin++);
      this.nextSampleMs += BIN_MS;
    }
  }

  handle(type: number, payload: unknown, arg: number): void {
    if (this.engine.nowMs >= this.nextSampleMs) this.sampleUntil(this.engine.nowMs);
    switch (type) {
      case EV_ARRIVAL:
        this.onArrival(payload as TrafficSource, arg);
        break;
      case EV_GIVE_UP:
        this.onGiveUp(payload as UserRequest);
        break;
      case EV_MESSAGE:
        this.onMessage(payload as Request);
        break;
      case EV_WORK_DONE:
        this.onWorkDone(payload as Request);
        break;
      case EV_RESPONSE:
        this.onResponse(payload as Request, arg);
        break;
      case EV_TRY_TIMEOUT:
        this.onTryTimeout(payload as Request);
        break;
      case EV_RETRY:
        this.onRetry(payload as Call);
        break;
      case EV_FAULT:
        this.faultActive[arg >> 1] = (arg & 1) === 0;
        applyFaults(this);
        break;
    }
  }

  // ---- users ----------------------------------------------------------------------------------------------

  scheduleArrival(source: TrafficSource): void {
    const ratePerS = source.ratePerS * source.multiplier;
    if (ratePerS <= 0) return;
    this.engine.after(exponential(source.random, 1000 / ratePerS), EV_ARRIVAL, source, source.generation);
  }

  private onArrival(source: TrafficSource, generation: number): void {
    if (generation !== source.generation) return;
    this.scheduleArrival(source);
    const now = this.engine.nowMs;
    const service = source.service;
    const metrics = this.metrics;
    const segment = metrics.segmentAt(now);
    const user = new UserRequest(now, service.index, segment);
    metrics.userArrived(service.index, segment);
    const patienceMs = source.patienceMs;
    if (patienceMs !== null) this.engine.after(patienceMs, EV_GIVE_UP, user);
    const instances = service.instances;
    const instance = instances[service.nextEntry] as Instance;
    service.nextEntry = service.nextEntry + 1 === instances.length ? 0 : service.nextEntry + 1;
    const request = new Request(null, instance, user, null);
    user.request = request;
    this.arrive(request);
  }

  private onGiveUp(user: UserRequest): void {
    if (user.ended) return;
    user.ended = true;
    const now = this.engine.nowMs;
    this.metrics.userEnded(user.service, user.segment, false, now - user.arrivalMs, now);
    const request = user.request;
    user.request = null;
    // The user is gone; the entry service only notices if the scenario enables cancellation.
    if (this.cancellation && request !== null) cancelRequest(this, request);
  }

  // ---- callee side: admission, work, answer ----------------------------------------------------------------

  private arrive(request: Request): void {
    request.state = QUEUED;
    const service = request.instance.service;
    service.inFlight++;
    this.metrics.serviceArrival(service.index, this.engine.nowMs);
    const shedder = request.instance.shedder;
    if (shedder === null) {
      this.startWork(request, 0);
      return;
    }
    // offer() is admit() without an answer object per request (the simulator pushes millions through it).
    switch (shedder.offer(this.engine.nowMs, request.deadlineMs, request)) {
      case OFFER_RUN:
        this.startWork(request, 0);
        break;
      case OFFER_QUEUED:
        request.slot = shedder.lastSlot;
        break;
      case OFFER_REJECT:
        this.respond(request, shedder.rejected.status, shedder.rejected.retryAfter);
        break;
      default:
        this.respond(request, 504, null);
        break;
    }
  }

  private startWork(request: Request, waitedMs: number): void {
    request.state = WORKING;
    const instance = request.instance;
    const service = instance.service;
    this.metrics.executionStarted(service.index, waitedMs, this.engine.nowMs);
    let status = 0;
    let costMs = 0;
    const faultErrors = service.faultErrors;
    for (let i = 0; i < faultErrors.length && status === 0; i++) {
      const e = faultErrors[i] as { rate: number; status: number; costMs: number };
      if (instance.errorRandom.next() < e.rate) {
        status = e.status;
        costMs = e.costMs;
      }
    }
    const errors = service.errors;
    if (status === 0 && errors !== null && instance.errorRandom.next() < errors.rate) {
      status = errors.status;
      costMs = errors.costMs;
    }
    if (status !== 0) {
      request.status = status;
      this.engine.after(costMs, EV_WORK_DONE, request);
      return;
    }
    const workMs = instance.serviceTime.sample() + service.extraLatencyMs;
    // Answers always leave through an event, so a dequeue loop never recurses into another answer.
    if (workMs > 0 || instance.edges.length === 0) this.engine.after(workMs, EV_WORK_DONE, request);
    else this.startCalls(request);
  }

  private onWorkDone(request: Request): void {
    if (request.state === ABORTED) this.finish(request);
    else if (request.status !== 0) this.respond(request, request.status, null);
    else if (request.instance.edges.length === 0) this.respond(request, 200, null);
    else this.startCalls(request);
  }

  /** Ends the handling of a request and answers whoever still waits for it. */
  private respond(request: Request, status: number, retryAfter: string | null): void {
    this.finish(request);
    if (request.reply === ENTRY) {
      const user = request.user;
      if (user.ended) return;
      user.ended = true;
      user.request = null;
      const now = this.engine.nowMs;
      this.metrics.userEnded(user.service, user.segment, status < 400, now - user.arrivalMs, now);
      return;
    }
    if (request.reply !== WAITING) return; // nobody is listening (timed out, cancelled...): no response message
    const outcome = this.outcomes.index(status, retryAfter);
    this.engine.after(this.networkIsZero ? 0 : this.network.sample(), EV_RESPONSE, request, outcome);
  }

  /** Frees the worker, counts the execution (wasted if nobody waits for its answer any more), dequeues the next. */
  finish(request: Request): void {
    const instance = request.instance;
    const service = instance.service;
    // WORKING, ABORTED and CALLING requests took a worker; queued ones (shed, dropped, cancelled) never did.
    const ran = request.state >= WORKING;
    request.state = DONE;
    request.slot = -1;
    service.inFlight--;
    if (!ran) return;
    const waited = !request.user.ended && (request.reply === ENTRY || request.reply === WAITING);
    this.metrics.executionFinished(service.index, !waited, this.engine.nowMs);
    const shedder = instance.shedder;
    if (shedder !== null) {
      shedder.onFinish(); // it ran, so it holds one of the shedder's worker slots
      if (shedder.queued > 0) this.drain(instance);
    }
  }

  /** Hands free workers to queued work (LoadShedder.take: a 504 drop for expired items when dropExpired). */
  drain(instance: Instance): void {
    if (instance.draining) return;
    instance.draining = true;
    const shedder = instance.shedder as LoadShedder<Request>;
    for (;;) {
      const request = shedder.take(this.engine.nowMs);
      if (request === undefined) break;
      request.slot = -1;
      if (shedder.lastDropped) {
        this.respond(request, 504, null);
      } else {
        this.startWork(request, shedder.lastWaitedMs);
      }
    }
    instance.draining = false;
  }

  // ---- caller side: calls driven by RetryCall ----------------------------------------------------------------

  private startCalls(request: Request): void {
    request.state = CALLING;
    const edges = request.instance.edges;
    if (!request.instance.service.parallel) {
      this.startCall(request, 0);
      return;
    }
    const calls: Call[] = [];
    request.calls = calls;
    for (let i = 0; i < edges.length; i++) {
      if (request.state !== CALLING) break;
      this.startCall(request, i);
    }
  }

  /** Starts the call over the parent's `index`th edge. */
  private startCall(parent: Request, index: number): void {
    const edge = parent.instance.edges[index] as EdgeRuntime;
    // The inbound deadline (the header) bounds the outbound call, as the HTTP driver's context would.
    const traits = parent.deadlineMs === null ? GET : { idempotent: true, deadlineMs: parent.deadlineMs };
    const call = new Call(parent, edge, index, edge.policy.start(this.engine.nowMs, traits));
    if (Array.isArray(parent.calls)) parent.calls.push(call);
    else parent.calls = call;
    this.nextAttempt(call);
  }

  private nextAttempt(call: Call): void {
    // beginAttemptMs() is beginAttempt() without the AttemptPlan object: the plan's perTryTimeoutMs, or -1 to stop.
    const retry = call.retry;
    const timeoutMs = retry.beginAttemptMs(this.engine.nowMs);
    if (timeoutMs < 0) {
      this.callEnded(call, retry.stopReason as StopReason);
      return;
    }
    const edge = call.edge;
    const instances = edge.callee.instances;
    const target = instances[edge.next] as Instance;
    edge.next = edge.next + 1 === instances.length ? 0 : edge.next + 1;
    const deadlineMs = edge.propagate ? retry.deadlineMs : null;
    const attempt = new Request(call, target, call.parent.user, deadlineMs);
    call.attempt = attempt;
    if (timeoutMs !== Number.POSITIVE_INFINITY) this.engine.after(timeoutMs, EV_TRY_TIMEOUT, attempt);
    this.engine.after(this.networkIsZero ? 0 : this.network.sample(), EV_MESSAGE, attempt);
  }

  private onMessage(attempt: Request): void {
    if (attempt.reply !== CANCELLED) this.arrive(attempt); // a cancelled one: the caller hung up before it arrived
  }

  /** `outcome` indexes the OutcomeTable: the status and Retry-After the callee answered with. */
  private onResponse(attempt: Request, outcome: number): void {
    if (attempt.reply !== WAITING) return;
    attempt.reply = ANSWERED;
    const call = attempt.call as Call;
    attempt.call = null;
    call.attempt = null;
    const response = this.outcomes.at(outcome);
    call.lastStatus = response.status;
    this.decide(call, response);
  }

  private onTryTimeout(attempt: Request): void {
    if (attempt.reply !== WAITING) return;
    attempt.reply = TIMED_OUT;
    const call = attempt.call as Call;
    attempt.call = null; // finished callers must not be kept alive by work still queued downstream
    call.attempt = null;
    call.lastStatus = 0;
    // Without cancellation the callee never learns that nobody waits: the incident's "the DB still runs".
    if (this.cancellation) cancelAttempt(this, attempt);
    this.decide(call, TIMEOUT_OUTCOME);
  }

  private decide(call: Call, outcome: Outcome): void {
    if (call.done) return;
    // onOutcomeMs() is onOutcome() without the Decision object: the wait before the next attempt, or -1 to stop.
    const waitMs = call.retry.onOutcomeMs(outcome, this.engine.nowMs);
    if (waitMs < 0) this.callEnded(call, call.retry.stopReason as StopReason);
    else if (waitMs > 0) this.engine.after(waitMs, EV_RETRY, call);
    else this.nextAttempt(call);
  }

  private onRetry(call: Call): void {
    if (!call.done) this.nextAttempt(call);
  }

  private callEnded(call: Call, reason: StopReason): void {
    call.done = true;
    const parent = call.parent;
    if (parent.state !== CALLING) return; // the request already ended (a sibling failed, or it was cancelled)
    if (reason !== 'succeeded' && !call.edge.optional) {
      // A service answers with the status it got (504 when it got none: timeout or deadline).
      const status = call.lastStatus >= 400 ? call.lastStatus : 504;
      if (this.cancellation && Array.isArray(parent.calls)) abortCalls(this, parent);
      this.respond(parent, status, null);
      return;
    }
    const edges = parent.instance.edges;
    const calls = parent.calls;
    if (!Array.isArray(calls)) {
      if (call.index + 1 < edges.length) this.startCall(parent, call.index + 1);
      else this.respond(parent, 200, null);
    } else if (calls.length === edges.length && allDone(calls)) {
      this.respond(parent, 200, null);
    }
  }
}

/** Parallel calls: every one has ended. */
function allDone(calls: Call[]): boolean {
  for (let i = 0; i < calls.length; i++) if (!(calls[i] as Call).done) return false;
  return true;
}
