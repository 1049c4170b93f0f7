// retryInterceptor: the RetryPolicy as an undici interceptor (Agent.compose / Dispatcher.compose), streaming by default.

import type { Dispatcher } from 'undici';
import { type AttemptTransport, CallRunner, NO_HEADERS, SeawallClient } from '../../driver/attempt-loop.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  mergeUndiciHeaders,
  type UndiciHeaderInput,
  undiciHeadersHave,
} from '../../driver/headers.js';
import {
  type CallRequest,
  ClientSettings,
  type SeawallClientOptions,
  type SeawallRequestOptions,
} from '../../driver/options.js';
import { isReplayableBody, originOf } from '../../driver/traits.js';
import { isLimitsInstance } from '../../driver/upstream/options.js';
import { type ClientStats, clientStats } from '../../driver/upstream/stats.js';
import type { ConfigIssue } from '../../policy/core/config-error.js';
import type { AttemptPlan } from '../../policy/retry/retry.js';
import type { PoolView } from '../../policy/upstream/pipeline.js';
import { dispatchWatched } from './connector.js';
import { connectionFree, isUndiciPool, type UndiciPool } from './pool-view.js';
import { AttemptHandler, type AttemptOwner, BUFFERING, COMMITTED, DONE, PENDING } from './undici-attempt.js';
import { type CallerSink, ControllerSink, LegacySink, speaksLegacy } from './undici-caller.js';

declare module 'undici' {
  namespace Dispatcher {
    interface DispatchOptions {
      /** Seawall's per-request options (read by retryInterceptor). */
      seawall?: SeawallRequestOptions;
    }
  }
}

export interface RetryInterceptorOptions extends SeawallClientOptions {
  /**
   * The undici Agent, Pool or Client this interceptor is composed onto. Its stats say whether a connected connection
   * is free when an attempt is admitted: an attempt that has one takes a request slot of `limits`, one that must wait
   * for a connection a pending slot (`maxPendingRequests`). Without it the interceptor cannot tell, and every attempt
   * takes a request slot, as with createFetch: `limits.maxPendingRequests` written without `pool` is a ConfigError.
   */
  pool?: UndiciPool;
}

/**
 * The problems of the `pool` option: no undici dispatcher with stats, or missing where `limits.maxPendingRequests` is
 * written (without the pool's stats no attempt can be told pending, so the limit would never bind: said, not ignored).
 */
function poolIssues(options: RetryInterceptorOptions): ConfigIssue[] {
  const pool: unknown = options.pool;
  if (pool === undefined) {
    const limits = options.limits as { maxPendingRequests?: unknown } | undefined;
    const written = typeof limits === 'object' && limits !== null && !isLimitsInstance(limits);
    // @ko pending-needs-pool
    if (written && limits.maxPendingRequests !== undefined) {
      return [
        {
          path: 'limits.maxPendingRequests',
          message:
            'binds only with `pool` (the undici Agent, Pool or Client the interceptor is composed onto): without its ' +
            'stats no attempt can be told to be waiting for a connection; pass pool, or drop maxPendingRequests',
        },
      ];
    }
    return [];
  }
  if (isUndiciPool(pool)) return [];
  const got = pool === null ? 'null' : typeof pool;
  return [
    { path: 'pool', message: `must be the undici Agent, Pool or Client the interceptor is composed onto, got ${got}` },
  ];
}

/** What retryInterceptor returns: an undici interceptor, plus the client's stats. */
export type SeawallInterceptor = Dispatcher.DispatcherComposeInterceptor & {
  /** The policy's counters and, per upstream, the breaker, limits, balancer and outlier detection (upstream-stats.ts). */
  stats(): ClientStats;
};

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;

/**
 * The caller's options with the attempt's headers added. Written so V8 clones the options object on its fast path:
 * adding a property the source object lacks after a spread (`{ ...opts, headers }` when opts has no `headers`) costs
 * ~0.7 µs per call on Node 20, ten times the clone itself.
 */
