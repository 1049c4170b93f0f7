// retryInterceptor on undici's Agent against real servers on 127.0.0.1: streaming, failures, timeouts, safety, abort.
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { retryInterceptor, SeawallError } from '../../src/http/index.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import {
  closedPort,
  delay,
  readBody,
  rejection,
  resetBeforeResponse,
  resetMidBody,
  startServer,
  type TestServer,
} from './servers.js';

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
    const dispatcher = agentWith({ policy: quick({ backoff: { kind: 'constant', delay: 20 } }) });
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

  it('cuts a slow attempt at the per-try timeout, starts none after the deadline and ends at it', async () => {
    server = await startServer(() => {}); // never answers
    const sentAt: number[] = [];
    const recording: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
      sentAt.push(Date.now());
      return dispatch(opts, handler);
    };
    const policy = quick({ perTryTimeout: 60, deadline: { patience: 200 }, maxAttempts: 10 });
    const dispatcher = track(new Agent()).compose(recording, retryInterceptor({ policy }));
    const started = Date.now();
    const error = await rejection(request(server.origin, { dispatcher }));
    expect(['deadline-would-pass', 'deadline-exceeded']).toContain((error as SeawallError).reason);
    expect(Date.now() - started).toBeLessThanOrEqual(200 + 15);
    const deadlineMs = Number(server.hits[0]?.headers['x-request-deadline']) * 1000;
    expect(sentAt.length).toBeGreaterThanOrEqual(2);
    for (const at of sentAt) expect(at).toBeLessThan(deadlineMs);
    expect(policy.stats().perTryTimeouts).toBeGreaterThanOrEqual(2);
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
    const call = request(server.origin, {
      dispatcher: agentWith({ policy: quick({ deadline: { patience: '10s' } }) }),
      signal: controller.signal,
    });
    await delay(100);
    const abortedAt = Date.now();
    controller.abort();
    const error = await rejection(call);
    expect(Date.now() - abortedAt).toBeLessThan(20);
    expect((error as Error).name).toBe('AbortError');
    expect(server.hits).toHaveLength(1);
  });
});
