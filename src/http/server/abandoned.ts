// An abandoned request's error (its caller went away, or its deadline passed) is not an application error: quiet, 504 at most.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InboundRequest } from './core.js';

/** Connect/Express error middleware: `app.use(guard.errors)` after the routes. */
export type ConnectErrorMiddleware = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** The Seawall request of each inbound message the middleware admitted (held weakly). */
const requests = new WeakMap<IncomingMessage, InboundRequest>();

/** @internal the middleware admitted `req` as `request`. */
export function admitted(req: IncomingMessage, request: InboundRequest): void {
  requests.set(req, request);
}

/** What a signal-taking API throws when its signal fires, and what a Seawall call rejects with when its request went. */
function causedByAbandonment(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, reason, name } = error as { code?: unknown; reason?: unknown; name?: unknown };
  if (code === 'SEAWALL_CALL_FAILED') return reason === 'aborted' || reason === 'deadline-exceeded';
  return name === 'AbortError' || name === 'TimeoutError';
}

/**
 * Is `error` only the consequence of `request` being abandoned (its signal fired: client gone, or deadline passed)?
 * Then nobody waits for an answer, or the answer is the deadline's 504: it is not an application error to log.
 */
export function isAbandonment(error: unknown, request: InboundRequest | undefined): boolean {
  // @ko server-abandoned-quiet
  return request !== undefined && request.aborted !== null && causedByAbandonment(error);
}

/** Clock steps between the two timers' reads of the time (Date.now against the monotonic clock) stay below this. */
const DEADLINE_SLACK_MS = 20;

/** `error` is a Seawall call's deadline-exceeded, at (or within the slack of) the request's own deadline. */
function deadlineReached(error: unknown, request: InboundRequest): boolean {
  const e = error as { code?: unknown; reason?: unknown } | null;
  if (typeof e !== 'object' || e === null || e.code !== 'SEAWALL_CALL_FAILED' || e.reason !== 'deadline-exceeded')
    return false;
  return request.deadlineMs !== null && Date.now() >= request.deadlineMs - DEADLINE_SLACK_MS;
}

/**
 * Answers an abandoned request's error: nothing for a client that is gone (the socket is closed), 504 for a deadline
 * that passed while the client still waits (a half-sent response is cut). Returns false for any other error.
 */
export function answerAbandoned(error: unknown, req: IncomingMessage, res: ServerResponse): boolean {
  const request = requests.get(req);
  // A call inside the request inherits its deadline exactly: its timer and the request's fire in the same
  // millisecond, in either order. A call that ended deadline-exceeded at the request's deadline is the deadline.
  // @ko server-abandoned-deadline-race
  if (request !== undefined && request.aborted === null && deadlineReached(error, request)) request.abort('deadline');
  if (!isAbandonment(error, request)) return false;
  if (res.writableEnded) return true;
  if (request?.aborted === 'deadline' && !res.headersSent && !res.destroyed) {
    res.writeHead(504, { 'content-length': '0' });
    res.end();
  } else res.destroy();
  return true;
}

/**
 * Express/Connect error middleware, registered after the routes: an error caused by the request being abandoned
 * (a Seawall call rejected `aborted` or `deadline-exceeded`, an AbortError from the request's signal) ends quietly
 * (504 if the caller still waits for a passed deadline); any other error goes on to the next error handler.
 */
export const abandonedErrors: ConnectErrorMiddleware = (error, req, res, next) => {
  if (!answerAbandoned(error, req, res)) next(error);
};
