// The simulated entities: user requests, request messages (caller's attempt + callee's execution), calls, runtimes.

import type { LoadShedder } from '../../policy/admission/shed.js';
import type { Random } from '../../policy/core/random.js';
import type { RequestTraits } from '../../policy/core/types.js';
import type { RetryCall, RetryPolicy } from '../../policy/retry/retry.js';
import type { Balancer } from '../../policy/upstream/balancer.js';
import type { BreakerPermit, CircuitBreaker } from '../../policy/upstream/breaker.js';
import type { ConcurrencyBreaker, ConcurrencyPermit } from '../../policy/upstream/concurrency.js';
import type { GuardHold, UpstreamRefusal } from '../../policy/upstream/hold.js';
import type { OutlierDetector } from '../../policy/upstream/outlier.js';
import type { GuardPipeline } from '../../policy/upstream/pipeline.js';
import type { AdaptiveThrottle } from '../../policy/upstream/throttle.js';
import type { ErrorSpec, ServiceSpec, TrafficSpec } from '../scenario/types.js';
import type { Sampler } from './distributions.js';

/** One user request from a traffic source. */
export class UserRequest {
  ended = false;
  /** The request at the entry service, for cancellation when the user leaves. */
  request: Request | null = null;
  /** Edges (EdgeRuntime.id) that retried on this user's behalf, the retry radius: a bit per edge below 31... */
  retriedMask = 0;
  /** ... and a list for the others (null until needed: scenarios rarely have 31 edges). */
  retriedMore: number[] | null = null;

  constructor(
    readonly arrivalMs: number,
    readonly service: number,
    /** Metrics segment of the arrival (its bin and windows). */
    readonly segment: number,
  ) {}
}

// Request.state: the callee's side.
export const IN_TRANSIT = 0;
export const QUEUED = 1;
/** Holding a worker for its own service time. From here on the request "ran": it counts as an execution. */
export const WORKING = 2;
/** Working, but its caller went away: when the work ends nothing is sent and no calls start. */
export const ABORTED = 3;
/** Waiting for downstream calls (still holding its worker, if the service has a shedder). */
export const CALLING = 4;
export const DONE = 5;

// Request.reply: the caller's side.
export const WAITING = 0;
export const ANSWERED = 1;
export const TIMED_OUT = 2;
/** The caller's call was aborted while this attempt was out. */
export const ABANDONED = 3;
/** The caller cancelled it (only with cancellation on): the callee drops it, or never starts it. */
export const CANCELLED = 4;
/** Sent by a user to an entry service: no caller attempt, the user waits (UserRequest.ended). */
export const ENTRY = 5;

/**
 * One request message over its whole life: the caller's attempt (reply state, per-try timeout) and the callee's
 * handling of it (queued, working, calling downstream, done). One object per attempt, and a small one: in a
 * meltdown hundreds of thousands wait in a queue, and every field is copied by the garbage collector.
 */
export class Request {
  state = IN_TRANSIT;
  reply: number;
  /** Non-zero when the work ends in a transient error: the status to answer with (the answer itself travels in the event). */
  status = 0;
  /** Where the request waits in its instance's LoadShedder (LoadShedder.lastSlot), -1 when not queued. */
  slot = -1;
  /** Sequential calls: the call in progress. Parallel: every call, in edge order. */
  calls: Call | Call[] | null = null;
  /** Hop facts the callee read (policy/hop.ts InboundHop): the deadline it honours, and whether a Seawall hop sent it. */
  readonly deadlineMs: number | null;
  readonly fromSeawallHop: boolean;

  constructor(
    /** The caller's call; null for a user's request, and cleared once the caller stops waiting. */
    public call: Call | null,
    readonly instance: Instance,
    readonly user: UserRequest,
    /** Deadline carried by the message (as the header would), ms. */
    sentDeadlineMs: number | null,
    /** The message carried the hop marker (the attempt header). */
    marker: boolean,
  ) {
    this.reply = call === null ? ENTRY : WAITING;
    // A service without Seawall reads none of the hop headers.
    const seawall = instance.service.seawall;
    this.deadlineMs = seawall ? sentDeadlineMs : null;
    // @ko sim-hop-marker
    this.fromSeawallHop = seawall && marker;
  }
}

/** One logical call over an edge, driven by the production RetryCall; it holds its guards' permits (GuardHold). */
export class Call implements GuardHold {
  done = false;
  attempt: Request | null = null;
  /** Status of the last response; 0 when the last attempt timed out or none was made. */
  lastStatus = 0;
  // GuardHold (policy/upstream/hold.ts), written only by the edge's GuardPipeline: kept here, so no object per call.
  endpoint = -1;
  breakerPermit: BreakerPermit | null = null;
  slot: ConcurrencyPermit | null = null;
  retrySlot: ConcurrencyPermit | null = null;
  started = false;
  retried = false;
  unsent = false;
  throttleCounted = false;
  refusal: UpstreamRefusal | null = null;