function withHeaders(opts: Dispatcher.DispatchOptions, extra: Record<string, string>): Dispatcher.DispatchOptions {
  const headers = mergeUndiciHeaders(opts.headers as UndiciHeaderInput, extra) as Dispatcher.DispatchOptions['headers'];
  return Object.hasOwn(opts, 'headers') ? { ...opts, headers } : { headers, ...opts };
}

/** Remembers the last origin normalised (a client usually talks to a few origins, so the scan is rarely repeated). */
let lastOriginIn = '';
let lastOriginOut = '';
function normalisedOrigin(origin: string): string {
  if (origin !== lastOriginIn) {
    lastOriginOut = originOf(origin);
    lastOriginIn = origin;
  }
  return lastOriginOut;
}

/**
 * One call through the interceptor: the request the loop runs, the transport it drives, and the controller a
 * controller-API caller sees for the whole call.
 */
class UndiciCall implements AttemptTransport<AttemptHandler>, AttemptOwner, Controller, CallRequest, PoolView {
  readonly runner: CallRunner<AttemptHandler>;
  readonly sink: CallerSink;
  readonly buffer: boolean;
  readonly drainMaxBytes: number;
  private readonly drainTimeoutMs: number;
  private ended = false;
  // CallRequest
  readonly method: string;
  readonly origin: string;
  readonly hasIdempotencyKey: boolean;
  readonly bodyReplayable: boolean;
  readonly options: SeawallRequestOptions | undefined;
  readonly signal = undefined;
  /**
   * undici tells the attempt handler when its request gets a connection (onConnect), so the call is the loop's view of
   * the pool: an attempt is pending only while no connection is free for it, and counts as sent at onConnect.
   */
  readonly pool: PoolView = this;
  private readonly rawOrigin: string;

  private current: AttemptHandler | undefined;
  private delivered: AttemptHandler | undefined;
  private draining: AttemptHandler | undefined;
  private pausedByCaller = false;
  private abortReason: Error | null = null;
  private failed = false;
  private dispatched = true;

  constructor(
    client: SeawallClient,
    private readonly below: UndiciPool | undefined,
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly opts: Dispatcher.DispatchOptions,
    handler: Handler,
  ) {
    const origin = opts.origin === undefined ? '' : typeof opts.origin === 'string' ? opts.origin : opts.origin.origin;
    const options = opts.seawall;
    this.rawOrigin = origin;
    this.method = opts.method.toUpperCase();
    this.origin = normalisedOrigin(origin);
    this.hasIdempotencyKey = undiciHeadersHave(opts.headers as UndiciHeaderInput, IDEMPOTENCY_KEY_HEADER);
    this.bodyReplayable = isReplayableBody(opts.body);
    this.options = options;
    this.buffer = options?.bufferResponse ?? client.settings.bufferResponse;
    this.drainMaxBytes = client.settings.drainMaxBytes;
    this.drainTimeoutMs = client.settings.drainTimeoutMs;
    this.sink = speaksLegacy(handler)
      ? new LegacySink(handler, (reason) => this.abort(reason as Error)) // abort() defaults a missing reason
      : new ControllerSink(handler, this);
    this.runner = new CallRunner(client, this, this);
  }

  /** The URL, for telemetry and errors only (built when asked). */
  get url(): string {
    return this.rawOrigin + this.opts.path;
  }

  start(): boolean {
    // The caller gets its abort for the whole call at once, so an abort works during backoff too.
    this.sink.start();
    this.runner.start();
    return this.dispatched;
  }

  /** PoolView: a free connected connection to the attempt's origin? Unknown without the `pool` option: yes. */
  connectionFree(origin: string | null): boolean {
    const below = this.below;
    // @ko pending-pool-stats-read
    return below === undefined || connectionFree(below, origin ?? this.rawOrigin);
  }

