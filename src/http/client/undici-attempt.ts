// One attempt through the undici interceptor: its handler in undici's raw handler API, and where its response is going.

import type { Socket } from 'node:net';
import type { CallRunner } from '../../driver/attempt-loop.js';
import { outcomeOfError, RESPONDING, SENT, UNSENT } from '../../driver/outcome.js';
import type { Outcome } from '../../policy/core/types.js';
import { responseOutcome as readResponse } from '../../policy/hop/hop.js';
import { closeAbandoned, type SocketWatcher } from './connector.js';
import { type CallerSink, type RawHeaders, rawHeaderValues } from './undici-caller.js';

/** What an attempt's handler reads of the call it belongs to (undici.ts's UndiciCall). */
export interface AttemptOwner {
  readonly runner: CallRunner<AttemptHandler>;
  readonly sink: CallerSink;
  /** bufferResponse: a response is collected whole before the policy decides. */
  readonly buffer: boolean;
  readonly drainMaxBytes: number;
}

/** Where an attempt's response is going. */
export const PENDING = 0; // no response yet
export const BUFFERING = 1; // bufferResponse: collecting the body before the policy decides
export const COMMITTED = 2; // handed to the caller: events flow through
export const DRAINING = 3; // discarded: read and dropped so the connection can be reused
export const DONE = 4; // finished, or cancelled: later events are ignored

const NO_RAW_HEADERS: RawHeaders = [];
const LOCAL_ERROR: Outcome = { kind: 'local-error' };
function ignoreResume(): void {}

/** `trustClaims`: believe the response's claim headers (a callee inside the trust boundary). */
function responseOutcome(status: number, raw: RawHeaders, trustClaims: boolean): Outcome {
  if (status < 400) return { kind: 'response', status }; // no header scans on the success path
  return readResponse(status, (name) => rawHeaderValues(raw, name), trustClaims); // every line of a repeated header
}

/**
 * The handler of one attempt, in undici's raw handler API (the core reports raw headers; nothing is converted). It
 * forwards to the caller once the loop commits to this attempt's response.
 */
