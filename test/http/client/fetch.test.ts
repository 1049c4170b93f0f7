// createFetch against real servers on 127.0.0.1: retries, Retry-After, transport failures, timeouts, safety, abort.
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptTimeoutError, createFetch, SeawallError } from '../../../src/http/index.js';
import {
  closedPort,
  delay,
  readBody,
  rejection,
  resetBeforeResponse,
  resetMidBody,
  startServer,
  type TestServer,
  within,
} from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { quick } from './client-setup.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createFetch: retries and what every attempt carries', () => {
  it('retries a 503 and sends the attempt number and the deadline in absolute and grpc-timeout form', async () => {
    server = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end('x'));
    const fetch = createFetch({ policy: quick({ deadline: { patience: '2s' } }) });
    const response = await fetch(`${server.origin}/a`);
    expect(response.status).toBe(200);
    const [first, second] = server.hits;
    expect(first?.headers['x-seawall-attempt']).toBe('1');
    expect(second?.headers['x-seawall-attempt']).toBe('2');
    expect(first?.headers['x-request-deadline']).toMatch(/^\d+\.\d{3}$/);
    expect(second?.headers['x-request-deadline']).toBe(first?.headers['x-request-deadline']);
    const timeoutMs = Number(/^(\d+)m$/.exec(String(first?.headers['grpc-timeout']))?.[1]);
    expect(timeoutMs).toBeGreaterThan(1900);
    expect(timeoutMs).toBeLessThanOrEqual(2000);
  });

  it('drains a failed response so the retry reuses the keep-alive connection', async () => {
    server = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end('a body to drain'));
    // A 200 ms backoff: the drain of 15 bytes has that long to finish under load (with 20 ms it sometimes had not, and
    // the retry took a new connection). Without a drain the connection is never reused, however long the wait.
    await createFetch({ policy: quick({ backoff: { kind: 'constant', delay: 200 } }) })(server.origin);
    expect(server.hits.map((h) => h.connection)).toEqual([1, 1]);
  });

  it('waits at least the 1 s a 503 asks for with Retry-After: 1', async () => {
    server = await startServer((_req, res, _hit, n) =>
      n === 1 ? res.writeHead(503, { 'retry-after': '1' }).end() : res.end('ok'),
    );
    const response = await createFetch({ policy: quick({ deadline: { patience: '5s' } }) })(server.origin);
    expect(response.status).toBe(200);
    const [first, second] = server.hits;
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('retries a 429 after its Retry-After, and not when the call narrows retryOn', async () => {
    server = await startServer((_req, res, _hit, n) =>
      n % 2 === 1 ? res.writeHead(429, { 'retry-after': '0' }).end() : res.end('ok'),
    );
    const fetch = createFetch({ policy: quick() });
    expect((await fetch(server.origin)).status).toBe(200);
    const narrowed = await fetch(server.origin, { seawall: { retryOn: [503] } });
    expect(narrowed.status).toBe(429);
    expect(server.hits).toHaveLength(3);
  });

  it('retries a refused connection up to maxAttempts and says so in a SeawallError', async () => {
    const port = await closedPort();
    const policy = quick({ maxAttempts: 3 });
    const error = await rejection(createFetch({ policy })(`http://127.0.0.1:${port}/`));
    expect(error).toBeInstanceOf(SeawallError);
    expect(error).toMatchObject({ code: 'SEAWALL_CALL_FAILED', reason: 'attempts-exhausted', attempts: 3 });
    expect((error as SeawallError).lastStatus).toBeNull();
    expect(String((error as SeawallError).message)).toContain('ECONNREFUSED');
    expect(policy.stats()).toMatchObject({ attempts: 3, retries: 2, retryLimitExceeded: 1 });
  });

  it('retries a connection reset before any response', async () => {
    server = await startServer((_req, res, _hit, n) => (n === 1 ? resetBeforeResponse(res) : res.end('ok')));
    const response = await createFetch({ policy: quick() })(server.origin);
    expect(await response.text()).toBe('ok');
    expect(server.hits).toHaveLength(2);
  });
});

describe('createFetch: a connection reset mid-response', () => {
  it('streams by default: the response is handed over at its headers and the body read fails', async () => {
    server = await startServer((_req, res) => resetMidBody(res));
    const response = await createFetch({ policy: quick() })(server.origin);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(server.hits).toHaveLength(1);
  });

  it('with bufferResponse, retries a GET whose body was cut and returns the complete body', async () => {
    server = await startServer((_req, res, _hit, n) => (n === 1 ? resetMidBody(res) : res.end('complete')));
    const response = await createFetch({ policy: quick(), bufferResponse: true })(server.origin);
    expect(await response.text()).toBe('complete');
    expect(response.url).toBe(`${server.origin}/`);
    expect(server.hits).toHaveLength(2);
  });

  it('with bufferResponse, does not retry a POST whose body was cut (the server may have acted)', async () => {
    server = await startServer((_req, res) => resetMidBody(res));
    const fetch = createFetch({ policy: quick(), bufferResponse: true });
    const error = await rejection(fetch(server.origin, { method: 'POST', body: 'pay' }));
    expect(error).toMatchObject({ reason: 'unsafe-to-retry', attempts: 1 });
  });
});

