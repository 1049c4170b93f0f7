// The circuit breaker and Envoy-style limits driven by the client, over real servers on 127.0.0.1: fail fast, probes, overflow.
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { type ClientStats, createFetch, retryInterceptor, SeawallError } from '../../../src/http/index.js';
import { CircuitBreaker, ConcurrencyBreaker } from '../../../src/policy/index.js';
import { delay, rejection, resetBeforeResponse, resetMidBody, within } from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import { fail503, held, IDLE, idle, ok, only, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();
const { track } = agentsClosedAfterEach();

async function drain(response: Response): Promise<number> {
  await response.text();
  return response.status;
}

function refusalOf(error: unknown): string | null {
  expect(error).toBeInstanceOf(SeawallError);
  return (error as SeawallError).refusal;
}

describe('circuit breaker', () => {
  it('opens after the threshold and then fails fast: no request reaches the server while it is open', async () => {
    const [server] = await start((_req, res) => res.writeHead(500).end());
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      circuitBreaker: { failureThreshold: 3, failureRate: false, breakDuration: '10s' },
    });
    const url = `${server?.origin}/x`;
    for (let i = 0; i < 3; i++) expect(await drain(await fetch(url))).toBe(500);
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const error = await rejection(fetch(url));
      expect(performance.now() - started).toBeLessThan(100);
      expect(refusalOf(error)).toBe('breaker-open');
      expect((error as SeawallError).attempts).toBe(0);
      expect(String(error)).toMatch(/refused without sending: the circuit breaker is open/);
    }
    expect(server?.hits).toHaveLength(3);
    const stats = fetch.stats();
    expect(stats.signals).toMatchObject({
      circuit_breakers_open: 1,
      circuit_breaker_opened: 1,
      circuit_breaker_rejected: 5,
    });
    expect(only(stats).refused['breaker-open']).toBe(5);
    expect(stats.signals.upstream_rq_total).toBe(3); // refused attempts are not sent
  });

  it('half-open lets exactly halfOpenMaxProbes through under concurrent calls, and closes after enough successes', async () => {
    let answer = 500;
    const [server] = await start((_req, res) => {
      if (answer === 500) res.writeHead(500).end();
      else setTimeout(() => res.end('ok'), 100); // probes stay out while the others arrive
    });
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      circuitBreaker: {
        failureThreshold: 2,
        failureRate: false,
        breakDuration: 200,
        halfOpenMaxProbes: 2,
        successesToClose: 2,
        probeLease: '5s', // the probes stay out 100 ms: never near their lease, even on a loaded machine
      },
    });
    const url = `${server?.origin}/x`;
    for (let i = 0; i < 2; i++) await drain(await fetch(url));
    expect(only(fetch.stats()).circuitBreaker?.state).toBe('open');
    answer = 200;
    await delay(250);
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => fetch(url).then(drain)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => refusalOf(o.reason));
    expect(refused).toEqual(Array(4).fill('breaker-half-open-full'));
    expect(server?.hits).toHaveLength(4); // 2 failures + 2 probes
    expect(only(fetch.stats()).circuitBreaker?.state).toBe('closed');
    const after = await Promise.all(Array.from({ length: 4 }, () => fetch(url).then(drain)));
    expect(after).toEqual([200, 200, 200, 200]);
  });

  it('keeps one breaker per upstream: a failing origin does not stop calls to another', async () => {
    const [sick, well] = await start((_req, res) => res.writeHead(500).end(), ok);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      circuitBreaker: { failureThreshold: 1, failureRate: false, breakDuration: '10s' },
    });
    await drain(await fetch(`${sick?.origin}/x`));
    expect(refusalOf(await rejection(fetch(`${sick?.origin}/x`)))).toBe('breaker-open');
    expect(await drain(await fetch(`${well?.origin}/x`))).toBe(200);
    const names = fetch.stats().upstreams.map((u) => [u.upstream, u.circuitBreaker?.state]);
    expect(names).toEqual([
      [sick?.origin, 'open'],
      [well?.origin, 'closed'],
    ]);
  });

  it('shares a CircuitBreaker instance between clients: one opening it stops the other', async () => {
    const [server] = await start((_req, res) => res.writeHead(503).end());
    const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: '10s' });
    const fetch = createFetch({ policy: quick({ maxAttempts: 1 }), circuitBreaker: breaker });
    const dispatcher = track(new Agent()).compose(
      retryInterceptor({ policy: quick({ maxAttempts: 1 }), circuitBreaker: breaker }),
    );
    await drain(await fetch(`${server?.origin}/x`));
    const error = await rejection(request(`${server?.origin}/x`, { dispatcher }));
    expect(refusalOf(error)).toBe('breaker-open');
    expect(server?.hits).toHaveLength(1);
  });
});

