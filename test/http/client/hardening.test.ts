// The caller side on its worst day (issue #9): server hints, aborted starts, unsafe replays, deadlines, bad options.

import { createServer } from 'node:http';
import net from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFetch,
  runWithContext,
  type SeawallClientOptions,
  SeawallError,
  seawallHandler,
} from '../../../src/http/index.js';
import { ConfigError, RetryPolicy } from '../../../src/policy/index.js';
import {
  closedPort,
  listenLoopback,
  readBody,
  rejection,
  startServer,
  type TestServer,
  within,
} from '../../support/loopback.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
const { agentWith } = agentsClosedAfterEach();

async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const server = await startServer(...args);
  servers.push(server);
  return server;
}

/** One call through `driver`: resolves with the status, or rejects as the driver does. */
type Driver = (
  options: SeawallClientOptions,
  url: string,
  init?: { method?: string; body?: string },
) => Promise<number>;
const drivers: Record<string, Driver> = {
  fetch: async (options, url, init) => (await createFetch(options)(url, init)).status,
  undici: async (options, url, init) => {
    const response = await request(url, { dispatcher: agentWith(options), method: 'GET', ...init });
    await response.body.text();
    return response.statusCode;
  },
};

describe.each(Object.keys(drivers))('%s: every server-given wait is capped (item 3)', (name) => {
  const call = drivers[name] as Driver;

  it('stops at once on a pushback beyond maxRetryAfter instead of parking the call for 24.8 days', async () => {
    const server = await serve((_req, res) => res.writeHead(503, { 'grpc-retry-pushback-ms': '2147483647' }).end());
    const policy = quick();
    // ~10 ms; a call that took the hint would sleep for days (or, stopped by its 15 s deadline, name another reason).
    const outcome = await within(
      call({ policy, rejectOnGiveUp: true }, server.origin).catch((e: unknown) => e),
      1000,
      'the call to stop at once on a pushback of 24.8 days',
    );
    expect(outcome).toMatchObject({ reason: 'server-pushback', attempts: 1 });
    expect(policy.stats().active).toBe(0);
  });

  it('never sleeps past the deadline on a server hint below the cap', async () => {
    const server = await serve((_req, res) => res.writeHead(503, { 'grpc-retry-pushback-ms': '60000' }).end());
    const policy = quick({ deadline: { patience: '2s' } });
    // ~10 ms; a call that slept on the hint would sleep its whole 60 s (the guard fails it at 1 s instead).
    const outcome = await within(
      call({ policy, rejectOnGiveUp: true }, server.origin).catch((e: unknown) => e),
      1000,
      'the call to stop at once on a 60 s pushback past its 2 s deadline',
    );
    expect(outcome).toMatchObject({ reason: 'deadline-would-pass', attempts: 1 });
  });
});

