// retryInterceptor on undici's Agent against real servers on 127.0.0.1: streaming, failures, timeouts, safety, abort.
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptTimeoutError, retryInterceptor, SeawallError } from '../../../src/http/index.js';
import {
  closedPort,
  readBody,
  rejection,
  resetBeforeResponse,
  resetMidBody,
  startServer,
  type TestServer,
  within,
} from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';

const { agentWith, track } = agentsClosedAfterEach();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('retryInterceptor', () => {
  it('retries a 503 and streams the successful body (1 MB) to the caller', async () => {
    const big = 'x'.repeat(1 << 20);
    server = await startServer((_req, res, _hit, n) => (n === 1 ? res.writeHead(503).end('busy') : res.end(big)));
    const dispatcher = agentWith({ policy: quick({ deadline: { patience: '2s' } }) });
    const response = await request(server.origin, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect((await response.body.text()).length).toBe(big.length);
    expect(server.hits.map((h) => h.headers['x-seawall-attempt'])).toEqual(['1', '2']);
    expect(server.hits[1]?.headers['grpc-timeout']).toMatch(/^\d+m$/);
  });

  it('drains a failed response so the retry reuses the keep-alive connection', async () => {
    server = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end('a body to drain'));
    // 200 ms for the drain to finish under load before the retry (see the same test in fetch.test.ts).
    const dispatcher = agentWith({ policy: quick({ backoff: { kind: 'constant', delay: 200 } }) });
    await (await request(server.origin, { dispatcher })).body.dump();
    expect(server.hits.map((h) => h.connection)).toEqual([1, 1]);
  });

  it('keeps the caller headers and replaces none but its own', async () => {
    server = await startServer((_req, res) => res.end());
    const dispatcher = agentWith({ policy: quick() });
    await request(server.origin, { dispatcher, headers: { authorization: 'Bearer t', 'X-Seawall-Attempt': '9' } });
    expect(server.hits[0]?.headers.authorization).toBe('Bearer t');
    expect(server.hits[0]?.headers['x-seawall-attempt']).toBe('1');
  });

  it('retries a refused connection and rejects with a SeawallError naming the stop reason', async () => {
    const port = await closedPort();
    const dispatcher = agentWith({ policy: quick() });
    const error = await rejection(request(`http://127.0.0.1:${port}/`, { dispatcher }));
    expect(error).toBeInstanceOf(SeawallError);
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 3, lastStatus: null });
    expect((error as SeawallError).message).toContain('ECONNREFUSED');
  });

  it('retries a reset before any response', async () => {
    server = await startServer((_req, res, _hit, n) => (n === 1 ? resetBeforeResponse(res) : res.end('ok')));
    const response = await request(server.origin, { dispatcher: agentWith({ policy: quick() }) });
    expect(await response.body.text()).toBe('ok');
  });

  it('retries a GET reset mid-response with bufferResponse, and hands a streamed one over as is', async () => {
    server = await startServer((_req, res, _hit, n) => (n === 1 ? resetMidBody(res) : res.end('complete')));
    const buffered = await request(server.origin, { dispatcher: agentWith({ policy: quick(), bufferResponse: true }) });
    expect(await buffered.body.text()).toBe('complete');
    expect(server.hits).toHaveLength(2);
    await server.close();
    server = await startServer((_req, res) => resetMidBody(res));
    const streamed = await request(server.origin, { dispatcher: agentWith({ policy: quick() }) });
    expect(streamed.statusCode).toBe(200);
    await expect(streamed.body.text()).rejects.toThrow();
    expect(server.hits).toHaveLength(1);
  });

  it('cuts slow attempts at the per-try timeout and starts none after the deadline', async () => {
    // A quick 503 first, so that at least one retry happens however late the timers run; then attempts that hang.
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) res.writeHead(503).end();
    });
    const sentAt: number[] = [];
    const recording: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
      sentAt.push(Date.now());
      return dispatch(opts, handler);
    };
    const policy = quick({ perTryTimeout: 100, deadline: { patience: 400 }, maxAttempts: 10 }); // as in fetch.test.ts
    const dispatcher = track(new Agent()).compose(recording, retryInterceptor({ policy }));
    const error = await within(
      rejection(request(server.origin, { dispatcher })),
      3000,
      'the call to end at its 400 ms deadline',
    );
    expect(['deadline-would-pass', 'deadline-exceeded']).toContain((error as SeawallError).reason);
    const deadlineMs = Number(server.hits[0]?.headers['x-request-deadline']) * 1000;
    // Counts, not wall time (see fetch.test.ts): cut attempts, none begun at or after the deadline, not all 10.
    expect(sentAt.length).toBeGreaterThanOrEqual(2);
    expect(sentAt.length).toBeLessThan(10);
    for (const at of sentAt) expect(at).toBeLessThan(deadlineMs);
    expect(policy.stats().perTryTimeouts).toBeGreaterThanOrEqual(1);
  });

  it('ends at the deadline: the last attempt is cut there, not at its longer per-try timeout', async () => {
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) res.writeHead(503).end(); // then attempt 2 hangs, with 2 s of per-try timeout and ~300 ms left
    });
    const policy = quick({ perTryTimeout: '2s', deadline: { patience: 300 }, maxAttempts: 2 });
    const started = Date.now();
    const error = await within(
      rejection(request(server.origin, { dispatcher: agentWith({ policy }) })),
      5000,
      'the call to end',
    );
    const elapsedMs = Date.now() - started;
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 2, lastStatus: 503 });
    expect((error as SeawallError).lastError).toBeInstanceOf(AttemptTimeoutError);
    // ~300 ms with the cap at the time left, 2,000 ms or more without it (see fetch.test.ts).
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
    expect(elapsedMs, 'the call ended at its deadline, not at the 2 s per-try timeout').toBeLessThan(1000);
  });

  it('does not retry a POST 500 without a key, retries it with one', async () => {
    server = await startServer((_req, res) => res.writeHead(500).end());
    const dispatcher = agentWith({ policy: quick({ retryOn: [500] }) });
    const plain = await request(server.origin, { dispatcher, method: 'POST', body: 'pay' });
    expect(plain.statusCode).toBe(500);
    await plain.body.dump();
    expect(server.hits).toHaveLength(1);
    const keyed = await request(server.origin, {
      dispatcher,
      method: 'POST',
      body: 'pay',
      seawall: { idempotencyKey: 'k' },
    });
    await keyed.body.dump();
    expect(server.hits).toHaveLength(4);
    expect(server.hits[3]?.headers['idempotency-key']).toBe('k');
  });

  it('sends a stream body once', async () => {
    server = await startServer((req, res, hit) => readBody(req, hit, () => res.writeHead(503).end()));
    const dispatcher = agentWith({ policy: quick(), rejectOnGiveUp: true });
    const body = Readable.from(['once']);
    const error = await rejection(request(server.origin, { dispatcher, method: 'PUT', body }));
    expect(error).toMatchObject({ reason: 'body-not-replayable', attempts: 1, lastStatus: 503 });
    expect(server.hits.map((h) => h.body)).toEqual(['once']);
  });

  it('ends the call at once when the caller aborts during a backoff sleep', async () => {
    server = await startServer((_req, res) => res.writeHead(503, { 'retry-after': '5' }).end());
    const controller = new AbortController();
    const policy = quick({ deadline: { patience: '10s' } });
    const call = request(server.origin, { dispatcher: agentWith({ policy }), signal: controller.signal });
    await waitFor(() => policy.stats().retries === 1, 3000, 'the retry after the first 503'); // it now sleeps 5 s
    controller.abort();
    // ~1 ms after the abort; a sleep the abort does not end lasts its whole 5 s.
    const error = await within(rejection(call), 1000, 'the call to end when aborted during its 5 s sleep');
    expect((error as Error).name).toBe('AbortError');
    expect(server.hits).toHaveLength(1);
  });
});