describe('limits (Envoy circuit_breakers): fail fast, never queue', () => {
  it('refuses the call over maxRequests at once and counts it as pending overflow (fetch)', async () => {
    const hold = held();
    const [server] = await start(hold.respond);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxRequests: 2 },
      circuitBreaker: { failureThreshold: 5 }, // asked first: its permit is handed back when the limits refuse
    });
    const first = [fetch(`${server?.origin}/a`), fetch(`${server?.origin}/b`)];
    const started = performance.now();
    const error = await rejection(fetch(`${server?.origin}/c`));
    expect(performance.now() - started).toBeLessThan(100);
    expect(refusalOf(error)).toBe('max-requests');
    await waitFor(() => hold.waiting() === 2, 2000, 'the two admitted calls to reach the server');
    expect(server?.hits.map((h) => h.url)).toEqual(['/a', '/b']);
    const stats = fetch.stats();
    expect(stats.signals.upstream_rq_pending_overflow).toBe(1);
    expect(only(stats).limits?.activeRequests).toBe(2);
    hold.release();
    expect(await Promise.all(first.map(async (p) => drain(await p)))).toEqual([200, 200]);
    expect(idle(only(fetch.stats()))).toEqual(IDLE);
  });

  it('counts requests waiting for a connection as pending and refuses one over maxPendingRequests (undici)', async () => {
    const hold = held();
    const [server] = await start(hold.respond);
    const agent = track(new Agent({ connections: 1 }));
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxPendingRequests: 1, maxRequests: 10 },
      pool: agent, // its stats say when no connection is free
    });
    const dispatcher = agent.compose(interceptor);
    const first = request(`${server?.origin}/a`, { dispatcher });
    await waitFor(() => hold.waiting() === 1, 2000, 'the first request to be on the connection');
    const second = request(`${server?.origin}/b`, { dispatcher }); // waits for the only connection: pending
    expect(interceptor.stats().upstreams[0]?.limits).toMatchObject({ activeRequests: 1, pendingRequests: 1 });
    expect(refusalOf(await rejection(request(`${server?.origin}/c`, { dispatcher })))).toBe('max-pending');
    expect(interceptor.stats().signals.upstream_rq_pending_overflow).toBe(1);
    hold.release();
    await (await first).body.text();
    await waitFor(() => hold.waiting() === 1, 2000, 'the pending request to get the connection');
    hold.release();
    expect((await second).statusCode).toBe(200);
    expect(server?.hits.map((h) => h.url)).toEqual(['/a', '/b']);
    expect(idle(only(interceptor.stats()))).toEqual(IDLE);
  });

  it('refuses at max-requests when a pending request gets its connection, before writing it (undici)', async () => {
    const hold = held();
    const [server] = await start(hold.respond);
    const agent = track(new Agent({ connections: 2 }));
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxRequests: 1 },
      pool: agent,
    });
    const dispatcher = agent.compose(interceptor);
    const first = request(`${server?.origin}/a`, { dispatcher });
    await waitFor(() => hold.waiting() === 1, 2000, 'the first request to be on its connection');
    // A second connection opens for /b; when it is ready, max_requests (1) is full: /b is never written.
    expect(refusalOf(await rejection(request(`${server?.origin}/b`, { dispatcher })))).toBe('max-requests');
    await delay(50);
    expect(server?.hits.map((h) => h.url)).toEqual(['/a']);
    expect(interceptor.stats().upstreams[0]?.limits?.activeOverflow).toBe(1);
    hold.release();
    await (await first).body.text();
    expect(idle(only(interceptor.stats()))).toEqual(IDLE);
  });

  it('counts a retry against maxRetries when it is decided: a refused retry hands over the last response', async () => {
    const [server] = await start(fail503);
    const limits = new ConcurrencyBreaker({ maxRetries: 0 });
    const fetch = createFetch({ policy: quick({ maxAttempts: 3 }), limits });
    expect(await drain(await fetch(`${server?.origin}/x`))).toBe(503); // as Envoy passes the upstream's answer on
    expect(server?.hits).toHaveLength(1);
    expect(limits.stats().retryOverflow).toBe(1);
    const strict = createFetch({ policy: quick({ maxAttempts: 3 }), limits, rejectOnGiveUp: true });
    const error = (await rejection(strict(`${server?.origin}/x`))) as SeawallError;
    expect(error.refusal).toBe('max-retries');
    expect(error.reason).toBe('budget-exhausted');
    expect(error.lastStatus).toBe(503);
    expect(error.attempts).toBe(1);
    // The refused retry was never begun (RetryCall.refuseRetry): the policy counts the one attempt sent, no retry.
    expect(strict.stats().policy).toMatchObject({ attempts: 1, retries: 0 });
    expect(server?.hits).toHaveLength(2);
    expect(strict.stats().signals.upstream_rq_retry_overflow).toBe(2);
  });

  it('frees a retry slot when its attempt ends, so one call can retry twice under maxRetries 1', async () => {
    const [server] = await start((_req, res, _hit, n) => (n <= 2 ? res.writeHead(503).end() : res.end('ok')));
    const fetch = createFetch({ policy: quick({ maxAttempts: 3 }), limits: { maxRetries: 1 } });
    expect(await drain(await fetch(server?.origin as string))).toBe(200);
    expect(server?.hits).toHaveLength(3);
    expect(idle(only(fetch.stats()))).toEqual(IDLE);
  });

  it('holds a retry slot over the backoff: a second call cannot retry while the first waits to', async () => {
    const [server] = await start((_req, res, _hit, n) =>
      n <= 2 ? res.writeHead(503, { 'retry-after-ms': '200' }).end() : res.end('ok'),
    );
    const fetch = createFetch({ policy: quick({ maxAttempts: 2 }), limits: { maxRetries: 1 } });
    const statuses = await Promise.all(
      [fetch(server?.origin as string), fetch(server?.origin as string)].map(async (p) => drain(await p)),
    );
    expect(statuses.sort()).toEqual([200, 503]);
    expect(server?.hits).toHaveLength(3);
  });
});