  // Controller, as a controller-API caller sees it.
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
    if (this.delivered !== undefined) this.delivered.abortTransfer(this.abortReason);
    else this.runner.abort(this.abortReason, true);
  }
  pause(): void {
    this.pausedByCaller = true; // the next data event answers false, which pauses the attempt
  }
  resume(): void {
    if (!this.pausedByCaller) return;
    this.pausedByCaller = false;
    this.delivered?.resume();
  }

  // AttemptTransport, as the loop sees it.
  send(attempt: number, _plan: AttemptPlan, headers: Record<string, string>, target: string | undefined): void {
    this.stopDraining('seawall: drain stopped by the next attempt');
    const handler = new AttemptHandler(this, attempt);
    this.current = handler;
    // Nothing to add: the caller's options go as they are (undici copies what it keeps). To a picked endpoint, the same
    // path on the endpoint's origin (the Agent routes by origin).
    let opts = headers === NO_HEADERS ? this.opts : withHeaders(this.opts, headers);
    if (target !== undefined) {
      if (opts === this.opts) opts = { ...opts };
      opts.origin = target; // our own copy
    }
    // The attempt handler speaks the raw API, which undici's dispatch accepts beside the controller API.
    this.dispatched = dispatchWatched(handler, this.dispatch, opts, handler as unknown as Handler);
  }

  cancel(attempt: number, reason: unknown): void {
    const current = this.current;
    if (current !== undefined && current.attempt === attempt) {
      current.cancel(reason instanceof Error ? reason : new Error(String(reason)));
    }
  }

  deliver(attempt: AttemptHandler): void {
    this.delivered = attempt;
    const sink = this.sink;
    if (attempt.mode === BUFFERING) {
      attempt.mode = DONE;
      sink.head(attempt.status, attempt.rawHeaders, attempt.resume, attempt.statusMessage);
      for (const chunk of attempt.chunks ?? []) sink.data(chunk);
      attempt.chunks = undefined;
      sink.end(attempt.rawTrailers);
      return;
    }
    attempt.mode = COMMITTED;
    attempt.flowing = sink.head(attempt.status, attempt.rawHeaders, attempt.resume, attempt.statusMessage);
  }

  discard(attempt: AttemptHandler): void {
    attempt.chunks = undefined;
    if (attempt.mode !== PENDING) {
      attempt.mode = DONE; // a buffered body is complete already
    } else if (this.ended || this.drainMaxBytes === 0) {
      attempt.cancel(new Error('seawall: response discarded')); // the call is over, or draining is off: close it
    } else {
      this.stopDraining('seawall: drain stopped by a newer discard');
      attempt.startDrain(this.drainTimeoutMs);
      this.draining = attempt;
    }
  }

  /** A per-try timeout before undici put the request on a connection: it was never sent (a hung connect). */
  unsent(attempt: number): boolean {
    const current = this.current;
    return current !== undefined && current.attempt === attempt && !current.connected;
  }

  callEnded(): void {
    this.ended = true;
    this.stopDraining('seawall: drain stopped, the call ended');
  }

  private stopDraining(message: string): void {
    const draining = this.draining;
    if (draining !== undefined) {
      this.draining = undefined;
      draining.stopDrain(message);
    }
  }

  fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.sink.error(error as Error);
  }
}

/**
 * An undici interceptor that carries `policy`: `new Agent().compose(retryInterceptor({ policy }))`.
 * Responses stream to the caller as soon as the policy accepts them (or, with bufferResponse, once complete).
 */
export function retryInterceptor(options: RetryInterceptorOptions): SeawallInterceptor {
  const settings = new ClientSettings(options, 'pool', poolIssues(options));
  const client = new SeawallClient(settings, options.telemetry, 'undici');
  const below = options.pool;
  const interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) =>
    function seawallDispatch(opts: Dispatcher.DispatchOptions, handler: Handler): boolean {
      // Upgrades and CONNECT hand over the socket: nothing to retry.
      if (opts.upgrade || opts.method === 'CONNECT') return dispatch(opts, handler);
      return new UndiciCall(client, below, dispatch, opts, handler).start();
    };
  return Object.assign(interceptor, { stats: () => clientStats(client.settings) });
}
