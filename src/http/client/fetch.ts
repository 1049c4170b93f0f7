// createFetch: a drop-in fetch whose every call runs through a RetryPolicy (deadline, per-try timeout, budget, backoff).

import { defaultMaxListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { type AttemptTransport, CallRunner, NO_HEADERS, SeawallClient } from '../../driver/attempt-loop.js';
import {
  type FetchHeaders,
  fetchHeadersHave,
  IDEMPOTENCY_KEY_HEADER,
  mergeFetchHeaders,
} from '../../driver/headers.js';
import { ClientSettings, type SeawallClientOptions, type SeawallRequestOptions } from '../../driver/options.js';
import { outcomeOfError, RESPONDING, SENT } from '../../driver/outcome.js';
import { isReplayableBody, originOf, pathOf } from '../../driver/traits.js';
import { type ClientStats, clientStats } from '../../driver/upstream/stats.js';
import type { Outcome } from '../../policy/core/types.js';
import { responseOutcome as readResponse } from '../../policy/hop/hop.js';
import type { AttemptPlan } from '../../policy/retry/retry.js';

/** fetch's init, plus Seawall's per-request options. */
export type SeawallRequestInit = RequestInit & { seawall?: SeawallRequestOptions };
/** The fetch createFetch returns: same call shape as the global fetch, plus the client's stats. */
export type SeawallFetch = ((input: string | URL | Request, init?: SeawallRequestInit) => Promise<Response>) & {
  /** The policy's counters and, per upstream, the breaker, limits, balancer and outlier detection (upstream-stats.ts). */
  stats(): ClientStats;
};
type BaseFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface CreateFetchOptions extends SeawallClientOptions {
  /** The fetch to wrap (default globalThis.fetch). */
  fetch?: BaseFetch;
}

function noop(): void {}

function withoutSeawall(init: SeawallRequestInit): RequestInit {
  const { seawall: _seawall, ...rest } = init;
  return rest;
}

/**
 * The caller's init with the attempt's headers and signal. The literal comes first and ours are set again after the
 * caller's fields are copied: V8 then clones on its fast path. (`{ ...init, headers, signal }` with an init lacking
 * those fields costs ~1 µs per attempt on Node 20, for adding properties the source object does not have.)
 */
function attemptInit(
  init: RequestInit | undefined,
  headers: RequestInit['headers'],
  signal: AbortSignal | undefined,
): RequestInit {
  const copy: RequestInit = { headers, signal, ...init };
  copy.headers = headers;
  copy.signal = signal;
  return copy;
}

/** After a response is handed over, the caller's signal must still cancel its body: unlinked when it is collected. */
const bodyLinks = new FinalizationRegistry<{ signal: AbortSignal; listener: () => void }>(({ signal, listener }) =>
  signal.removeEventListener('abort', listener),
);

/**
 * Lets the caller's signal cancel a handed-over body (the attempt ran on our own signal), as undici's fetch links a
 * Request's signal: one listener per live Response, removed when the Response is collected, and the signal's listener
 * limit raised the same way (1,500) so that a long-lived signal shared by many calls does not warn. (AbortSignal.any
 * would do it without a listener, but costs ~17 µs per call on Node 20 and keeps growing a long-lived signal's heap.)
 */
function linkBody(response: Response, signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) return;
  const listener = () => controller.abort(signal.reason);
  try {
    if (getMaxListeners(signal) === defaultMaxListeners) setMaxListeners(1500, signal);
  } catch {
    // a signal-like object events cannot inspect: link anyway
  }
  signal.addEventListener('abort', listener, { once: true });
  bodyLinks.register(response, { signal, listener });
}

/** An absolute http: or https: URL (what the endpoint mapping can take the path and query of). */
const ABSOLUTE_HTTP_URL = /^https?:\/\//i;

const LOCAL_ERROR: Outcome = { kind: 'local-error' };

/** A value for an error message: null, undefined, a primitive's type and text, or an object's tag. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `${typeof value} ${String(value).slice(0, 40)}`;
  return `an object ${Object.prototype.toString.call(value)}`;
}

/**
 * Why what the base fetch resolved to is not a Response the drivers can read (null when it is one): an object with an
 * integer status from 200 to 599 (a Response has no other; Response.error()'s 0 is a network error), headers with get(),
 * and a body that is null or a stream. Any Response class passes (undici's own, another realm's).
 */
function notAResponse(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return shown(value);
  const { status, headers, body } = value as { status?: unknown; headers?: { get?: unknown }; body?: unknown };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    return `${shown(value)} whose status is ${typeof status === 'number' ? status : typeof status}`;
  }
  if (typeof headers?.get !== 'function') return `${shown(value)} without headers.get()`;
  if (body !== null && typeof (body as { getReader?: unknown } | undefined)?.getReader !== 'function') {
    return `${shown(value)} whose body is neither null nor a ReadableStream`;
  }
  return null;
}