describe.each(Object.keys(drivers))('%s: a duplicated hint reads one way (item 11)', (name) => {
  const call = drivers[name] as Driver;

  // fetch joined the two lines into "0, 1" (malformed: no wait); undici took the first ("0"): both retried at once.
  it('waits the longest of two Retry-After lines', async () => {
    const server = await serve((_req, res, _hit, n) => {
      if (n > 1) return res.end('ok');
      res.setHeader('retry-after', ['0', '1']);
      res.writeHead(503).end();
    });
    expect(await call({ policy: quick({ deadline: { patience: '5s' } }) }, server.origin)).toBe(200);
    const [first, second] = server.hits;
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('prefers retry-after-ms over the whole seconds of Retry-After it refines', async () => {
    const server = await serve((_req, res, _hit, n) => {
      if (n > 1) return res.end('ok');
      res.writeHead(503, { 'retry-after': '1', 'retry-after-ms': '150' }).end();
    });
    const started = Date.now();
    expect(await call({ policy: quick() }, server.origin)).toBe(200);
    const gap = (server.hits[1]?.atMs ?? 0) - started;
    expect(gap).toBeGreaterThanOrEqual(149);
    expect(gap).toBeLessThan(900); // not the whole second a Retry-After-only client waits
  });
});

describe('a call that starts already aborted ends in the policy (item 4)', () => {
  // undici's own request() refuses an aborted signal before dispatching, so only fetch hands the interceptor-less
  // driver a caller's signal that is aborted at the start.
  it("counts 1,000 fetch calls whose caller's signal was aborted before the start, and keeps the percent budget honest", async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const policy = new RetryPolicy({ budget: { kind: 'percent', percent: 20, minConcurrency: 3 } });
    const fetch = createFetch({ policy });
    const aborted = AbortSignal.abort(new Error('gave up'));
    for (let i = 0; i < 1000; i++) {
      expect(await rejection(fetch(server.origin, { signal: aborted }))).toMatchObject({ message: 'gave up' });
    }
    const stats = policy.stats();
    expect(stats).toMatchObject({ calls: 1000, active: 0, attempts: 0, stops: { aborted: 1000 } });
    expect(server.hits).toHaveLength(0);
    // An Envoy-style budget counts active calls: 1,000 leaked ones would allow 200 concurrent retries, not 3.
    expect(policy.budgetFor(server.origin).level()).toBe(3);
    expect((await fetch(server.origin)).status).toBe(200);
  });

  it.each(Object.keys(drivers))(
    "%s: ends in the policy when the inbound request's signal was aborted before the call",
    async (name) => {
      const call = drivers[name] as Driver;
      const server = await serve((_req, res) => res.end('ok'));
      const policy = new RetryPolicy({ budget: { kind: 'percent', percent: 20, minConcurrency: 3 } });
      const signal = AbortSignal.abort();
      for (let i = 0; i < 1000; i++) {
        const error = await rejection(
          runWithContext({ deadlineMs: null, fromSeawallHop: false, signal }, () => call({ policy }, server.origin)),
        );
        expect(error).toBeInstanceOf(SeawallError);
        expect(error).toMatchObject({ reason: 'aborted', attempts: 0 });
      }
      expect(policy.stats()).toMatchObject({ calls: 1000, active: 0, attempts: 0, stops: { aborted: 1000 } });
      expect(policy.budgetFor(server.origin).level()).toBe(3);
      expect(server.hits).toHaveLength(0);
    },
  );
});

describe.each(Object.keys(drivers))(
  '%s: a write is replayed only when it never reached the server (item 5)',
  (name) => {
    const call = drivers[name] as Driver;

    it('sends a POST once when the connection resets after the server read the whole body', async () => {
      const server = await serve((req, res, hit) => readBody(req, hit, () => res.socket?.resetAndDestroy()));
      const policy = quick();
      const error = await rejection(call({ policy }, server.origin, { method: 'POST', body: 'pay' }));
      expect(error).toMatchObject({ reason: 'unsafe-to-retry', attempts: 1 });
      expect(server.hits.map((h) => h.body)).toEqual(['pay']);
    });

    it('retries a GET after the same reset (idempotent)', async () => {
      const server = await serve((req, res, hit, n) => {
        if (n > 1) return res.end('ok');
        readBody(req, hit, () => res.socket?.resetAndDestroy());
      });
      expect(await call({ policy: quick() }, server.origin)).toBe(200);
      expect(server.hits).toHaveLength(2);
    });

    it('retries a POST whose connection is reset while it is being set up (the request was never written)', async () => {
      let connections = 0;
      const server = net.createServer((socket) => {
        connections++;
        socket.on('error', () => {});
        if (connections <= 2) socket.resetAndDestroy(); // before reading a byte
      });
      let served = 0;
      server.on('connection', (socket) => {
        if (connections > 2) {
          socket.on('data', () => {
            served++;
            socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
          });
        }
      });
      const loopback = await listenLoopback(server);
      try {
        expect(await call({ policy: quick() }, `${loopback.origin}/`, { method: 'POST', body: 'pay' })).toBe(200);
        expect(served).toBe(1);
      } finally {
        await loopback.close();
      }
    });

    it('retries a POST whose connection was refused (the server never saw it)', async () => {
      const port = await closedPort();
      const policy = quick();
      const error = await rejection(call({ policy }, `http://127.0.0.1:${port}`, { method: 'POST', body: 'pay' }));
      expect(error).toMatchObject({ reason: 'attempts-exhausted', attempts: 3 });
    });
  },
);

describe('a deadline only ever shrinks down a chain (item 7)', () => {
  it('lets a per-call timeout shorten the inbound deadline, never extend it', async () => {
    const leaf = await serve((_req, res) => res.end('ok'));
    const fetch = createFetch({ policy: quick() });
    const seen: string[] = [];
    const middle = createServer(
      seawallHandler(
        async (_req, res) => {
          await fetch(leaf.origin, { seawall: { timeout: '2s' } }); // longer than the inbound 1 s
          await fetch(leaf.origin, { seawall: { deadlineMs: Date.now() + 60_000 } });
          await fetch(leaf.origin, { seawall: { timeout: '50ms' } }); // shorter: it wins
          res.end('ok');
        },
        { meter: false },
      ),
    );
    const loopback = await listenLoopback(middle);
    try {
      // An inbound 1 s, of which the three calls take ~20 ms (with 200 ms, a loaded machine ran out of it): extended,
      // the first two would carry 2,000 and 60,000 ms; the third its own 50.
      const response = await fetch(`${loopback.origin}/`, { seawall: { timeout: '1s' } });
      expect(response.status).toBe(200);
      for (const hit of leaf.hits) seen.push(String(hit.headers['grpc-timeout']));
      const left = seen.map((v) => Number(/^(\d+)m$/.exec(v)?.[1]));
      expect(left[0]).toBeLessThanOrEqual(1000);
      expect(left[1]).toBeLessThanOrEqual(1000);
      expect(left[2]).toBeLessThanOrEqual(50);
    } finally {
      await loopback.close();
    }
  });
});

describe('bad options fail loudly, at once (item 8)', () => {
  it.each([
    [{ maxAttempts: Number.NaN }, 'seawall.maxAttempts: must be an integer from 1 to 100, got NaN'],
    [{ maxAttempts: '3' }, 'seawall.maxAttempts: must be an integer from 1 to 100, got "3"'],
    [{ maxAttempts: -1 }, 'seawall.maxAttempts'],
    [{ deadlineMs: 'x' }, 'seawall.deadlineMs: must be a finite number of epoch ms'],
    [{ deadlineMs: Number.NaN }, 'seawall.deadlineMs'],
    [{ timeout: -5 }, 'seawall.timeout: must be a finite, non-negative duration'],
    [{ timeout: 'soon' }, 'seawall.timeout'],
    [{ perTryTimeout: 0 }, 'seawall.perTryTimeout: must be greater than 0'],
    [{ idempotent: 'yes' }, 'seawall.idempotent: must be true or false'],
    [{ idempotencyKey: 'a\r\nb' }, 'seawall.idempotencyKey'],
    [{ retryOn: ['nope'] }, 'seawall.retryOn.0: unknown retry condition'],
    [{ maxAtempts: 2 }, 'seawall.maxAtempts: unknown key; did you mean maxAttempts?'],
  ])('rejects the call option %j before sending anything (%s)', async (options, message) => {
    const server = await serve((_req, res) => res.end('ok'));
    const policy = quick();
    for (const name of Object.keys(drivers)) {
      const init = { seawall: options } as never;
      const error =
        name === 'fetch'
          ? await rejection(createFetch({ policy })(server.origin, init))
          : await rejection(request(server.origin, { dispatcher: agentWith({ policy }), ...(init as object) }));
      expect(error).toBeInstanceOf(ConfigError);
      expect(String((error as Error).message)).toContain(message);
    }
    expect(server.hits).toHaveLength(0);
    expect(policy.stats().calls).toBe(0);
  });

  it('builds a policy from a plain config object, and refuses a bad one at construction', async () => {
    const server = await serve((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end());
    const fetch = createFetch({ policy: { maxAttempts: 2, backoff: 'none', budget: false } });
    expect((await fetch(server.origin)).status).toBe(200);
    expect(() => createFetch({ policy: { maxAttempts: Number.NaN } })).toThrow(
      'policy.maxAttempts: must be an integer',
    );
    expect(() => createFetch({ policy: { maxAtempts: 2 } as never })).toThrow(
      'policy.maxAtempts: unknown key; did you mean maxAttempts?',
    );
    // The retry limits of issue #27: a rate budget, Brooker's bucket and retry breaker, checked the same way.
    createFetch({
      policy: { budget: { kind: 'rate', perSecond: 20 }, retryBreaker: { failureRate: 0.2, window: '10s' } },
    });
    createFetch({ policy: { budget: { kind: 'deposit-bucket', deposit: 0.1, cost: 1, maxTokens: 10 } } });
    expect(() => createFetch({ policy: { budget: { kind: 'rate', perSecond: Number.NaN } } })).toThrow(
      'policy.budget.perSecond: must be a number of retries a second',
    );
    expect(() => createFetch({ policy: { retryBreaker: { failureRate: 0 } } })).toThrow(
      'policy.retryBreaker.failureRate: must be a number between 0 and 1',
    );
  });

  it.each([
    ['no policy', {}, 'policy: is required'],
    ['an unknown key', { retryOnGiveUp: true }, 'retryOnGiveUp: is not an option of the Seawall client'],
    ['a typo', { rejectOnGiveup: true }, 'did you mean rejectOnGiveUp?'],
    ['a string for a boolean', { propagate: 'no' }, 'propagate: must be true or false'],
    ['a bad write default', { writes: { maxAttempts: 0 } }, 'writes.maxAttempts'],
    ['a negative drain bound', { drain: { maxBytes: -1 } }, 'drain.maxBytes: must be an integer >= 0'],
    ['an empty upstream', { upstream: '' }, 'upstream: must be a non-empty string'],
  ])('refuses client options with %s at construction', (_what, options, message) => {
    const withPolicy = 'policy' in options || _what === 'no policy' ? options : { policy: quick(), ...options };
    expect(() => createFetch(withPolicy as never)).toThrow(message);
  });
});