  constructor(
    /** The request whose handling makes this call. */
    readonly parent: Request,
    readonly edge: EdgeRuntime,
    /** Position of the edge among the caller instance's edges (sequential calls go in this order). */
    readonly index: number,
    readonly retry: RetryCall,
  ) {}
}

/**
 * A caller instance's side of an edge: its own RetryPolicy (and so its own budget) and the guards of its attempts
 * (guards.ts): the Balancer over the callee's instances, and the breaker, limits and outlier detector if configured.
 */
export class EdgeRuntime {
  /** Attempts sent over the wire, and how many of them were retries (Envoy's upstream_rq_total, upstream_rq_retry). */
  get sent(): number {
    return this.guards.pipeline.attempts;
  }

  get retriesSent(): number {
    return this.guards.pipeline.retries;
  }

  constructor(
    /** Index of the edge in the model (the same for every caller instance): what the retry radius counts. */
    readonly id: number,
    readonly callee: ServiceRuntime,
    readonly policy: RetryPolicy,
    readonly optional: boolean,
    /** The policy sends the deadline downstream (RetryPolicy's propagateDeadline, on a Seawall hop). */
    readonly propagate: boolean,
    /** Made with Seawall: sends the hop marker, reads claims (from a callee running Seawall: others send none). */
    readonly seawall: boolean,
    /** The traits of every call over this edge (the inbound hop's facts go to RetryPolicy.start beside them). */
    readonly traits: RequestTraits,
    readonly guards: EdgeGuards,
  ) {}
}

/** The attempt guards of one caller instance's edge: its guard pipeline and the policy objects in it (for stats). */
export interface EdgeGuards {
  /** Admission order, after-outcome step and wake times (policy/upstream/pipeline.ts). */
  readonly pipeline: GuardPipeline;
  readonly balancer: Balancer;
  /** The callee instance behind each of the balancer's endpoints. */
  readonly targets: readonly Instance[];
  readonly breaker: CircuitBreaker | null;
  readonly limits: ConcurrencyBreaker | null;
  readonly detector: OutlierDetector | null;
  readonly throttle: AdaptiveThrottle | null;
  /**
   * Attempts sent to each callee instance, per window and in total: [instance × (windows + 1) + w], the total last;
   * null when the balancer has no choice (one instance, no detector): the summary has no balancer block then.
   */
  readonly sentByHostWindow: Float64Array | null;
}

export class Instance {
  edges: EdgeRuntime[] = [];
  /** Inside the dequeue loop: nested frees are picked up by the running loop instead of recursing. */
  draining = false;
  /** Transient errors added by the faults in force on this instance. */
  faultErrors: ErrorSpec[] = [];
  /** Extra worker time per execution from latency faults in force on this instance, ms. */
  extraLatencyMs = 0;
  /** Workers in force (changed by faults); null without a shedder. */
  workers: number | null;

  constructor(
    readonly service: ServiceRuntime,
    readonly index: number,
    readonly shedder: LoadShedder<Request> | null,
    readonly serviceTime: Sampler,
    readonly errorRandom: Random,
  ) {
    this.workers = service.workers;
  }
}

/**
 * A copy of an error spec made by one literal, so every copy shares one hidden class: the hot path reads these
 * fields on each execution, and scenario objects (zod output, or structured clones in a worker) have varied shapes.
 */
export function errorRates(e: ErrorSpec): ErrorSpec {
  return { rate: e.rate, status: e.status, costMs: e.costMs };
}

export class ServiceRuntime {
  instances: Instance[] = [];
  /** From the spec, copied for the hot path: the service's own transient errors, and whether its calls run in parallel. */
  readonly errors: ErrorSpec | null;
  readonly parallel: boolean;
  /** Runs Seawall: reads hop headers, claims its errors. */
  readonly seawall: boolean;
  /** Requests present (queued, working or calling). */
  inFlight = 0;
  /** Round-robin position for traffic entering here. */
  nextEntry = 0;
  /** Workers per instance without faults; null without a shedder. */
  readonly workers: number | null;

  constructor(
    readonly index: number,
    readonly spec: ServiceSpec,
  ) {
    this.workers = spec.shed === null ? null : spec.shed.workers;
    this.errors = spec.errors === null ? null : errorRates(spec.errors);
    this.parallel = spec.parallel;
    this.seawall = spec.seawall;
  }
}

export class TrafficSource {
  multiplier = 1;
  /** From the spec, copied for the hot path. */
  readonly ratePerS: number;
  readonly patienceMs: number | null;
  /** Bumped when the rate changes: the pending arrival drawn at the old rate is ignored (Poisson is memoryless). */
  generation = 0;

  constructor(
    readonly spec: TrafficSpec,
    readonly service: ServiceRuntime,
    readonly random: Random,
  ) {
    this.ratePerS = spec.ratePerS;
    this.patienceMs = spec.patienceMs;
  }
}
