// retryInterceptor: the RetryPolicy as an undici interceptor (Agent.compose / Dispatcher.compose), streaming by default.

import type { Dispatcher } from 'undici';
import type { AttemptPlan } from '../policy/retry.js';
import type { Outcome } from '../policy/types.js';
import { type AttemptTransport, CallRunner, SeawallClient } from './client.js';
import { IDEMPOTENCY_KEY_HEADER, mergeUndiciHeaders, type UndiciHeaderInput, undiciHeadersHave } from './headers.js';
import { ClientSettings, type SeawallClientOptions, type SeawallRequestOptions } from './options.js';
import { firstHeader, outcomeOfError } from './outcome.js';
import { isReplayableBody, originOf } from './traits.js';

declare module 'undici' {
  namespace Dispatcher {
    interface DispatchOptions {
      /** Seawall's per-request options (read by retryInterceptor). */
      seawall?: SeawallRequestOptions;
    }
  }
}

export type RetryInterceptorOptions = SeawallClientOptions;

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type Headers = Record<string, string | string[] | undefined>;

/** Where an attempt's response is going. */
const PENDING = 0; // no response yet
const BUFFERING = 1; // bufferResponse: collecting the body before the policy decides
const COMMITTED = 2; // handed to the caller: events flow through
const DRAINING = 3; // discarded: read and dropped so the connection can be reused
const DONE = 4; // finished, or cancelled: later events are ignored

function responseOutcome(status: number, headers: Headers): Outcome {
  if (status < 400) return { kind: 'response', status };
  return {
    kind: 'response',
    status,
    retryAfter: firstHeader(headers['retry-after']),
    pushbackMs: firstHeader(headers['grpc-retry-pushback-ms']),
  };
}

/** The handler of one attempt: forwards to the caller's handler once the loop commits to this attempt's response. */
class AttemptHandler implements Handler {
  controller: Controller | undefined;
  mode = PENDING;
  cancelReason: Error | undefined;
  status = 0;
  headers: Headers = {};
  statusMessage = '';
  chunks: Buffer[] | undefined;
  trailers: Headers = {};

  constructor(
    private readonly call: UndiciCall,
    readonly attempt: number,
  ) {}

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.cancelReason !== undefined) controller.abort(this.cancelReason);
  }

  onResponseStart(controller: Controller, status: number, headers: Headers, statusMessage?: string): void {
    this.controller = controller;
    if (this.mode !== PENDING) return;
    if (status < 200) {
      this.call.handler.onResponseStart?.(this.call, status, headers, statusMessage); // 1xx: informational
      return;
    }
    this.status = status;
    this.headers = headers;
    this.statusMessage = statusMessage ?? '';
    if (this.call.buffer) {
      this.mode = BUFFERING;
      this.chunks = [];
      return;
    }
    this.call.runner.settle(this.attempt, responseOutcome(status, headers), this);
    if (this.mode === PENDING) this.orphan(); // the loop had moved on
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.mode === COMMITTED) this.call.handler.onResponseData?.(this.call, chunk);
    else if (this.mode === BUFFERING) this.chunks?.push(chunk);
  }

  onResponseEnd(_controller: Controller, trailers: Headers): void {
    if (this.mode === COMMITTED) {
      this.mode = DONE;
      this.call.handler.onResponseEnd?.(this.call, trailers);
    } else if (this.mode === BUFFERING) {
      this.trailers = trailers;
      this.call.runner.settle(this.attempt, responseOutcome(this.status, this.headers), this);
      if (this.mode === BUFFERING) this.mode = DONE;
    } else {
      this.mode = DONE;
    }
  }

  onResponseError(_controller: Controller, error: Error): void {
    const mode = this.mode;
    this.mode = DONE;
    if (mode === COMMITTED) this.call.handler.onResponseError?.(this.call, error);
    else if (mode === PENDING || mode === BUFFERING) {
      this.chunks = undefined;
      this.call.runner.settle(this.attempt, outcomeOfError(error, mode === BUFFERING), undefined, error);
    }
  }

  /** Stops this attempt; whatever it reports later is ignored. */
  cancel(reason: Error): void {
    this.mode = DONE;
    this.chunks = undefined;
    this.cancelReason = reason;
    this.controller?.abort(reason);
  }

  private orphan(): void {
    this.cancel(new Error('seawall: attempt superseded'));
  }
}

/** One call through the interceptor. It is also the controller the caller's handler sees for the whole call. */
class UndiciCall implements AttemptTransport<AttemptHandler>, Controller {
  readonly runner: CallRunner<AttemptHandler>;
  readonly buffer: boolean;
  private current: AttemptHandler | undefined;
  private delivered: AttemptHandler | undefined;
  private draining: AttemptHandler | undefined;
  private pausedByCaller = false;
  private abortReason: Error | null = null;
  private failed = false;
  private dispatched = true;

