// retryInterceptor with both undici handler APIs (raw legacy and controller) and beside undici's own interceptors.
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Agent, type Dispatcher, interceptors, request, util } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type RawHeaders, rawHeaderValues, speaksLegacy } from '../../../src/http/client/undici-caller.js';
import { retryInterceptor } from '../../../src/http/index.js';
import { startServer, type TestServer, within } from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';

const { agentWith, track } = agentsClosedAfterEach();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Recorded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  error?: Error;
  chunksWhilePaused: number;
}

/** Dispatches with a handler that speaks only the controller API; `onChunk` may pause/resume/abort. */
function dispatchWithController(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  onStart?: (controller: Dispatcher.DispatchController) => void,
  onChunk?: (controller: Dispatcher.DispatchController, n: number) => void,
): Promise<Recorded> {
  return new Promise((resolve) => {
    const recorded: Recorded = { status: 0, headers: {}, body: Buffer.alloc(0), chunksWhilePaused: 0 };
    const chunks: Buffer[] = [];
    let n = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        onStart?.(controller);
      },
      onResponseStart(_controller, status, headers) {
        recorded.status = status;
        recorded.headers = headers;
      },
      onResponseData(controller, chunk) {
        if (controller.paused) recorded.chunksWhilePaused++;
        chunks.push(chunk);
        onChunk?.(controller, ++n);
      },
      onResponseEnd() {
        recorded.body = Buffer.concat(chunks);
        resolve(recorded);
      },
      onResponseError(_controller, error) {
        recorded.error = error;
        resolve(recorded);
      },
    };
    expect(speaksLegacy(handler)).toBe(false);
    dispatcher.dispatch(opts, handler);
  });
}

describe('retryInterceptor and a controller-API handler', () => {
  it('retries a 503 and hands over parsed headers (repeated ones as arrays) and the whole body', async () => {
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) return res.writeHead(503, { 'Retry-After': '0' }).end('busy');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('X-Mixed-Case', 'yes');
      res.end('hello');
    });
    const dispatcher = agentWith({ policy: quick() });
    const got = await dispatchWithController(dispatcher, { origin: server.origin, path: '/', method: 'GET' });
    expect(got.error).toBeUndefined();
    expect(got.status).toBe(200);
    expect(got.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(got.headers['x-mixed-case']).toBe('yes');
    expect(got.body.toString()).toBe('hello');
    expect(server.hits).toHaveLength(2);
  });

  it('pauses the body when the caller pauses and delivers all of it after resume', async () => {
    const big = Buffer.alloc(4 << 20, 7);
    server = await startServer((_req, res) => res.end(big));
    const dispatcher = agentWith({ policy: quick() });
    let resumedAt = 0;
    const got = await dispatchWithController(
      dispatcher,
      { origin: server.origin, path: '/', method: 'GET' },
      undefined,
      (controller, n) => {
        if (n === 1) {
          controller.pause();
          setTimeout(() => {
            resumedAt = Date.now();
            controller.resume();
          }, 50);
        }
      },
    );
    expect(got.error).toBeUndefined();
    expect(got.body.length).toBe(big.length);
    expect(resumedAt).toBeGreaterThan(0);
    // undici delivers at most the chunk already parsed after a pause; the transfer itself stops.
    expect(got.chunksWhilePaused).toBeLessThanOrEqual(2);
  });

  it('ends at once with the caller abort reason when it aborts during a backoff sleep', async () => {
    server = await startServer((_req, res) => res.writeHead(503).end());
    const policy = quick({ backoff: { kind: 'constant', delay: 5000 } });
    const dispatcher = agentWith({ policy });
    let controller: Dispatcher.DispatchController | undefined;
    const reason = new Error('caller gave up');
    const pending = dispatchWithController(dispatcher, { origin: server.origin, path: '/', method: 'GET' }, (c) => {
      controller = c;
    });
    await waitFor(() => policy.stats().retries === 1, 3000, 'the retry after the first 503'); // it now sleeps 5 s
    controller?.abort(reason);
    // ~1 ms after the abort; a sleep the abort does not end lasts its whole 5 s.
    const got = await within(pending, 1000, 'the call to end when aborted during its 5 s sleep');
    expect(got.error).toBe(reason);
    expect(server.hits).toHaveLength(1);
  });
});

describe('retryInterceptor among undici interceptors', () => {
  it('runs under redirect (its handler speaks the controller API) and over decompress (which wraps ours)', async () => {
    server = await startServer((req, res, _hit, n) => {
      if (req.url === '/') return res.writeHead(302, { location: '/next' }).end();
      if (n === 2) return res.writeHead(503).end('busy');
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('arrived'));
    });
    const agent = track(new Agent());
    // compose(a, b, c): c sees the call first. Here: redirect -> seawall -> decompress -> agent.
    const dispatcher = agent.compose(
      interceptors.decompress(),
      retryInterceptor({ policy: quick() }),
      interceptors.redirect({ maxRedirections: 2 }),
    );
    const response = await request(server.origin, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('arrived');
    expect(server.hits.map((h) => [h.url, h.headers['x-seawall-attempt']])).toEqual([
      ['/', '1'],
      ['/next', '1'],
      ['/next', '2'],
    ]);
  });

  it('keeps raw response headers intact for a legacy caller (undici request)', async () => {
    server = await startServer((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.end('ok');
    });
    const response = await request(server.origin, { dispatcher: agentWith({ policy: quick() }) });
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(await response.body.text()).toBe('ok');
  });
});

describe('rawHeaderValues', () => {
  // Names drawn mostly from the ones looked up, in random case, so most runs do find (and repeat) them.
  const token = fc.oneof(
    fc
      .constantFrom('retry-after', 'grpc-retry-pushback-ms', 'retry-after-ms', 'x-a')
      .chain((name) =>
        fc
          .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
          .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
      ),
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
  );
  const value = fc.stringMatching(/^[ -~]{0,20}$/).map((v) => v.trim());

  it('finds every value undici parseHeaders finds (any case, Buffer or string, repeats as a list)', () => {
    let found = 0;
    let repeated = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(token, value, fc.boolean()), { maxLength: 12, size: 'max' }),
        fc.constantFrom('retry-after', 'grpc-retry-pushback-ms', 'retry-after-ms', 'x-a'),
        (pairs, name) => {
          const raw: Array<Buffer | string> = [];
          for (const [k, v, asBuffer] of pairs) raw.push(asBuffer ? Buffer.from(k) : k, asBuffer ? Buffer.from(v) : v);
          const parsed = util.parseHeaders(raw as Buffer[]) as Record<string, string | string[]>;
          const values = rawHeaderValues(raw, name);
          expect(values).toEqual(parsed[name]);
          if (values !== undefined) found++;
          if (Array.isArray(values)) repeated++;
        },
      ),
      { numRuns: 10_000 },
    );
    expect(found).toBeGreaterThan(2000); // the property reached the states it is about
    expect(repeated).toBeGreaterThan(500);
  });

  it('reads a value given as an array and ignores a dangling name', () => {
    const raw: RawHeaders = ['Retry-After', ['3', '4'], 'x-a'];
    expect(rawHeaderValues(raw, 'retry-after')).toEqual(['3', '4']);
    expect(rawHeaderValues(raw, 'x-a')).toBeUndefined();
  });
});
