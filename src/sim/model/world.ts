// The simulated system: traffic, services and callers as event handlers that drive the production RetryPolicy and LoadShedder.

import { type LoadShedder, OFFER_QUEUED, OFFER_REJECT, OFFER_RUN } from '../../policy/admission/shed.js';
import { createRandom } from '../../policy/core/random.js';
import { answerClaimHeaders, DEADLINE_REFUSAL } from '../../policy/hop/hop.js';
import { Engine, type EventHandler } from '../engine.js';
import { BIN_MS, Metrics, type WindowDef } from '../metrics/collector.js';
import type { FaultSpec, ModelSpec } from '../scenario/types.js';
import { buildServices, buildSources } from './build.js';
import { onResponse, onRetry, onTryTimeout, startCalls } from './caller.js';
import type { CallerHost } from './caller-host.js';
import { cancelRequest } from './cancel.js';
import { Sampler as DistSampler, exponential, type Sampler } from './distributions.js';
import {
  EV_ARRIVAL,
  EV_FAULT,
  EV_GIVE_UP,
  EV_MESSAGE,
  EV_RESPONSE,
  EV_RETRY,
  EV_SWEEP,
  EV_TRY_TIMEOUT,
  EV_WORK_DONE,
} from './events.js';
import { FaultsInForce } from './fault-state.js';
import { applyFault, type FaultTarget, sampleBin } from './faults.js';
import { wakeEdge } from './guards.js';
import { DEFAULT_MAX_LIVE, liveLimitMessage, RunLimitError } from './live-limit.js';
import { OutcomeTable } from './outcomes.js';
import { refusalWithoutSeawall } from './plain-refusal.js';
import {
  ABORTED,
  CANCELLED,
  type Call,
  DONE,
  type EdgeRuntime,
  ENTRY,
  type Instance,
  QUEUED,
  Request,
  type ServiceRuntime,
  type TrafficSource,
  UserRequest,
  WAITING,
  WORKING,
} from './records.js';
import { isWasted } from './wasted.js';