/** A call through either driver, reduced to what the permit tests look at. */
interface Driver {
  name: string;
  make(
    origin: string,
    options?: { perTryTimeout?: number; bufferResponse?: boolean },
  ): {
    call(path: string, signal?: AbortSignal): Promise<{ status: number; read(): Promise<string>; cancel(): void }>;
    stats(): ClientStats;
  };
}

const SVC = 'http://svc.invalid';
function upstreamOptions(origin: string, options: { perTryTimeout?: number; bufferResponse?: boolean }) {
  return {
    policy: quick({
      maxAttempts: 1,
      ...(options.perTryTimeout === undefined ? {} : { perTryTimeout: options.perTryTimeout }),
    }),
    bufferResponse: options.bufferResponse === true,
    endpoints: [origin],
    outlierDetection: { consecutive5xx: 100, consecutiveGatewayFailure: 100 },
    circuitBreaker: { failureThreshold: 100, failureRate: false as const },
    limits: { maxRequests: 10, maxRetries: 10 },
  };
}

const DRIVERS: Driver[] = [
  {
    name: 'createFetch',
    make(origin, options = {}) {
      const fetch = createFetch(upstreamOptions(origin, options));
      return {
        call: async (path, signal) => {
          const response = await fetch(`${SVC}${path}`, signal === undefined ? {} : { signal });
          return {
            status: response.status,
            read: () => response.text(),
            cancel: () => void response.body?.cancel().catch(() => {}),
          };
        },
        stats: () => fetch.stats(),
      };
    },
  },
  {
    name: 'retryInterceptor',
    make(origin, options = {}) {
      const interceptor = retryInterceptor(upstreamOptions(origin, options));
      const dispatcher = track(new Agent()).compose(interceptor);
      return {
        call: async (path, signal) => {
          const response = await request(
            `${SVC}${path}`,
            signal === undefined ? { dispatcher } : { dispatcher, signal },
          );
          return {
            status: response.statusCode,
            read: () => response.body.text(),
            cancel: () => response.body.destroy(),
          };
        },
        stats: () => interceptor.stats(),
      };
    },
  },
];