/** Statuses whose Response must have a null body (Fetch standard). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `trustClaims`: believe the response's claim headers (a callee inside the trust boundary). */
function responseOutcome(response: Response, trustClaims: boolean): Outcome {
  const status = response.status;
  if (status < 400) return { kind: 'response', status }; // no header lookups on the success path
  // fetch's Headers join a repeated header with ", ": the policy's parser reads such a list member by member.
  return readResponse(status, (name) => response.headers.get(name), trustClaims);
}

/**
 * Reads a discarded body to its end so its connection can be reused, but at most `maxBytes` for at most
 * `timeoutMs`: past either, it cancels the body (the connection is closed instead). Never keeps the process alive.
 */
class BodyDrain {
  private bytes = 0;
  private readonly timer: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly maxBytes: number,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.cancel(), timeoutMs);
    this.timer.unref();
    this.pump();
  }

  private pump(): void {
    this.reader.read().then(
      (chunk) => {
        if (this.done) return;
        if (chunk.done) {
          this.finish();
          return;
        }
        this.bytes += chunk.value.byteLength;
        if (this.bytes > this.maxBytes) this.cancel();
        else this.pump();
      },
      () => this.finish(),
    );
  }

  private finish(): void {
    this.done = true;
    clearTimeout(this.timer);
  }

  /** Stops the drain: the body is cancelled (and its connection closed) unless it was read to the end already. */
  cancel(): void {
    if (this.done) return;
    this.finish();
    this.reader.cancel().catch(noop);
  }
}

