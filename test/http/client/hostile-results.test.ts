// Transport results that are no response (issue #25 item 1): createFetch's fetch option, a dispatcher below retryInterceptor.

import type { Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFetch, retryInterceptor, type SeawallError } from '../../../src/http/index.js';
import { quick } from './client-setup.js';

/** Rejections nobody handled while the test ran (the defect raised one per attempt). */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** The call's rejection, or a failure when it is still pending after `ms` (the defect left calls pending). */
async function rejectionWithin(promise: Promise<unknown>, ms: number): Promise<Error> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, pending]);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('still pending')) throw error;
    return error as Error;
  } finally {
    clearTimeout(timer);
  }
  throw new Error('expected a rejection');
}

const settleRejections = () => new Promise((resolve) => setTimeout(resolve, 20));

type Base = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

describe('createFetch checks what its fetch option resolves to', () => {
  it.each([
    ['null', async () => null, 'resolved to null'],
    ['undefined', async () => undefined, 'resolved to undefined'],
    ['a plain object', async () => ({ ok: true }), 'whose status is undefined'],
    ['a string', async () => 'ok', 'resolved to string ok'],
    ['a network-error Response', async () => Response.error(), 'whose status is 0'],
    ['an object without headers', async () => ({ status: 200, body: null }), 'without headers.get()'],
    ['null, without a promise', () => null, 'resolved to null'],
  ])('resolving to %s ends the call as not-retryable, naming the option', async (_what, base, detail) => {
    let calls = 0;
    const fetch = createFetch({
      policy: quick({ maxAttempts: 3 }),
      fetch: ((...args: unknown[]) => {
        calls++;
        return (base as (...a: unknown[]) => unknown)(...args);
      }) as Base,
    });
    const error = (await rejectionWithin(fetch('http://127.0.0.1:9/x'), 1000)) as SeawallError;
    expect(error.name).toBe('SeawallError');
    expect(error.reason).toBe('not-retryable');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect((error.cause as Error).message).toContain("createFetch's fetch option");
    expect((error.cause as Error).message).toContain(detail);
    expect(calls).toBe(1);
    await settleRejections();
    expect(unhandled).toEqual([]);
    expect(fetch.stats().policy).toMatchObject({ calls: 1, active: 0, attempts: 1, stops: { 'not-retryable': 1 } });
  });

  it('a Response-like whose status getter throws ends the call with that error, nothing unhandled', async () => {
    const hostile = {
      get status(): number {
        throw new Error('status refused');
      },
    };
    const fetch = createFetch({ policy: quick({ maxAttempts: 3 }), fetch: (async () => hostile) as unknown as Base });
    const error = (await rejectionWithin(fetch('http://127.0.0.1:9/x'), 1000)) as SeawallError;
    expect(error.reason).toBe('not-retryable');
    expect((error.cause as Error).message).toBe('status refused');
    await settleRejections();
    expect(unhandled).toEqual([]);
    expect(fetch.stats().policy).toMatchObject({ calls: 1, active: 0 });
  });

  it('a Response from another Response class (duck-typed) is still accepted', async () => {
    const real = new Response('fine', { status: 200 });
    const lookalike = { status: 200, headers: real.headers, body: real.body, bodyUsed: false, url: '' };
    const fetch = createFetch({ policy: quick(), fetch: (async () => lookalike) as unknown as Base });
    const response = await fetch('http://127.0.0.1:9/x');
    expect(response.status).toBe(200);
  });
});

/** The raw handler API retryInterceptor speaks to the dispatch below it. */
interface RawHandler {
  onConnect(abort: (reason?: Error) => void): void;
  onHeaders(status: unknown, raw: unknown, resume: () => void, message: string): boolean;
}

describe('retryInterceptor checks what the dispatcher below reports', () => {
  it.each([
    ['a status given as a string', '200', []],
    ['a status out of range', 42, []],
    ['a NaN status', Number.NaN, []],
    ['null raw headers on an error status', 503, null],
  ])('%s ends the call as not-retryable with a TypeError naming it', async (_what, status, raw) => {
    let dispatches = 0;
    const below = ((_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
      dispatches++;
      const h = handler as unknown as RawHandler;
      h.onConnect(() => {});
      h.onHeaders(status, raw, () => {}, '');
      return true;
    }) as unknown as Dispatcher.Dispatch;
    const interceptor = retryInterceptor({ policy: quick({ maxAttempts: 3 }) });
    const dispatch = interceptor(below);
    const ended = new Promise<{ error?: Error; status?: unknown }>((resolve) => {
      const caller = {
        onConnect() {},
        onHeaders(s: unknown) {
          resolve({ status: s });
          return true;
        },
        onData: () => true,
        onComplete() {},
        onError(error: Error) {
          resolve({ error });
        },
      };
      dispatch({ origin: 'http://127.0.0.1:9', path: '/x', method: 'GET' }, caller as never);
    });
    const result = await rejectionWithin(
      ended.then((r) => Promise.reject(r.error ?? new Error(`delivered status ${String(r.status)}`))),
      1000,
    );
    const error = result as SeawallError;
    expect(error.name).toBe('SeawallError');
    expect(error.reason).toBe('not-retryable');
    expect((error.cause as Error).message).toContain('the dispatcher below retryInterceptor reported');
    expect(dispatches).toBe(1);
    await settleRejections();
    expect(unhandled).toEqual([]);
    expect(interceptor.stats().policy).toMatchObject({ calls: 1, active: 0, attempts: 1 });
  });
});
