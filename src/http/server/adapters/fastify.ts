// Fastify plugin for the callee side: the same gate as node:http, wired into Fastify's hooks.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { runWithContext } from '../../../driver/context.js';
import { openTelemetry } from '../../../driver/otel.js';
import { handlerClaimHeaders } from '../answer-claims.js';
import { type InboundRequest, QUEUED, type Refusal, type Resumer, RUN, ServerGate } from '../core.js';
import { clientGone, connectionLost, type ExchangeEnd, unwatchExchange, watchExchange } from '../exchange-end.js';
import type { SeawallControls } from '../node.js';
import type { ShedOptions } from '../options.js';
import { runInCallerTrace } from '../telemetry.js';

// Fastify is an optional peer: these structural types stand in for its own, so Seawall's published declarations never
// import 'fastify' (a user without it installed gets no type errors). Fastify's objects satisfy them.
interface FastifyReply {
  /** node's ServerResponse (typed by node:http, which is no optional peer). */
  readonly raw: ServerResponse;
  readonly statusCode: number;
  code(status: number): FastifyReply;
  headers(values: Record<string, string>): FastifyReply;
  header(name: string, value: string): FastifyReply;
  hasHeader(name: string): boolean;
  removeHeader(name: string): FastifyReply;
  send(payload?: unknown): unknown;
}
interface FastifyRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly raw: IncomingMessage;
}
interface FastifyInstance {
  decorate(name: string, value: unknown): unknown;
  addHook(name: string, hook: (...args: never[]) => unknown): unknown;
}
type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;
type OnSendHook = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
) => void;

/**
 * Types `app.seawall` in your code: `declare module 'fastify' { interface FastifyInstance extends SeawallFastifyDecorations {} }`.
 */
export interface SeawallFastifyDecorations {
  /** Seawall's stats() and update() for this plugin registration. */
  seawall: SeawallControls;
}

/** Marks replies the middleware wrote itself, so onSend does not count them as the handler's 5xx. */
const REFUSED = Symbol('seawall.refused');
/** The inbound request of a reply (its relay mark is read when the handler answers with a 5xx). */
const INBOUND = Symbol('seawall.inbound');
type MarkedReply = FastifyReply & { [REFUSED]?: boolean; [INBOUND]?: InboundRequest };

function sendRefusal(reply: FastifyReply, refusal: Refusal): void {
  (reply as MarkedReply)[REFUSED] = true;
  reply.code(refusal.status).headers(refusal.headers as Record<string, string>); // policy/hop.ts: one refusal
  reply.send();
}

/**
 * Lets Fastify run the rest of the request's lifecycle (body parsing, the route); with OpenTelemetry loaded, in a
 * trusted caller's trace (refusals never pay for the extraction).
 */
function continueLifecycle(
  inbound: InboundRequest,
  headers: FastifyRequest['headers'],
  done: (error?: Error) => void,
): void {
  if (openTelemetry() && inbound.trusted) runInCallerTrace(headers, () => done());
  else done();
}

class FastifyExchange implements Resumer, ExchangeEnd {
  request!: InboundRequest;
  private over = false;

  constructor(
    private readonly gate: ServerGate,
    private readonly req: IncomingMessage,
    private readonly headers: FastifyRequest['headers'],
    private readonly reply: FastifyReply,
    private readonly done: (error?: Error) => void,
  ) {}

  /** The response finished, or its connection or stream closed (exchange-end.ts, pipelines included). */
  exchangeOver(): void {
    if (this.over) return;
    this.over = true;
    unwatchExchange(this.req, this);
    this.gate.end(this.request, clientGone(this.req, this.reply.raw));
  }

  resume(_request: InboundRequest, refusal: Refusal | null): void {
    if (refusal !== null) sendRefusal(this.reply, refusal);
    else if (connectionLost(this.req)) {
      // Nobody to run it for: the slot goes back at once, and the request never counts as started.
      this.gate.abandon(this.request);
      this.exchangeOver();
    } else continueLifecycle(this.request, this.headers, this.done);
  }
}

/**
 * `app.register(seawallFastify, { workers: 50, queueLimit: 200 })`. Applies to the registering scope and its
 * children (like a fastify-plugin plugin). Handlers read currentContext() for the deadline and AbortSignal.
 */
export const seawallFastify = (app: unknown, options: ShedOptions | undefined, done: (error?: Error) => void): void => {
  const instance = app as FastifyInstance;
  let gate: ServerGate;
  try {
    gate = new ServerGate(options);
  } catch (error) {
    done(error as Error);
    return;
  }
  instance.decorate('seawall', { gate, stats: () => gate.stats(), update: (o) => gate.update(o) } as SeawallControls);
  const onRequest: OnRequestHook = (request, reply, hookDone) => {
    const exchange = new FastifyExchange(gate, request.raw, request.headers, reply, hookDone);
    const inbound = gate.arrive(request.headers, request.raw.socket, true);
    exchange.request = inbound;
    (reply as MarkedReply)[INBOUND] = inbound;
    const verdict = gate.admit(inbound, exchange);
    if (verdict === RUN) {
      watchExchange(request.raw, reply.raw, exchange);
      // The rest of the lifecycle (body parsing keeps the async scope) runs with the request's context.
      runWithContext(inbound, () => continueLifecycle(inbound, request.headers, hookDone));
    } else if (verdict === QUEUED) {
      watchExchange(request.raw, reply.raw, exchange);
    } else {
      sendRefusal(reply, verdict);
    }
  };
  instance.addHook('onRequest', onRequest);
  // A 5xx from the handler or Fastify's error handler: marked as relayed when a downstream call failed (replacing
  // any claim header copied onto the reply), else claimed unless the handler marked it itself (answer-claims.ts).
  const onSend: OnSendHook = (_request, reply, payload, hookDone) => {
    const marked = reply as MarkedReply;
    if (reply.statusCode >= 500 && marked[REFUSED] !== true) {
      gate.countHandler5xx();
      const edit = handlerClaimHeaders(reply.statusCode, marked[INBOUND], (name) => reply.hasHeader(name));
      if (edit !== null) {
        for (const name of edit.remove) if (reply.hasHeader(name)) reply.removeHeader(name);
        reply.headers(edit.set as Record<string, string>);
      }
    }
    hookDone(null, payload);
  };
  instance.addHook('onSend', onSend);
  done();
};

// What fastify-plugin sets (documented by Fastify): no encapsulation, so the hooks cover the registering scope.
Object.assign(seawallFastify, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'seawall',
  [Symbol.for('plugin-meta')]: { name: 'seawall', fastify: '>=4' },
});
