// Framework-neutral callee driver: reads the inbound deadline, asks LoadShedder to admit, runs or refuses, releases.

import { AsyncResource } from 'node:async_hooks';
import { RelaySink, runWithContext, type SeawallContext } from '../../driver/context.js';
import {
  type CancelEvent,
  cancelChannel,
  type DropEvent,
  dropChannel,
  type ShedEvent,
  shedChannel,
} from '../../driver/events.js';
import { LoadShedder, type LoadShedderConfig, type QueueTicket } from '../../policy/admission/shed.js';
import { type HeaderSource, headerValue } from '../../policy/hop/deadline.js';
import {
  CLAIM_HEADER,
  DEADLINE_REFUSAL,
  deadlinePassed,
  HOP_REQUEST_HEADERS,
  type Refusal,
  readInboundHop,
} from '../../policy/hop/hop.js';
import {
  type ResolvedShedOptions,
  resolveShedOptions,
  type ShedOptions,
  type TrustDeadline,
  type TrustInput,
} from './options.js';
import { instrumentServer, type ServerStats, WaitHistogram } from './telemetry.js';

// The gate's stats are read by its telemetry, which holds their shape (so it need not import this file).
export type { ServerStats };
// The middleware's own answers are the policy's data (policy/hop.ts): every adapter writes exactly these.
export { CLAIM_HEADER, DEADLINE_REFUSAL, type Refusal };

/** Told when a queued request leaves the queue. Called inside the request's own async scope. */
export interface Resumer {
  /** refusal null: a worker is free, run the handler (the request's context is already current). */
  resume(request: InboundRequest, refusal: Refusal | null): void;
}

export const RUN = 'run' as const;
export const QUEUED = 'queued' as const;
export type Verdict = typeof RUN | typeof QUEUED | Refusal;

const NEW = 0;
const WAITING = 1;
const RUNNING = 2;
const DONE = 3;

export type AbortKind = 'deadline' | 'gone';

let deadlineReason: DOMException | undefined;
let goneReason: DOMException | undefined;

/**
 * The signal's reason, named like the platform's own. One shared instance per kind: a DOMException captures a
 * stack trace (µs), and under overload thousands of requests a second are cancelled; their stacks say nothing.
 */
function abortReason(kind: AbortKind): DOMException {
  if (kind === 'deadline') {
    deadlineReason ??= new DOMException('the request deadline passed', 'TimeoutError');
    return deadlineReason;
  }
  goneReason ??= new DOMException('the client went away', 'AbortError');
  return goneReason;
}

/**
 * One inbound request as the driver tracks it. It is also the request's SeawallContext (what currentContext()
 * returns while its handler runs), so admission allocates it and its small relay sink; the AbortController is made on
 * first use.
 */
export class InboundRequest implements SeawallContext {
  /** @internal */ state = NEW;
  /** @internal */ ticket: QueueTicket<InboundRequest> | null = null;
  /** @internal */ resumer: Resumer | null = null;
  /** @internal */ scope: AsyncResource | null = null;
  private controller: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** @internal Why its signal fired (deadline, gone), or null */ aborted: AbortKind | null = null;
  /**
   * Where the client notes how an error answer relaying a failed call made inside this request is marked (context.ts).
   * An own field, so a context spread from this one (`{ ...currentContext()!, deadlineMs }`) shares it.
   */
  readonly relay = new RelaySink();

  constructor(
    readonly deadlineMs: number | null,
    readonly fromSeawallHop: boolean,
    /** @internal trustDeadline trusted this caller: its trace context is continued too (OpenTelemetry). */
    readonly trusted = true,
    /** The caller's attempt number (policy/hop.ts readInboundHop), or null when absent, malformed or untrusted. */
    readonly attempt: number | null = null,
  ) {}

  /** Fires when the deadline passes or the client goes away (not when the response simply finishes). */
  get signal(): AbortSignal {
    let controller = this.controller;
    if (controller === null) {
      controller = this.controller = new AbortController();
      if (this.aborted !== null) controller.abort(abortReason(this.aborted));
      else if (this.state !== DONE) this.armDeadline(Date.now());
    }
    return controller.signal;
  }

  /** True once the request is over (answered, refused, cancelled or its client gone). */
  get done(): boolean {
    return this.state === DONE;
  }

  /** @internal fire the signal (first reason wins). */
  abort(kind: AbortKind): void {
    if (this.aborted !== null) return;
    this.aborted = kind;
    this.clearTimer();
    this.controller?.abort(abortReason(kind));
  }

  /** @internal */
  clearTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private armDeadline(nowMs: number): void {
    const deadlineMs = this.deadlineMs;
    if (deadlineMs === null || this.timer !== null) return;
    const leftMs = deadlineMs - nowMs;
    if (leftMs <= 0) {
      this.abort('deadline');
      return;
    }
    // A timer outliving the response never keeps the process alive.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.abort('deadline');
    }, leftMs);
    this.timer.unref?.();
  }
}