describe('createFetch: per-try timeouts and the deadline', () => {
  it('cuts a slow attempt at the per-try timeout and gives the next attempt only what is left', async () => {
    server = await startServer((_req, res, _hit, n) => {
      if (n > 1) res.end('ok'); // the first attempt hangs
    });
    // 300 ms per try: the answered second attempt never hits it on a loaded machine (at 100 ms it could).
    const policy = quick({ perTryTimeout: 300, deadline: { patience: 1500 } });
    const started = Date.now();
    const response = await createFetch({ policy })(server.origin);
    const elapsedMs = Date.now() - started;
    expect(response.status).toBe(200);
    expect(policy.stats().perTryTimeouts).toBe(1);
    const [, second] = server.hits;
    // From the call's start, not from the first hit: the first hit's arrival includes its connect time.
    expect((second?.atMs ?? 0) - started).toBeGreaterThanOrEqual(299);
    // What is left: at most 1500 − 300 (a timer never fires early), against 1500 if each attempt got the whole
    // deadline anew; the lower bound leaves 500 ms for a late timer.
    const leftMs = Number(/^(\d+)m$/.exec(String(second?.headers['grpc-timeout']))?.[1]);
    expect(leftMs).toBeLessThanOrEqual(1500 - 299);
    expect(leftMs).toBeGreaterThan(700);
    // ~310 ms; without the per-try timeout the first attempt would hang to the 1.5 s deadline.
    expect(elapsedMs, 'the call was cut at the 300 ms per-try timeout, not at the deadline').toBeLessThan(1000);
  });

  it('starts no attempt after the deadline', async () => {
    // A quick 503 first, so that at least one retry happens however late the timers run; then attempts that hang.
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) res.writeHead(503).end();
    });
    const sentAt: number[] = [];
    const recording = (input: string | URL | Request, init?: RequestInit) => {
      sentAt.push(Date.now());
      return fetch(input, init);
    };
    // ~4 attempts in 400 ms; 300 ms for late timers before the first retry could be lost.
    const policy = quick({ perTryTimeout: 100, deadline: { patience: 400 }, maxAttempts: 10 });
    const error = await within(
      rejection(createFetch({ policy, fetch: recording })(server.origin)),
      3000,
      'the call to end at its 400 ms deadline',
    );
    expect(error).toBeInstanceOf(SeawallError);
    expect(['deadline-would-pass', 'deadline-exceeded']).toContain((error as SeawallError).reason);
    const deadlineMs = Number(server.hits[0]?.headers['x-request-deadline']) * 1000;
    // Counts, not wall time: retries happened, cut by the per-try timeout, and none began at or after the deadline
    // (with those checks gone, the attempts go on to maxAttempts, 10, the last ones past it).
    expect(sentAt.length).toBeGreaterThanOrEqual(2);
    expect(sentAt.length).toBeLessThan(10);
    for (const at of sentAt) expect(at).toBeLessThan(deadlineMs);
    expect(policy.stats().perTryTimeouts).toBeGreaterThanOrEqual(1);
  });

  it('cuts the last attempt at the deadline, not at its longer per-try timeout', async () => {
    server = await startServer((_req, res, _hit, n) => {
      if (n === 1) res.writeHead(503).end(); // then attempt 2 hangs, with 2 s of per-try timeout and ~300 ms left
    });
    // maxAttempts 2: the call ends with attempt 2 whichever side of the deadline its timer fires on (by the ms).
    const policy = quick({ perTryTimeout: '2s', deadline: { patience: 300 }, maxAttempts: 2 });
    const started = Date.now();
    const error = await within(rejection(createFetch({ policy })(server.origin)), 5000, 'the call to end');
    const elapsedMs = Date.now() - started;
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 2, lastStatus: 503 });
    expect((error as SeawallError).lastError).toBeInstanceOf(AttemptTimeoutError);
    // ~300 ms with the per-try timeout capped at the time left; 2,000 ms or more without the cap (a timer never fires
    // early). The 1 s bound between them leaves 700 ms for a loaded machine.
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
    expect(elapsedMs, 'the call ended at its deadline, not at the 2 s per-try timeout').toBeLessThan(1000);
  });

  it('takes the deadline from the call option before the policy patience', async () => {
    server = await startServer((_req, res) => res.end());
    await createFetch({ policy: quick({ deadline: { patience: '10s' } }) })(server.origin, {
      seawall: { timeout: '1s' },
    });
    const leftMs = Number(/^(\d+)m$/.exec(String(server.hits[0]?.headers['grpc-timeout']))?.[1]);
    expect(leftMs).toBeLessThanOrEqual(1000); // against 10,000 with the option ignored
    expect(leftMs).toBeGreaterThan(500);
  });
});

