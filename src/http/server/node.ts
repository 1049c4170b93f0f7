// Callee middleware for node:http (seawallHandler) and Connect/Express (shed): admission, deadlines, claims.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { runWithContext, type SeawallContext } from '../../driver/context.js';
import { openTelemetry } from '../../driver/otel.js';
import { abandonedErrors, admitted, answerAbandoned, type ConnectErrorMiddleware } from './abandoned.js';
import { CLAIM_HEADERS, type ClaimEdit, handlerClaimHeaders } from './answer-claims.js';
import { type InboundRequest, QUEUED, type Refusal, type Resumer, RUN, ServerGate, type ServerStats } from './core.js';
import { clientGone, connectionLost, type ExchangeEnd, unwatchExchange, watchExchange } from './exchange-end.js';
import type { ShedOptions } from './options.js';
import { runInCallerTrace } from './telemetry.js';

/** What every Seawall middleware exposes besides being a middleware. */
export interface SeawallControls {
  /** Counters, gauges and the queue-wait histogram (see docs/server.md). */
  stats(): ServerStats;
  /** Changes limits at run time (workers, queueLimit, retryAfter, dropExpired, discipline, lifoAfter, maxDeadline). */
  update(options: Parameters<ServerGate['update']>[0]): void;
  /** The driver itself (its LoadShedder is `gate.shedder`). */
  readonly gate: ServerGate;
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;
export type SeawallListener = ((req: IncomingMessage, res: ServerResponse) => void) & SeawallControls;
export type ConnectMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
export type SeawallMiddleware = ConnectMiddleware &
  SeawallControls & {
    /**
     * Error middleware for after the routes (`app.use(guard.errors)`): an error caused by the request being abandoned
     * (its client went away, its deadline passed) ends quietly, 504 for a deadline; others go on to `next(error)`.
     */
    readonly errors: ConnectErrorMiddleware;
  };

export interface NodeHandlerOptions extends ShedOptions {
  /**
   * Told when the handler throws or rejects (the middleware answers 500 if it still can, and never cuts a response
   * the handler had already ended). Default: console.error.
   */
  onError?: (error: unknown, req: IncomingMessage) => void;
}

/** A refusal's headers plus an empty body's framing, built once per refusal object (refusals are shared data). */
const WIRE_HEADERS = new WeakMap<Refusal, Record<string, string>>();

/** Writes the middleware's own answer (policy/hop.ts): 503 + Retry-After / retry-after-ms, or 504; both claimed. */
export function writeRefusal(res: ServerResponse, refusal: Refusal): void {
  if (res.headersSent || res.destroyed) return;
  let headers = WIRE_HEADERS.get(refusal);
  if (headers === undefined) {
    headers = { ...refusal.headers, 'content-length': '0' };
    WIRE_HEADERS.set(refusal, headers);
  }
  res.writeHead(refusal.status, headers);
  res.end();
}

const ORIGINAL_WRITE_HEAD = Symbol('seawall.writeHead');
const INBOUND = Symbol('seawall.inbound');
type WriteHead = (statusCode: number, a?: unknown, b?: unknown) => ServerResponse;
type ClaimingResponse = ServerResponse & {
  [ORIGINAL_WRITE_HEAD]?: WriteHead;
  [INBOUND]?: SeawallContext | undefined;
};

/** Does writeHead's headers argument (an object, or a raw [name, value, ...] / [[name, value], ...] list) set `name`? */
function headersArgSets(headers: unknown, name: string): boolean {
  if (headers === null || typeof headers !== 'object') return false;
  if (Array.isArray(headers)) {
    if (Array.isArray(headers[0])) return headers.some((pair) => String(pair[0]).toLowerCase() === name);
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return true;
    return false;
  }
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function isClaimHeader(name: unknown): boolean {
  return CLAIM_HEADERS.includes(String(name).toLowerCase());
}

/**
 * A copy of writeHead's headers argument, in its own form, without any claim header and with `set` added. The
 * caller's object is never changed (it may be a downstream answer's headers, forwarded as is).
 */
function withClaims(headers: object, set: Readonly<Record<string, string>>): object {
  if (Array.isArray(headers)) {
    if (Array.isArray(headers[0])) {
      const pairs = headers.filter((pair: unknown[]) => !isClaimHeader(pair[0]));
      for (const name in set) pairs.push([name, set[name]]);
      return pairs;
    }
    const flat: unknown[] = [];
    for (let i = 0; i < headers.length; i += 2) if (!isClaimHeader(headers[i])) flat.push(headers[i], headers[i + 1]);
    for (const name in set) flat.push(name, set[name]);
    return flat;
  }
  const copy: Record<string, unknown> = {};
  const source = headers as Record<string, unknown>;
  for (const key of Object.keys(source)) if (!isClaimHeader(key)) copy[key] = source[key];
  return Object.assign(copy, set);
}

/** Applies a claim edit to the headers set so far (setHeader / removeHeader). */
function applyClaims(res: ServerResponse, edit: ClaimEdit): void {
  for (const name of edit.remove) if (res.hasHeader(name)) res.removeHeader(name);
  for (const name in edit.set) res.setHeader(name, edit.set[name] as string);
}

/**
 * writeHead that marks a 5xx with its claim headers (answer-claims.ts: relayed as the failed downstream calls said,
 * replacing any claim header the answer carries; else the handler's own claim header, set with setHeader or in
 * writeHead's own headers, wins; else claimed). Headers passed in writeHead's own argument are passed on as a
 * filtered copy (they would override setHeader's).
 */
function claimingWriteHead(this: ClaimingResponse, statusCode: number, a?: unknown, b?: unknown): ServerResponse {
  if (statusCode >= 500) {
    const edit = handlerClaimHeaders(
      statusCode,
      this[INBOUND],
      (name) => this.hasHeader(name) || headersArgSets(a, name) || headersArgSets(b, name),
    );
    if (edit !== null) {
      // node reads the headers from the third argument after a status message, else from whichever is given.
      const inB = typeof a === 'string' || b !== undefined;
      const headers = inB ? b : a;
      if (headers !== null && typeof headers === 'object') {
        for (const name of CLAIM_HEADERS) if (this.hasHeader(name)) this.removeHeader(name);
        if (inB) b = withClaims(headers, edit.set);
        else a = withClaims(headers, edit.set);
      } else {
        applyClaims(this, edit);
      }
    }
  }
  // Call whatever writeHead was in place before us (another middleware may have wrapped it), else the prototype's.
  const original = this[ORIGINAL_WRITE_HEAD] ?? (Object.getPrototypeOf(this).writeHead as WriteHead);
  return original.call(this, statusCode, a, b);
}

/**
 * Every response goes through writeHead (res.end() without it calls writeHead via _implicitHeader). `request`: the
 * inbound request whose relay mark a 5xx carries (none: every 5xx is claimed).
 */
export function claimServerErrors(res: ServerResponse, request?: SeawallContext): void {
  const r = res as ClaimingResponse;
  r[INBOUND] = request;
  const current = res.writeHead as unknown;
  if (current === claimingWriteHead) return;
  if (current !== Object.getPrototypeOf(res).writeHead) r[ORIGINAL_WRITE_HEAD] = current as WriteHead;
  res.writeHead = claimingWriteHead as ServerResponse['writeHead'];
}

function defaultOnError(error: unknown): void {
  console.error('seawall: request handler failed:', error);
}

/** One request/response pair driven through the gate. */
class NodeExchange implements Resumer, ExchangeEnd {
  request!: InboundRequest;
  private ran = false;
  private over = false;

  constructor(
    private readonly gate: ServerGate,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly handler: NodeHandler,
    private readonly next: ((error?: unknown) => void) | null,
    private readonly onError: (error: unknown, req: IncomingMessage) => void,
  ) {}

  /** The response finished, or its connection or stream closed (exchange-end.ts): release, exactly once. */
  exchangeOver(): void {
    if (this.over) return;
    this.over = true;
    const res = this.res;
    unwatchExchange(this.req, this);
    if (this.ran && res.headersSent && res.statusCode >= 500) this.gate.countHandler5xx();
    this.gate.end(this.request, clientGone(this.req, res));
  }

  resume(_request: InboundRequest, refusal: Refusal | null): void {
    if (refusal !== null) writeRefusal(this.res, refusal);
    else if (connectionLost(this.req)) {
      // Nobody to run it for: the slot goes back at once, and the request never counts as started.
      this.gate.abandon(this.request);
      this.exchangeOver();
    } else this.run();
  }

  /** Runs the handler (the request's context is current). Never throws. */
  run(): void {
    this.ran = true;
    claimServerErrors(this.res, this.request);
    try {
      // With OpenTelemetry loaded, a trusted caller's trace is continued (refusals never pay for the extraction).
      const result =
        openTelemetry() && this.request.trusted
          ? runInCallerTrace(this.req.headers, () => this.handler(this.req, this.res))
          : this.handler(this.req, this.res);
      if (result !== null && typeof result === 'object' && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (error: unknown) => this.fail(error));
      }
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    const res = this.res;
    // A handler failing because its client went away (e.g. a body read aborted) is expected: nobody to answer.
    if (res.destroyed && !res.writableFinished) return;
    // The handler had ended the response before it threw: the response stands (it may still be flushing; destroying
    // the socket now would cut it). Report the error, touch nothing.
    if (res.writableEnded) {
      this.report(error);
      return;
    }
    if (this.next !== null) {
      this.next(error); // Connect/Express: its error handlers answer (a 5xx there is claimed by writeHead)
      return;
    }
    // Abandoned (client gone, deadline passed) and failing because of it: not an application error to report.
    if (answerAbandoned(error, this.req, res)) return;
    this.report(error);
    if (!res.headersSent) {
      // Claimed, or marked as relayed when the error is a failed downstream call's (a SeawallError let through).
      const edit = handlerClaimHeaders(500, this.request, (name) => res.hasHeader(name));
      if (edit !== null) applyClaims(res, edit);
      res.writeHead(500, { 'content-length': '0' });
      res.end();
    } else {
      res.destroy(); // half a response cannot be finished honestly; 'close' releases the slot
    }
  }

  private report(error: unknown): void {
    try {
      this.onError(error, this.req);
    } catch {
      // a failing error reporter must not take the process down
    }
  }
}

function protect(
  gate: ServerGate,
  req: IncomingMessage,
  res: ServerResponse,
  handler: NodeHandler,
  next: ((error?: unknown) => void) | null,
  onError: (error: unknown, req: IncomingMessage) => void,
): void {
  const exchange = new NodeExchange(gate, req, res, handler, next, onError);
  const request = gate.arrive(req.headers, req.socket, true);
  exchange.request = request;
  admitted(req, request);
  const verdict = gate.admit(request, exchange);
  if (verdict === RUN) {
    watchExchange(req, res, exchange);
    runWithContext(request, () => exchange.run());
  } else if (verdict === QUEUED) {
    watchExchange(req, res, exchange);
  } else {
    writeRefusal(res, verdict);
  }
}

function controls(gate: ServerGate): SeawallControls {
  return {
    gate,
    stats: () => gate.stats(),
    update: (options) => gate.update(options),
  };
}

/**
 * Wraps a node:http request listener: `http.createServer(seawallHandler(handler, { workers: 50, queueLimit: 200 }))`.
 * The handler runs with currentContext() holding the request's deadline and AbortSignal.
 */
export function seawallHandler(handler: NodeHandler, options: NodeHandlerOptions = {}): SeawallListener {
  if (typeof handler !== 'function')
    throw new TypeError('seawallHandler(handler, options): handler must be a function');
  const { onError = defaultOnError, ...shedOptions } = options ?? {};
  if (typeof onError !== 'function') throw new TypeError('seawallHandler: onError must be a function');
  const gate = new ServerGate(shedOptions, ['onError']);
  const listener = (req: IncomingMessage, res: ServerResponse): void => protect(gate, req, res, handler, null, onError);
  return Object.assign(listener, controls(gate));
}

/** Connect/Express middleware: `app.use(shed({ workers: 50, queueLimit: 200, retryAfter: '200ms' }))`. */
export function shed(options: ShedOptions = {}): SeawallMiddleware {
  const gate = new ServerGate(options);
  const middleware: ConnectMiddleware = (req, res, next) => {
    protect(gate, req, res, () => next(), next, defaultOnError);
  };
  return Object.assign(middleware, controls(gate), { errors: abandonedErrors });
}