/** The headers of a refusal by `request`'s service: Seawall's own (hop.ts Refusal), or a plain server's (plain-refusal.ts). */
function refusalHeaders(
  request: Request,
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> | null {
  return request.instance.service.seawall ? headers : refusalWithoutSeawall(headers);
}

export interface WorldOptions {
  model: ModelSpec;
  durationMs: number;
  windows: readonly WindowDef[];
  seed: number;
  /** Requests at services + pending events the run may hold at once (the file's `maxLive`); default DEFAULT_MAX_LIVE. */
  maxLive?: number | undefined;
}

/**
 * One run of one variant. Every decision about retrying and admitting is made by the policy objects
 * (RetryCall.beginAttempt / onOutcome, LoadShedder.admit / dequeue); this class only moves messages in virtual time.
 */
export class World implements EventHandler, FaultTarget, CallerHost {
  readonly engine = new Engine();
  readonly metrics: Metrics;
  readonly services: ServiceRuntime[];
  readonly sources: TrafficSource[];
  readonly durationMs: number;
  readonly faults: readonly FaultSpec[];
  readonly faultActive: boolean[];
  readonly faultsInForce = new FaultsInForce();
  /** @internal network latency of a message (the caller side samples it too) */
  readonly network: Sampler;
  /** @internal */
  readonly networkIsZero: boolean;
  /** @internal */
  readonly cancellation: boolean;
  /** @internal statuses and Retry-After values, interned: a response event carries an index */
  readonly outcomes = new OutcomeTable();
  /** End of the next bin whose gauges are still to be sampled. */
  private nextSampleMs = BIN_MS;
  private nextSampleBin = 0;
  /** Requests at services (queued, working or calling), over every service: the sum of their inFlight. */
  private present = 0;
  private readonly maxLive: number;

  constructor(options: WorldOptions) {
    const { model } = options;
    const root = createRandom(options.seed);
    this.durationMs = options.durationMs;
    this.maxLive = options.maxLive ?? DEFAULT_MAX_LIVE;
    this.cancellation = model.cancellation;
    this.faults = model.faults;
    this.faultActive = model.faults.map(() => false);
    this.network = new DistSampler(model.networkLatency, root.fork('network'));
    this.networkIsZero = model.networkLatency.dist === 'constant' && model.networkLatency.valueMs === 0;
    this.services = buildServices(model, root, options.windows.length);
    this.sources = buildSources(model, this.services, root);
    this.metrics = new Metrics(options.durationMs, options.windows, this.services.length, model.edges.length);
  }

  /** Runs the whole duration. */
  run(): void {
    const engine = this.engine;
    for (const source of this.sources) this.scheduleArrival(source);
    this.faults.forEach((fault, i) => {
      engine.at(fault.startMs, EV_FAULT, null, 2 * i);
      engine.at(fault.endMs, EV_FAULT, null, 2 * i + 1);
    });
    // An edge with outlier detection is woken when its guard pipeline asks (nextWakeAt: the detector's sweeps, whose
    // interval clock started when the pool was declared). A breaker needs no wake: it half-opens lazily.
    for (const service of this.services) {
      for (const instance of service.instances) {
        for (const edge of instance.edges) {
          if (edge.guards.detector !== null) this.scheduleSweep(edge, edge.guards.pipeline.nextWakeAt(0));
        }
      }
    }
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
        onResponse(this, payload as Request, arg);
        break;
      case EV_TRY_TIMEOUT:
        onTryTimeout(this, payload as Request);
        break;
      case EV_RETRY:
        onRetry(this, payload as Call);
        break;
      case EV_FAULT:
        this.faultActive[arg >> 1] = (arg & 1) === 0;
        applyFault(this, arg >> 1);
        break;
      case EV_SWEEP:
        this.scheduleSweep(payload as EdgeRuntime, wakeEdge(payload as EdgeRuntime, this.engine.nowMs));
        break;
    }
  }

  private scheduleSweep(edge: EdgeRuntime, atMs: number): void {
    if (atMs < this.durationMs) this.engine.at(atMs, EV_SWEEP, edge);
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
    const request = new Request(null, instance, user, null, false);
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
    // Every request and every timer a run holds came with an arrival here, so the bound is checked here.
    // @ko sim-live-bounded
    if (++this.present + this.engine.pending > this.maxLive) this.stopAtLiveLimit();
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
        this.respond(request, shedder.rejected.status, refusalHeaders(request, shedder.rejected.headers));
        break;
      default:
        this.respond(request, DEADLINE_REFUSAL.status, refusalHeaders(request, DEADLINE_REFUSAL.headers));
        break;
    }
  }

  /** The run holds more than maxLive: it stops here, saying when, how much, where it was held and what to change. */
  private stopAtLiveLimit(): never {
    const now = this.engine.nowMs;
    const pending = this.engine.pending;
    throw new RunLimitError(liveLimitMessage(this.maxLive, this.present, pending, now, this.durationMs, this.services));
  }

  private startWork(request: Request, waitedMs: number): void {
    request.state = WORKING;
    const instance = request.instance;
    const service = instance.service;
    this.metrics.executionStarted(service.index, waitedMs, this.engine.nowMs);
    let status = 0;
    let costMs = 0;
    const faultErrors = instance.faultErrors;
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
    const workMs = instance.serviceTime.sample() + instance.extraLatencyMs;
    // Answers always leave through an event, so a dequeue loop never recurses into another answer.
    if (workMs > 0 || instance.edges.length === 0) this.engine.after(workMs, EV_WORK_DONE, request);
    else startCalls(this, request);
  }

  private onWorkDone(request: Request): void {
    if (request.state === ABORTED) this.finish(request);
    else if (request.status !== 0) this.respondOwnError(request, request.status);
    else if (request.instance.edges.length === 0) this.respond(request, 200, null);
    else startCalls(this, request);
  }

  /** The service's own error (a transient failure of its work): a Seawall service claims it (hop.ts). */
  private respondOwnError(request: Request, status: number): void {
    // @ko sim-own-error-claimed
    this.respond(request, status, request.instance.service.seawall ? answerClaimHeaders(status, null) : null);
  }

  /** Ends the handling of a request and answers whoever still waits for it. */
  respond(request: Request, status: number, headers: Readonly<Record<string, string>> | null): void {
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
    const outcome = this.outcomes.index(status, headers);
    this.engine.after(this.networkIsZero ? 0 : this.network.sample(), EV_RESPONSE, request, outcome);
  }

  /** Frees the worker, counts the execution (wasted.ts: wasted if no waiting user can get its result), dequeues the next. */
  finish(request: Request): void {
    const instance = request.instance;
    const service = instance.service;
    // WORKING, ABORTED and CALLING requests took a worker; queued ones (shed, dropped, cancelled) never did.
    const ran = request.state >= WORKING;
    request.state = DONE;
    request.slot = -1;
    service.inFlight--;
    // @ko sim-live-released
    this.present--;
    if (!ran) return;
    this.metrics.executionFinished(service.index, isWasted(request), this.engine.nowMs);
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
        this.respond(request, DEADLINE_REFUSAL.status, refusalHeaders(request, DEADLINE_REFUSAL.headers));
      } else {
        this.startWork(request, shedder.lastWaitedMs);
      }
    }
    instance.draining = false;
  }

  // ---- message delivery -----------------------------------------------------------------------------------

  private onMessage(attempt: Request): void {
    if (attempt.reply !== CANCELLED) this.arrive(attempt); // a cancelled one: the caller hung up before it arrived
  }
}