  constructor(
    client: SeawallClient,
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly opts: Dispatcher.DispatchOptions,
    readonly handler: Handler,
  ) {
    const origin = opts.origin === undefined ? '' : typeof opts.origin === 'string' ? opts.origin : opts.origin.origin;
    const options = opts.seawall;
    this.buffer = options?.bufferResponse ?? client.settings.bufferResponse;
    this.runner = new CallRunner(
      client,
      {
        method: opts.method.toUpperCase(),
        url: origin + opts.path,
        origin: originOf(origin),
        hasIdempotencyKey: undiciHeadersHave(opts.headers as UndiciHeaderInput, IDEMPOTENCY_KEY_HEADER),
        bodyReplayable: isReplayableBody(opts.body),
        options,
        signal: undefined,
      },
      this,
    );
  }

  start(): boolean {
    // The caller gets one controller for the whole call at once, so an abort works during backoff too.
    this.handler.onRequestStart?.(this, {});
    this.runner.start();
    return this.dispatched;
  }

  // Controller, as the caller's handler sees it.
  get aborted(): boolean {
    return this.abortReason !== null;
  }
  get paused(): boolean {
    return this.pausedByCaller;
  }
  get reason(): Error | null {
    return this.abortReason;
  }
  abort(reason: Error): void {
    if (this.abortReason !== null) return;
    this.abortReason = reason ?? new Error('aborted');
    if (this.delivered !== undefined) this.delivered.controller?.abort(this.abortReason);
    else this.runner.abort(this.abortReason, true);
  }
  pause(): void {
    this.pausedByCaller = true;
    this.delivered?.controller?.pause();
  }
  resume(): void {
    this.pausedByCaller = false;
    this.delivered?.controller?.resume();
  }

  // AttemptTransport, as the loop sees it.
  send(attempt: number, _plan: AttemptPlan, headers: Record<string, string>): void {
    const draining = this.draining;
    if (draining !== undefined) {
      this.draining = undefined;
      if (draining.mode === DRAINING) draining.cancel(new Error('seawall: drain stopped by the next attempt'));
    }
    const handler = new AttemptHandler(this, attempt);
    this.current = handler;
    const merged = mergeUndiciHeaders(this.opts.headers as UndiciHeaderInput, headers);
    const opts = { ...this.opts, headers: merged as Dispatcher.DispatchOptions['headers'] };
    this.dispatched = this.dispatch(opts, handler);
  }

  cancel(attempt: number, reason: unknown): void {
    const current = this.current;
    if (current !== undefined && current.attempt === attempt) {
      current.cancel(reason instanceof Error ? reason : new Error(String(reason)));
    }
  }

  deliver(attempt: AttemptHandler): void {
    this.delivered = attempt;
    const handler = this.handler;
    if (attempt.mode === BUFFERING) {
      attempt.mode = DONE;
      handler.onResponseStart?.(this, attempt.status, attempt.headers, attempt.statusMessage);
      for (const chunk of attempt.chunks ?? []) handler.onResponseData?.(this, chunk);
      attempt.chunks = undefined;
      handler.onResponseEnd?.(this, attempt.trailers);
      return;
    }
    attempt.mode = COMMITTED;
    if (this.pausedByCaller) attempt.controller?.pause();
    handler.onResponseStart?.(this, attempt.status, attempt.headers, attempt.statusMessage);
  }

  discard(attempt: AttemptHandler): void {
    attempt.chunks = undefined;
    if (attempt.mode === PENDING) {
      attempt.mode = DRAINING;
      this.draining = attempt;
    } else {
      attempt.mode = DONE; // a buffered body is complete already
    }
  }

  fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.handler.onResponseError?.(this, error as Error);
  }
}

/**
 * An undici interceptor that carries `policy`: `new Agent().compose(retryInterceptor({ policy }))`.
 * Responses stream to the caller as soon as the policy accepts them (or, with bufferResponse, once complete).
 */
export function retryInterceptor(options: RetryInterceptorOptions): Dispatcher.DispatcherComposeInterceptor {
  const client = new SeawallClient(new ClientSettings(options), options.telemetry);
  return (dispatch) =>
    function seawallDispatch(opts: Dispatcher.DispatchOptions, handler: Handler): boolean {
      // Upgrades and CONNECT hand over the socket: nothing to retry.
      if (opts.upgrade || opts.method === 'CONNECT') return dispatch(opts, handler);
      return new UndiciCall(client, dispatch, opts, handler).start();
    };
}