export class AttemptHandler implements SocketWatcher {
  /** The socket a seawallConnector opened for this attempt's dispatch, if any (connector.ts). */
  socket: Socket | undefined = undefined;
  private abortAttempt: ((reason?: Error) => void) | undefined;
  /** undici's resume for this attempt's body (after a `false` from onHeaders/onData paused it). */
  resume: () => void = ignoreResume;
  mode = PENDING;
  cancelReason: Error | undefined;
  status = 0;
  rawHeaders: RawHeaders = NO_RAW_HEADERS;
  statusMessage = '';
  chunks: Buffer[] | undefined;
  rawTrailers: RawHeaders = NO_RAW_HEADERS;
  /** The caller's answer to the head of a committed response: false = paused. */
  flowing = true;
  /** undici handed the request to a connection (onConnect): from here on it may have been written. */
  connected = false;
  /** Bytes read and dropped while DRAINING. */
  drained = 0;
  drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly call: AttemptOwner,
    readonly attempt: number,
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    this.abortAttempt = abort;
    this.connected = true;
    this.socket = undefined; // on a connection now: abort() closes it if need be
    if (this.cancelReason !== undefined) abort(this.cancelReason);
    // Limits: the pending slot becomes a request slot; refused at max-requests, nothing is written.
    else if (!this.call.runner.connected(this.attempt))
      this.cancel(new Error('seawall: refused at limits.maxRequests'));
  }

  onHeaders(status: number, rawHeaders: RawHeaders, resume: () => void, statusMessage?: string): boolean {
    this.resume = resume;
    if (this.mode !== PENDING) return true; // draining or done: read on so the connection can be reused
    // What the dispatcher below reported is checked before anything reads it (a custom dispatch may report anything).
    // @ko undici-result-checked
    if (!Number.isInteger(status) || status < 100 || status > 599 || !Array.isArray(rawHeaders)) {
      this.refuseResult(status, rawHeaders);
      return false;
    }
    if (status < 200) {
      this.call.sink.informational(status, rawHeaders, resume, statusMessage ?? ''); // 1xx: informational
      return true;
    }
    this.status = status;
    this.rawHeaders = rawHeaders;
    this.statusMessage = statusMessage ?? '';
    // Only a success is buffered inside the attempt: the policy decides an error on its head, and an error body that
    // will be discarded must not be read without bound before that (it is drained within drain's bounds instead).
    if (this.call.buffer && status < 400) {
      this.mode = BUFFERING;
      this.chunks = [];
      return true;
    }
    const runner = this.call.runner;
    runner.settle(this.attempt, responseOutcome(status, rawHeaders, runner.trustClaims), this);
    if (this.mode === PENDING) this.orphan(); // the loop had moved on
    return this.flowing;
  }

  onData(chunk: Buffer): boolean {
    const mode = this.mode;
    if (mode === COMMITTED) return this.call.sink.data(chunk);
    if (mode === BUFFERING) this.chunks?.push(chunk);
    else if (mode === DRAINING) {
      this.drained += chunk.length;
      if (this.drained > this.call.drainMaxBytes) this.stopDrain('seawall: discarded body over drain.maxBytes');
    }
    return true;
  }

  onComplete(rawTrailers: RawHeaders | null): void {
    const mode = this.mode;
    this.clearDrainTimer();
    if (mode === COMMITTED) {
      this.mode = DONE;
      this.call.sink.end(rawTrailers ?? NO_RAW_HEADERS);
    } else if (mode === BUFFERING) {
      this.rawTrailers = rawTrailers ?? NO_RAW_HEADERS;
      const runner = this.call.runner;
      runner.settle(this.attempt, responseOutcome(this.status, this.rawHeaders, runner.trustClaims), this);
      if (this.mode === BUFFERING) this.mode = DONE;
    } else {
      this.mode = DONE;
    }
  }

  onError(error: Error): void {
    const mode = this.mode;
    this.mode = DONE;
    this.clearDrainTimer();
    if (mode === COMMITTED) this.call.sink.error(error);
    else if (mode === PENDING || mode === BUFFERING) {
      this.chunks = undefined;
      // Before onConnect the request was on no connection; outcomeOfError still wants the connect itself to have failed
      // (syscall) before it calls a reset safe to replay: a dispatcher below might not report onConnect.
      const progress = mode === BUFFERING ? RESPONDING : this.connected ? SENT : UNSENT;
      this.call.runner.settle(this.attempt, outcomeOfError(error, progress, this.connected), undefined, error);
    }
  }

  /** The dispatcher below reported a head no response has: the attempt ends as a local error, its transfer aborted. */
  private refuseResult(status: unknown, rawHeaders: unknown): void {
    const shape = rawHeaders === null ? 'null' : typeof rawHeaders;
    const error = new TypeError(
      `seawall: the dispatcher below retryInterceptor reported status ${typeof status === 'number' ? status : typeof status} with raw headers of type ${Array.isArray(rawHeaders) ? 'array' : shape}; expected an integer status from 100 to 599 and an array`,
    );
    this.call.runner.settle(this.attempt, LOCAL_ERROR, undefined, error);
    this.cancel(error);
  }

  /** Starts dropping this response's body, within the client's drain bounds. */
  startDrain(timeoutMs: number): void {
    this.mode = DRAINING;
    this.drainTimer = setTimeout(() => this.stopDrain('seawall: discarded body over drain.timeout'), timeoutMs);
    this.drainTimer.unref();
  }

  /** Stops a drain: the transfer is aborted (undici closes the connection). */
  stopDrain(message: string): void {
    this.clearDrainTimer();
    if (this.mode === DRAINING) this.cancel(new Error(message));
  }

  private clearDrainTimer(): void {
    if (this.drainTimer !== undefined) {
      clearTimeout(this.drainTimer);
      this.drainTimer = undefined;
    }
  }

  /** Aborts the transfer; undici then reports the error through onError (forwarded if committed). */
  abortTransfer(reason: Error): void {
    this.abortAttempt?.(reason);
  }

  /** Stops this attempt; whatever it reports later is ignored. */
  cancel(reason: Error): void {
    this.mode = DONE;
    this.chunks = undefined;
    this.cancelReason = reason;
    if (this.abortAttempt !== undefined) this.abortAttempt(reason);
    else closeAbandoned(this.socket); // still connecting: close the connection now, not at undici's connect timeout
    this.socket = undefined;
  }

  private orphan(): void {
    this.cancel(new Error('seawall: attempt superseded'));
  }
}