/** The client's address, or something that knows it (a socket). */
export type Peer = string | { readonly remoteAddress?: string | undefined } | null | undefined;

function addressOf(peer: Peer): string | undefined {
  return peer === null || peer === undefined || typeof peer === 'string' ? (peer ?? undefined) : peer.remoteAddress;
}

/** Header reader over node's (already lower-cased) header record, without the case-insensitive scan. */
class NodeHeaders {
  current: Record<string, string | string[] | undefined> = {};
  get(name: string): string | undefined {
    const v = this.current[name];
    return Array.isArray(v) ? v.join(',') : v;
  }
}

/** The callee driver shared by every framework adapter. One per protected service (or route group). */
export class ServerGate {
  readonly shedder: LoadShedder<InboundRequest>;
  readonly options: ResolvedShedOptions;
  private readonly waits = new WaitHistogram();
  private readonly trust: TrustDeadline;
  private maxDeadlineMs: number;
  private readonly nodeHeaders = new NodeHeaders();
  private draining = false;
  private malformedHeaders = 0;
  private cappedDeadlines = 0;
  private untrustedHeaders = 0;
  private cancelledRunning = 0;
  private finishedLate = 0;
  private deadlineSkew = 0;
  private handler5xx = 0;

  constructor(options?: ShedOptions, extraKeys: readonly string[] = []) {
    this.options = resolveShedOptions(options, extraKeys);
    this.shedder = new LoadShedder<InboundRequest>(this.options.shedder);
    this.trust = this.options.trust;
    this.maxDeadlineMs = this.options.maxDeadlineMs;
    instrumentServer(this, this.options.meter, this.options.name);
  }

  /**
   * Reads an inbound request's Seawall headers (node-style lower-case record or Fetch Headers). Never throws. `peer`:
   * the client's address, or its socket, whose address is read only if a trust predicate asks (reading it can cost a
   * getpeername call).
   */
  arrive(headers: HeaderSource, peer: Peer, nodeStyle = false): InboundRequest {
    let source: HeaderSource = headers;
    if (nodeStyle) {
      this.nodeHeaders.current = headers as Record<string, string | string[] | undefined>;
      source = this.nodeHeaders;
    }
    const trust = this.trust;
    if (trust === true || (trust !== false && this.trusts(trust, headers, addressOf(peer)))) {
      const read = readInboundHop(source, Date.now(), this.maxDeadlineMs);
      if (read.malformed) this.malformedHeaders++;
      if (read.capped) this.cappedDeadlines++;
      if (read.skewed) this.deadlineSkew++;
      return new InboundRequest(read.deadlineMs, read.fromSeawallHop, true, read.attempt);
    }
    if (HOP_REQUEST_HEADERS.some((name) => headerValue(source, name) !== undefined)) this.untrustedHeaders++;
    return new InboundRequest(null, false, false);
  }

  private trusts(
    predicate: (request: TrustInput) => boolean,
    headers: HeaderSource,
    remoteAddress: string | undefined,
  ): boolean {
    try {
      return predicate({ headers, remoteAddress }) === true;
    } catch {
      return false; // a failing predicate must not fail the request; not trusting is the safe side
    }
  }

  /**
   * Asks the policy. RUN: the slot is taken, run the handler inside runWithContext(request). QUEUED: `resumer`
   * will be told (in the request's async scope, context current). A Refusal: answer it; the handler never runs.
   */
  admit(request: InboundRequest, resumer: Resumer): Verdict {
    const nowMs = Date.now();
    const admission = this.shedder.admit(nowMs, request.deadlineMs, request);
    switch (admission.verdict) {
      case 'run':
        request.state = RUNNING;
        this.waits.record(0, nowMs);
        return RUN;
      case 'queued':
        request.state = WAITING;
        request.ticket = admission.ticket;
        request.resumer = resumer;
        // Resume later in this request's own async scope (OTel context, other AsyncLocalStorage stores).
        request.scope = new AsyncResource('seawall.queued');
        return QUEUED;
      case 'reject':
        request.state = DONE;
        if (shedChannel.hasSubscribers) {
          shedChannel.publish({
            service: this.options.name,
            deadlineMs: request.deadlineMs,
            status: 503,
            reason: 'queue-full',
            retryAfterMs: admission.retryAfterMs,
            inFlight: this.shedder.running,
            queued: this.shedder.queued,
          } satisfies ShedEvent);
        }
        return admission as Refusal;
      case 'drop':
        request.state = DONE;
        if (dropChannel.hasSubscribers) this.publishDrop(request, 'arrival', 0);
        return DEADLINE_REFUSAL;
    }
  }