describe('createFetch: unsafe requests', () => {
  const retry500 = () => quick({ retryOn: [500, 503], maxAttempts: 3 });

  it('does not retry a POST that got a 500 without an idempotency key, and returns the 500', async () => {
    server = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const response = await createFetch({ policy: retry500() })(server.origin, { method: 'POST', body: 'pay' });
    expect(response.status).toBe(500);
    expect(server.hits).toHaveLength(1);
  });

  it('retries a POST that got a 500 when it carries an Idempotency-Key', async () => {
    server = await startServer((_req, res) => res.writeHead(500).end());
    const fetch = createFetch({ policy: retry500() });
    await fetch(server.origin, { method: 'POST', body: 'pay', headers: { 'Idempotency-Key': 'k-1' } });
    expect(server.hits).toHaveLength(3);
  });

  it('adds one Idempotency-Key per call, the same on every attempt, when idempotencyKeys is set', async () => {
    server = await startServer((req, res, hit) => readBody(req, hit, () => res.writeHead(500).end()));
    const fetch = createFetch({ policy: retry500(), idempotencyKeys: true });
    await fetch(server.origin, { method: 'POST', body: 'pay' });
    const keys = server.hits.map((h) => h.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.hits.map((h) => h.body)).toEqual(['pay', 'pay', 'pay']);
  });

  it('sends a stream body once and never retries it, with its own stop reason', async () => {
    server = await startServer((req, res, hit) => readBody(req, hit, () => res.writeHead(503).end()));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('stream'));
        controller.close();
      },
    });
    const fetch = createFetch({ policy: quick(), rejectOnGiveUp: true });
    const error = await rejection(fetch(server.origin, { method: 'PUT', body, duplex: 'half' } as RequestInit));
    expect(error).toMatchObject({ reason: 'body-not-replayable', attempts: 1, lastStatus: 503 });
    expect(server.hits.map((h) => h.body)).toEqual(['stream']);
  });
});

describe('createFetch: giving up and aborting', () => {
  it('resolves with the last retryable response by default, and rejects with rejectOnGiveUp', async () => {
    server = await startServer((_req, res) => res.writeHead(503).end());
    expect((await createFetch({ policy: quick() })(server.origin)).status).toBe(503);
    const error = await rejection(createFetch({ policy: quick(), rejectOnGiveUp: true })(server.origin));
    expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 3, lastStatus: 503 });
    expect((error as SeawallError).elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('ends the call at once when aborted during a backoff sleep', async () => {
    server = await startServer((_req, res) => res.writeHead(503, { 'retry-after': '5' }).end());
    const controller = new AbortController();
    const policy = quick({ deadline: { patience: '10s' } });
    const call = createFetch({ policy })(server.origin, { signal: controller.signal });
    await waitFor(() => policy.stats().retries === 1, 3000, 'the retry after the first 503'); // it now sleeps 5 s
    controller.abort();
    // ~1 ms after the abort; a sleep the abort does not end lasts its whole 5 s.
    const error = await within(rejection(call), 1000, 'the call to end when aborted during its 5 s sleep');
    expect((error as Error).name).toBe('AbortError');
    expect(server.hits).toHaveLength(1);
  });

  it('rejects at once with the reason of an already aborted signal, sending nothing', async () => {
    server = await startServer((_req, res) => res.end());
    const reason = new Error('gone');
    const error = await rejection(
      createFetch({ policy: quick() })(server.origin, { signal: AbortSignal.abort(reason) }),
    );
    expect(error).toBe(reason);
    expect(server.hits).toHaveLength(0);
  });

  it('lets the caller signal cancel a response body after the response was handed over', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('first chunk');
    });
    const controller = new AbortController();
    const response = await createFetch({ policy: quick({ perTryTimeout: '1s' }) })(server.origin, {
      signal: controller.signal,
    });
    const reading = response.text();
    controller.abort();
    await expect(reading).rejects.toThrow();
  }, 3000);

  // Every call now has a deadline (15 s by default), so every attempt has its own signal: one shared caller signal
  // must not collect a listener per handed-over response (node warns past 10: MaxListenersExceededWarning).
  it('leaves no listener on a long-lived caller signal per response handed over', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const shutdown = new AbortController();
      const fetch = createFetch({ policy: quick() });
      const kept = [];
      for (let i = 0; i < 40; i++) kept.push(await fetch(server.origin, { signal: shutdown.signal }));
      await delay(20);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      expect(kept).toHaveLength(40);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