/** A response rebuilt around its fully read body (bufferResponse), keeping status, headers and url. */
function bufferedResponse(response: Response, body: ArrayBuffer): Response {
  const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/** One fetch call: performs attempts with the base fetch for the shared loop. */
class FetchCall implements AttemptTransport<Response> {
  readonly runner: CallRunner<Response>;
  private readonly headers: FetchHeaders | undefined;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly buffer: boolean;
  private controller: AbortController | undefined;
  private draining: BodyDrain | undefined;
  private ended = false;

  /** The caller's init without Seawall's own options (the base fetch never sees them). */
  private readonly init: RequestInit | undefined;

  private readonly settings: ClientSettings;
  /** The request's path and query, when an attempt goes to a picked endpoint (computed once). */
  private path: string | undefined;

  constructor(
    client: SeawallClient,
    private readonly base: BaseFetch,
    private readonly input: string | URL | Request,
    init: SeawallRequestInit | undefined,
    private readonly resolve: (response: Response) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.settings = client.settings;
    this.init = init?.seawall === undefined ? init : withoutSeawall(init);
    const request = typeof input === 'string' || input instanceof URL ? undefined : input;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // With endpoints an attempt keeps the URL's path and query: a URL that is not absolute http(s) has none to find
    // (`/users/7` would go to the endpoint's `/`), so it is refused as fetch refuses a URL it cannot parse.
    if (client.settings.upstreams?.routed === true && !ABSOLUTE_HTTP_URL.test(url)) {
      throw new TypeError(
        `seawall: with endpoints, call with an absolute http(s) URL whose origin names the upstream, such as http://member-api/users/7 (got ${JSON.stringify(String(url).split(/[?#]/, 1)[0]?.slice(0, 80))})`,
      );
    }
    this.headers = (init?.headers ?? request?.headers) as FetchHeaders | undefined;
    this.callerSignal = init?.signal ?? request?.signal ?? undefined;
    const options = init?.seawall;
    this.buffer = options?.bufferResponse ?? client.settings.bufferResponse;
    // A Request's body is a stream: it can be sent once. Pass the body in init to make it replayable.
    const bodyReplayable = init?.body !== undefined ? isReplayableBody(init.body) : (request?.body ?? null) === null;
    this.runner = new CallRunner(
      client,
      {
        method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
        url,
        origin: originOf(url),
        hasIdempotencyKey: fetchHeadersHave(this.headers, IDEMPOTENCY_KEY_HEADER),
        bodyReplayable,
        options,
        signal: this.callerSignal,
      },
      this,
    );
  }

  send(attempt: number, plan: AttemptPlan, headers: Record<string, string>, target: string | undefined): void {
    this.stopDraining(); // the previous attempt's error body may still be draining: stop it
    // Our own signal only when the loop may need to cut the attempt short; else the caller's signal as is.
    let signal = this.callerSignal;
    if (plan.perTryTimeoutMs !== Number.POSITIVE_INFINITY || this.runner.contextSignal !== undefined) {
      this.controller = new AbortController();
      signal = this.controller.signal;
    } else {
      this.controller = undefined;
    }
    const merged = headers === NO_HEADERS ? this.headers : mergeFetchHeaders(this.headers, headers);
    const init = attemptInit(this.init, merged as RequestInit['headers'], signal);
    // Promise.resolve: a fetch that returns a non-promise (null, a Response) is read as if it had resolved to it.
    Promise.resolve(this.base(target === undefined ? this.input : this.routed(target), init)).then(
      (response: unknown) => this.onResponse(attempt, response),
      (error: unknown) => this.runner.settle(attempt, outcomeOfError(error, SENT), undefined, error),
    );
  }

  /** The request sent to endpoint `target`: the same path and query on the endpoint's origin. */
  private routed(target: string): string | Request {
    const input = this.input;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    this.path ??= pathOf(url);
    const routed = target + this.path;
    return typeof input === 'string' || input instanceof URL ? routed : new Request(routed, input);
  }

  /** What the base fetch resolved to; anything thrown reading it ends the attempt as a local error (never escapes). */
  private onResponse(attempt: number, result: unknown): void {
    try {
      const problem = notAResponse(result);
      if (problem !== null) {
        const error = new TypeError(`seawall: createFetch's fetch option resolved to ${problem}; expected a Response`);
        // @ko fetch-result-checked
        this.runner.settle(attempt, LOCAL_ERROR, undefined, error);
        return;
      }
      this.onValidResponse(attempt, result as Response);
    } catch (error) {
      // @ko fetch-result-contained
      this.runner.settle(attempt, LOCAL_ERROR, undefined, error); // ignored if the attempt was settled already
    }
  }

  private onValidResponse(attempt: number, response: Response): void {
    if (!this.runner.isCurrent(attempt)) {
      response.body?.cancel().catch(noop); // a response that lost the race with its timeout
      return;
    }
    // Only a success is buffered inside the attempt: the policy decides an error on its head, and an error body that
    // will be discarded must not be read without bound before that (it is drained within drain's bounds instead).
    if (!this.buffer || response.status >= 400) {
      this.runner.settle(attempt, responseOutcome(response, this.runner.trustClaims), response);
      return;
    }
    response.arrayBuffer().then(
      (body) => {
        try {
          const outcome = responseOutcome(response, this.runner.trustClaims);
          this.runner.settle(attempt, outcome, bufferedResponse(response, body));
        } catch (error) {
          this.runner.settle(attempt, LOCAL_ERROR, undefined, error);
        }
      },
      (error: unknown) => this.runner.settle(attempt, outcomeOfError(error, RESPONDING), undefined, error),
    );
  }

  cancel(_attempt: number, reason: unknown): void {
    this.controller?.abort(reason);
  }

  deliver(response: Response): void {
    const controller = this.controller;
    const signal = this.callerSignal;
    if (controller !== undefined && signal !== undefined) linkBody(response, signal, controller);
    this.resolve(response);
  }

  discard(response: Response): void {
    const body = response.body;
    if (body === null || response.bodyUsed) return;
    if (this.ended || this.settings.drainMaxBytes === 0) {
      body.cancel().catch(noop); // the call is over, or draining is off: nobody will reuse the connection for it
      return;
    }
    this.stopDraining();
    const settings = this.settings;
    this.draining = new BodyDrain(body.getReader(), settings.drainMaxBytes, settings.drainTimeoutMs);
  }

  callEnded(): void {
    this.ended = true;
    this.stopDraining();
  }

  private stopDraining(): void {
    const draining = this.draining;
    if (draining !== undefined) {
      this.draining = undefined;
      draining.cancel();
    }
  }

  fail(error: unknown): void {
    this.reject(error);
  }
}

/**
 * A drop-in fetch that carries `policy`: one deadline per call (explicit option, inbound request, or patience), per-try
 * timeouts inside it, the shared retry budget, backoff with Retry-After as a floor, no unsafe retries, one layer of retries.
 */
export function createFetch(options: CreateFetchOptions): SeawallFetch {
  const client = new SeawallClient(new ClientSettings(options, 'fetch'), options.telemetry);
  const base: BaseFetch | undefined = options.fetch ?? globalThis.fetch;
  if (typeof base !== 'function') throw new TypeError('seawall: no fetch available; pass { fetch }');
  const seawallFetch = (input: string | URL | Request, init?: SeawallRequestInit) =>
    new Promise<Response>((resolve, reject) => {
      new FetchCall(client, base, input, init, resolve, reject).runner.start();
    });
  return Object.assign(seawallFetch, { stats: () => clientStats(client.settings) });
}
