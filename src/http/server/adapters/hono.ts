// Hono middleware for the callee side: the same gate as node:http, on Fetch-style requests.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { runWithContext } from '../../../driver/context.js';
import { openTelemetry } from '../../../driver/otel.js';
import { type ClaimEdit, handlerClaimHeaders } from '../answer-claims.js';
import { type InboundRequest, QUEUED, type Refusal, type Resumer, RUN, ServerGate } from '../core.js';
import { connectionLost, type ExchangeEnd, unwatchExchange, watchPipelined } from '../exchange-end.js';
import type { SeawallControls } from '../node.js';
import type { ShedOptions } from '../options.js';
import { runInCallerTrace } from '../telemetry.js';

// Hono is an optional peer: this structural type stands in for its Context, so Seawall's published declarations never
// import 'hono'. Hono's Context satisfies it.
interface Context {
  readonly req: { readonly raw: Request };
  readonly env: unknown;
  res: Response;
}

/** Accepted by Hono's `app.use()` (a MiddlewareHandler), with stats() and update(). */
export type SeawallHonoMiddleware = ((c: unknown, next: () => Promise<void>) => Promise<Response | undefined>) &
  SeawallControls;

/** The refusal (policy/hop.ts) as a Response: the same status and headers every adapter sends. */
function refusalResponse(refusal: Refusal): Response {
  return new Response(null, { status: refusal.status, headers: refusal.headers });
}

const GONE = 'gone' as const;

/** Resolves when a queued request leaves the queue: null = run, a refusal to answer, or GONE (client left). */
class Waiter implements Resumer {
  resolve!: (outcome: Refusal | null | typeof GONE) => void;
  readonly promise = new Promise<Refusal | null | typeof GONE>((resolve) => {
    this.resolve = resolve;
  });

  resume(_request: InboundRequest, refusal: Refusal | null): void {
    this.resolve(refusal);
  }
}

/** Peer address on @hono/node-server (c.env.incoming); undefined on other runtimes. */
function remoteAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** node's request and response on @hono/node-server (c.env.incoming / outgoing); undefined on other runtimes. */
function nodeObjects(c: Context): { incoming: IncomingMessage; outgoing: ServerResponse } | undefined {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  const incoming = env?.incoming;
  const outgoing = env?.outgoing;
  if (incoming === undefined || outgoing === undefined || typeof incoming.on !== 'function') return undefined;
  return { incoming, outgoing };
}

function applyClaims(headers: Headers, edit: ClaimEdit): void {
  for (const name of edit.remove) headers.delete(name);
  for (const name in edit.set) headers.set(name, edit.set[name] as string);
}

/**
 * Marks a handler's 5xx (answer-claims.ts): relayed as the failed downstream calls said (replacing any claim header
 * the Response carries), else claimed unless the handler marked it itself.
 */
function claim(c: Context, inbound: InboundRequest): void {
  const res = c.res;
  if (res.status < 500) return;
  const edit = handlerClaimHeaders(res.status, inbound, (name) => res.headers.has(name));
  if (edit === null) return;
  try {
    applyClaims(res.headers, edit);
  } catch {
    // immutable headers (a Response from fetch, e.g. a downstream's answer passed on as is): copy it. Hono's setter
    // copies the current Response's headers onto a new one (the callee's claim among them): unset it first.
    const copy = new Response(res.body, res);
    applyClaims(copy.headers, edit);
    (c as { res: Response | undefined }).res = undefined;
    c.res = copy;
  }
}

/**
 * `app.use(seawallHono({ workers: 50, queueLimit: 200 }))`. The slot is released when the handler's Response is
 * ready (a streamed body may still be flowing) or when the client goes away (c.req.raw.signal), whichever is first.
 */
export function seawallHono(options: ShedOptions = {}): SeawallHonoMiddleware {
  const gate = new ServerGate(options);
  const middleware = async (context: unknown, next: () => Promise<void>): Promise<Response | undefined> => {
    const c = context as Context;
    const raw = c.req.raw;
    const inbound = gate.arrive(raw.headers, remoteAddressOf(c));
    const waiter = new Waiter();
    const verdict = gate.admit(inbound, waiter);
    if (verdict !== RUN && verdict !== QUEUED) return refusalResponse(verdict);
    const clientSignal = raw.signal;
    const onAbort = (): void => {
      gate.end(inbound, true);
      waiter.resolve(GONE);
    };
    clientSignal.addEventListener('abort', onAbort, { once: true });
    // @hono/node-server fires the request signal from the response's 'close', which a later request of an HTTP/1.1
    // pipeline never gets when its connection dies: watch that connection too (exchange-end.ts).
    const node = nodeObjects(c);
    const pipelineWatch: ExchangeEnd | undefined =
      node === undefined || node.outgoing.socket !== null ? undefined : { exchangeOver: onAbort };
    if (node !== undefined && pipelineWatch !== undefined) watchPipelined(node.incoming, node.outgoing, pipelineWatch);
    try {
      if (verdict === QUEUED) {
        const outcome = await waiter.promise;
        if (outcome !== null && outcome !== GONE) return refusalResponse(outcome);
        // Gone while it waited, or while the promise settled (its slot may already be released): nobody reads it.
        if (outcome === GONE || inbound.done || (node !== undefined && connectionLost(node.incoming))) {
          gate.end(inbound, true);
          return new Response(null, { status: 499 });
        }
      }
      // With OpenTelemetry loaded, a trusted caller's trace is continued (refusals never pay for the extraction).
      const traced = openTelemetry() && inbound.trusted;
      await runWithContext(inbound, () => (traced ? runInCallerTrace(raw.headers, next) : next()));
      if (c.res.status >= 500) gate.countHandler5xx();
      claim(c, inbound);
      return undefined;
    } finally {
      clientSignal.removeEventListener('abort', onAbort);
      if (node !== undefined && pipelineWatch !== undefined) unwatchExchange(node.incoming, pipelineWatch);
      gate.end(inbound, false);
    }
  };
  const controls: SeawallControls = { gate, stats: () => gate.stats(), update: (o) => gate.update(o) };
  return Object.assign(middleware, controls);
}
