// How retryInterceptor talks to the caller's undici handler: raw (legacy API, no header conversion) or as objects (controller API).

import type { Dispatcher } from 'undici';

/** Header names and values as undici's core reports them: [name, value, name, value, ...]. */
export type RawHeaders = ReadonlyArray<Buffer | string | ReadonlyArray<Buffer | string>>;

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;

/** What the attempt loop needs from the caller's handler, whichever API it speaks. */
export interface CallerSink {
  /** The call has begun: the caller gets its way to abort it (kept for the whole call, backoff sleeps included). */
  start(): void;
  /** A 1xx response head, passed through. */
  informational(status: number, raw: RawHeaders, resume: () => void, message: string): void;
  /** The head of the response the call ends with. False: the caller wants the body paused. */
  head(status: number, raw: RawHeaders, resume: () => void, message: string): boolean;
  /** A body chunk. False: the caller wants the body paused. */
  data(chunk: Buffer): boolean;
  end(rawTrailers: RawHeaders): void;
  error(error: Error): void;
}

/** The legacy handler methods undici's `request`, `stream` and `fetch` still use (and its WrapHandler exposes). */
interface LegacyHandler {
  onConnect(abort: (reason?: Error) => void, context?: object): void;
  onHeaders(status: number, raw: RawHeaders, resume: () => void, message?: string): boolean | undefined;
  onData(chunk: Buffer): boolean | undefined;
  onComplete(trailers: RawHeaders | null): void;
  onError(error: Error): void;
}

/**
 * Does `handler` speak undici's legacy API in full? compose() hands an interceptor every legacy handler (undici's
 * `request`, `stream`, `fetch`) inside a WrapHandler that speaks both; passing its raw headers straight through saves
 * the two conversions (objects to Buffers and back) that undici would otherwise do on every response.
 */
export function speaksLegacy(handler: Handler): boolean {
  const h = handler as Partial<LegacyHandler>;
  return (
    typeof h.onConnect === 'function' &&
    typeof h.onHeaders === 'function' &&
    typeof h.onData === 'function' &&
    typeof h.onComplete === 'function' &&
    typeof h.onError === 'function'
  );
}

/** Raw events straight to a legacy handler. */
export class LegacySink implements CallerSink {
  private readonly handler: LegacyHandler;

  constructor(
    handler: Handler,
    private readonly abort: (reason?: Error) => void,
  ) {
    this.handler = handler as unknown as LegacyHandler;
  }

  start(): void {
    this.handler.onConnect(this.abort, {});
  }
  informational(status: number, raw: RawHeaders, resume: () => void, message: string): void {
    this.handler.onHeaders(status, raw, resume, message);
  }
  head(status: number, raw: RawHeaders, resume: () => void, message: string): boolean {
    return this.handler.onHeaders(status, raw, resume, message) !== false;
  }
  data(chunk: Buffer): boolean {
    return this.handler.onData(chunk) !== false;
  }
  end(rawTrailers: RawHeaders): void {
    this.handler.onComplete(rawTrailers);
  }
  error(error: Error): void {
    this.handler.onError(error);
  }
}

/** A raw header name or value as text: HTTP's bytes, one latin1 char each. */
const text = (v: Buffer | string): string => (typeof v === 'string' ? v : v.toString('latin1'));

/**
 * Headers as the controller API wants them, as undici's util.parseHeaders gives them (without loading undici here):
 * lower-case names, values decoded as latin1 (HTTP's bytes, one char each), a repeated header as an array in order.
 * A `__proto__` header is an own property like any other.
 */
export function headerObject(raw: RawHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i] as Buffer | string).toLowerCase();
    const value = raw[i + 1] as Buffer | string | ReadonlyArray<Buffer | string>;
    const values = Array.isArray(value) ? value.map(text) : [text(value as Buffer | string)];
    const previous = Object.hasOwn(out, name) ? out[name] : undefined;
    let next: string | string[];
    if (previous === undefined) next = Array.isArray(value) ? values : (values[0] as string);
    else if (Array.isArray(previous)) {
      previous.push(...values);
      continue;
    } else next = [previous, ...values];
    Object.defineProperty(out, name, { value: next, enumerable: true, configurable: true, writable: true });
  }
  return out;
}

/** Parsed events to a handler that speaks only the controller API (e.g. another interceptor's). */
export class ControllerSink implements CallerSink {
  constructor(
    private readonly handler: Handler,
    private readonly controller: Controller,
  ) {}

  start(): void {
    this.handler.onRequestStart?.(this.controller, {});
  }
  informational(status: number, raw: RawHeaders, _resume: () => void, message: string): void {
    this.handler.onResponseStart?.(this.controller, status, headerObject(raw), message);
  }
  head(status: number, raw: RawHeaders, _resume: () => void, message: string): boolean {
    this.handler.onResponseStart?.(this.controller, status, headerObject(raw), message);
    return !this.controller.paused;
  }
  data(chunk: Buffer): boolean {
    this.handler.onResponseData?.(this.controller, chunk);
    return !this.controller.paused;
  }
  end(rawTrailers: RawHeaders): void {
    this.handler.onResponseEnd?.(this.controller, headerObject(rawTrailers));
  }
  error(error: Error): void {
    this.handler.onResponseError?.(this.controller, error);
  }
}

/**
 * Every value of header `name` (lower-case) in raw headers: undefined when absent, a string when sent once, an array
 * when repeated (the policy reads the list). Looked at only on error statuses.
 */
export function rawHeaderValues(raw: RawHeaders, name: string): string | string[] | undefined {
  let found: string | string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i];
    if (key === undefined || key.length !== name.length) continue;
    const text = typeof key === 'string' ? key : Array.isArray(key) ? '' : (key as Buffer).toString('latin1');
    if (text.toLowerCase() !== name) continue;
    const value = raw[i + 1];
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (v === undefined) continue;
      const s = typeof v === 'string' ? v : (v as Buffer).toString('latin1');
      if (found === undefined) found = s;
      else if (typeof found === 'string') found = [found, s];
      else found.push(s);
    }
  }
  return found;
}