describe.each(DRIVERS)('every permit ends exactly once ($name)', (driver) => {
  async function server() {
    const hang = held();
    const [s] = await start((req, res) => {
      if (req.url === '/hang') hang.respond(req, res, undefined as never, 0);
      else if (req.url === '/reset') resetBeforeResponse(res);
      else if (req.url === '/cut') resetMidBody(res);
      else if (req.url === '/trickle') res.writeHead(200, { 'content-length': '100' }).write('part');
      else res.end('ok');
    });
    return { origin: s?.origin as string, hits: s?.hits ?? [], hang };
  }

  it('takes nothing for a call aborted before it starts', async () => {
    const s = await server();
    const client = driver.make(s.origin);
    const controller = new AbortController();
    controller.abort();
    await rejection(client.call('/x', controller.signal));
    expect(only(client.stats()).circuitBreaker?.offered).toBe(0);
    expect(idle(only(client.stats()))).toEqual(IDLE);
    expect(s.hits).toHaveLength(0);
  });

  it('releases an attempt aborted in flight (a cancel for the breaker)', async () => {
    const s = await server();
    const client = driver.make(s.origin);
    const controller = new AbortController();
    const call = client.call('/hang', controller.signal);
    try {
      await waitFor(() => s.hang.waiting() === 1, 2000, 'the attempt to reach the server');
      expect(idle(only(client.stats()))).toMatchObject({ activeRequests: 1, breakerInFlight: 1, endpointsInFlight: 1 });
      controller.abort();
      await within(rejection(call), 5000, 'the aborted call to end');
      expect(idle(only(client.stats()))).toEqual(IDLE);
      expect(only(client.stats()).circuitBreaker).toMatchObject({ cancelled: 1, failures: 0, successes: 0 });
    } finally {
      controller.abort(); // a failed check must not leave the call hanging for the next test
      s.hang.release();
    }
  });

  it('releases an attempt cut by its per-try timeout and a connection reset (failures)', async () => {
    const s = await server();
    const client = driver.make(s.origin, { perTryTimeout: 100 });
    await rejection(client.call('/hang'));
    await rejection(client.call('/reset'));
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ failures: 2, successes: 0, cancelled: 0 });
    expect(u.outlierDetection?.ejectionsDetectedConsecutive5xx).toBe(0);
    s.hang.release();
  });

  it('releases at the response head: a body cut later, or never read, holds nothing', async () => {
    const s = await server();
    const client = driver.make(s.origin);
    const cut = await client.call('/cut');
    expect(cut.status).toBe(200);
    await rejection(cut.read());
    const unread = await client.call('/trickle');
    try {
      expect(unread.status).toBe(200);
      const u = only(client.stats());
      expect(idle(u)).toEqual(IDLE);
      expect(u.circuitBreaker).toMatchObject({ successes: 2, failures: 0 });
    } finally {
      unread.cancel(); // a failed check must not leave the body open for the next test
    }
  });

  it("with bufferResponse, a body cut mid-way is the attempt's failure, and released", async () => {
    const s = await server();
    const client = driver.make(s.origin, { bufferResponse: true });
    await rejection(client.call('/cut'));
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ failures: 1, successes: 0 });
  });
});