  /**
   * The exchange is over: the response finished, or the client went away (`clientGone`). Releases the worker
   * slot or the queue place, exactly once however often it is called. Fires the signal when the client is gone.
   */
  end(request: InboundRequest, clientGone: boolean): void {
    const state = request.state;
    if (clientGone && (state === RUNNING || state === WAITING) && cancelChannel.hasSubscribers) {
      cancelChannel.publish({
        service: this.options.name,
        deadlineMs: request.deadlineMs,
        stage: state === RUNNING ? 'running' : 'queued',
      } satisfies CancelEvent);
    }
    if (state === RUNNING) {
      request.state = DONE;
      request.clearTimer();
      if (clientGone) {
        this.cancelledRunning++;
        request.abort('gone');
      }
      if (request.deadlineMs !== null && deadlinePassed(request.deadlineMs, Date.now())) this.finishedLate++;
      this.shedder.onFinish();
      this.drain();
    } else if (state === WAITING) {
      request.state = DONE;
      // @ko server-cancel-queued
      this.shedder.cancel(request.ticket as QueueTicket<InboundRequest>);
      request.ticket = null;
      request.resumer = null;
      if (clientGone) request.abort('gone');
    } else {
      request.state = DONE;
    }
  }

  /**
   * A queued request was given a worker, but its connection was gone before its handler could start: the worker
   * goes back and the request counts as cancelled in the queue (never as started). No-op unless it holds a worker.
   */
  abandon(request: InboundRequest): void {
    if (request.state !== RUNNING) return;
    request.state = DONE;
    request.clearTimer();
    if (cancelChannel.hasSubscribers) {
      cancelChannel.publish({
        service: this.options.name,
        deadlineMs: request.deadlineMs,
        stage: 'queued',
      } satisfies CancelEvent);
    }
    request.abort('gone');
    this.shedder.abandon();
    this.drain();
  }

  /** Adapters report an admitted request answered with a 5xx. */
  countHandler5xx(): void {
    this.handler5xx++;
  }

  /** Changes limits at run time (ConfigError and no change if invalid); fills new worker slots at once. */
  update(options: Partial<Pick<ShedOptions, keyof LoadShedderConfig | 'maxDeadline'>>): void {
    const { maxDeadline, ...shedder } = options;
    const maxDeadlineMs =
      maxDeadline === undefined ? this.maxDeadlineMs : resolveShedOptions({ workers: 1, maxDeadline }).maxDeadlineMs;
    this.shedder.update(shedder);
    this.maxDeadlineMs = maxDeadlineMs;
    this.drain();
  }

  stats(): ServerStats {
    return {
      ...this.shedder.stats(),
      malformedHeaders: this.malformedHeaders,
      cappedDeadlines: this.cappedDeadlines,
      untrustedHeaders: this.untrustedHeaders,
      cancelledRunning: this.cancelledRunning,
      finishedLate: this.finishedLate,
      deadlineSkew: this.deadlineSkew,
      handler5xx: this.handler5xx,
      queueWait: this.waits.snapshot(),
    };
  }

  /** @internal the histogram, for telemetry */
  get waitHistogram(): WaitHistogram {
    return this.waits;
  }

  private publishDrop(request: InboundRequest, stage: 'arrival' | 'queue', waitedMs: number): void {
    dropChannel.publish({
      service: this.options.name,
      deadlineMs: request.deadlineMs,
      status: 504,
      reason: 'deadline-passed',
      stage,
      waitedMs,
    } satisfies DropEvent);
  }

  /** Hands freed workers to queued requests (LoadShedder decides which, and which to drop). Re-entrancy safe. */
  private drain(): void {
    if (this.draining) return; // the outer loop picks up slots freed by a resumed handler
    if (this.shedder.queued === 0) return; // nothing waits (the usual case below capacity)
    this.draining = true;
    try {
      for (;;) {
        const nowMs = Date.now();
        const next = this.shedder.dequeue(nowMs);
        if (next === undefined) break;
        const request = next.item;
        const resumer = request.resumer as Resumer;
        request.ticket = null;
        request.resumer = null;
        this.waits.record(next.waitedMs, nowMs);
        if (next.verdict === 'drop') {
          request.state = DONE;
          if (dropChannel.hasSubscribers) this.publishDrop(request, 'queue', next.waitedMs);
          resumeIn(request, resumer, DEADLINE_REFUSAL);
        } else {
          request.state = RUNNING;
          resumeIn(request, resumer, null);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}

function resumeIn(request: InboundRequest, resumer: Resumer, refusal: Refusal | null): void {
  const scope = request.scope as AsyncResource;
  request.scope = null;
  scope.runInAsyncScope(() => {
    if (refusal === null) runWithContext(request, () => resumer.resume(request, null));
    else resumer.resume(request, refusal);
  });
}
