// The upstream policies attacked by a hostile caller and an unlucky operator: odd endpoint lists, shared instances, dead
// and resetting peers, every endpoint ejected, aborts at every stage, mixed load; the counters must add up after each.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ClientStats,
  createFetch,
  type MeterLike,
  retryInterceptor,
  SeawallError,
  type SeawallRequestOptions,
} from '../../../src/http/index.js';
import { CircuitBreaker, ConcurrencyBreaker, ConfigError, OutlierDetector } from '../../../src/policy/index.js';
import {
  closedPort,
  type Hit,
  listenLoopback,
  rejection,
  resetBeforeResponse,
  resetMidBody,
  within,
} from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import { fail503, held, IDLE, idle, ok, only, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();
const { track } = agentsClosedAfterEach();
/** A logical origin: nothing resolves it, so an attempt not mapped onto an endpoint fails. */
const SERVICE = 'http://member-api.invalid';

function issuesOf(make: () => unknown): Record<string, string> {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return Object.fromEntries((error as ConfigError).issues.map((i) => [i.path, i.message]));
  }
  throw new Error('expected a ConfigError');
}

function refusalOf(error: unknown): string | null {
  expect(error).toBeInstanceOf(SeawallError);
  return (error as SeawallError).refusal;
}

/** A fetch that answers at once without I/O: `status(url)` decides the answer. */
function stubFetch(status: (url: string) => number) {
  return async (input: string | URL | Request) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return new Response(null, { status: status(url) });
  };
}

/** A meter that keeps the callbacks of its observable instruments, and reads one on demand. */
function recordingMeter() {
  type Observe = (result: { observe(v: number, a?: Record<string, unknown>): void }) => void;
  const callbacks = new Map<string, Observe>();
  const meter: MeterLike = {
    createHistogram: () => ({ record: () => {} }),
    createObservableCounter: (name) => ({ addCallback: (callback) => callbacks.set(name, callback) }),
    createObservableUpDownCounter: (name) => ({ addCallback: (callback) => callbacks.set(name, callback) }),
  };
  const observe = (name: string) => {
    const seen: Array<[number, Record<string, unknown> | undefined]> = [];
    callbacks.get(name)?.({ observe: (v, a) => seen.push([v, a]) });
    return seen;
  };
  return { meter, observe };
}

/** A server on the IPv6 loopback (the one helper, servers.ts listenLoopback, on ::1). */
let v6Servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(v6Servers.map((s) => s.close()));
  v6Servers = [];
});
async function startV6(respond: (req: IncomingMessage, res: ServerResponse) => void) {
  const urls: string[] = [];
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    respond(req, res);
  });
  const { port, close } = await listenLoopback(server, '::1');
  const running = { port, urls, close };
  v6Servers.push(running);
  return running;
}

describe('endpoint lists a hostile caller writes', () => {
  it('refuses holes in the list instead of skipping them (and calling the logical origin)', () => {
    // forEach skips holes: new Array(3) passed as "a list of no endpoints", and every call went to member-api.invalid.
    expect(issuesOf(() => createFetch({ policy: quick(), endpoints: new Array(3) }))).toEqual({
      'endpoints.0': 'must be an http(s) origin such as "http://10.0.0.7:8080", got undefined',
      'endpoints.1': 'must be an http(s) origin such as "http://10.0.0.7:8080", got undefined',
      'endpoints.2': 'must be an http(s) origin such as "http://10.0.0.7:8080", got undefined',
    });
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = ['http://127.0.0.1:3001', , 'http://127.0.0.1:3002'] as string[];
    expect(Object.keys(issuesOf(() => retryInterceptor({ policy: quick(), endpoints: sparse })))).toEqual([
      'endpoints.1',
    ]);
  });

  it('refuses port 0, which no peer listens on', () => {
    expect(
      issuesOf(() => createFetch({ policy: quick(), endpoints: ['http://127.0.0.1:0', 'http://[::1]:0'] })),
    ).toEqual({
      'endpoints.0': 'must name a port from 1 to 65535, got "http://127.0.0.1:0"',
      'endpoints.1': 'must name a port from 1 to 65535, got "http://[::1]:0"',
    });
  });

  it('normalises IPv6 literals, case, default ports and trailing slashes before looking for duplicates', () => {
    const issues = issuesOf(() =>
      createFetch({
        policy: quick(),
        endpoints: [
          'http://[::1]:8080',
          'HTTP://[0:0:0:0:0:0:0:1]:8080/',
          'https://Example.COM:443',
          'https://example.com/',
          'http://[::1]:8080/?',
          'http://u:p@[::1]:8081',
          'http://[::1]:8082/api',
        ],
      }),
    );
    expect(issues).toMatchObject({
      'endpoints.1': 'repeats endpoints.0 (http://[::1]:8080)',
      'endpoints.3': 'repeats endpoints.2 (https://example.com)',
      'endpoints.4': 'repeats endpoints.0 (http://[::1]:8080)',
    });
    expect(issues['endpoints.5']).toMatch(/origin only/);
    expect(issues['endpoints.6']).toMatch(/origin only/);
    expect(Object.keys(issues)).toHaveLength(5);
  });

  it('sends to an IPv6 endpoint with the path and query of the call, on both drivers', async () => {
    const server = await startV6((_req, res) => res.end('v6'));
    const endpoints = [`http://[::1]:${server.port}/`]; // a trailing slash is still an origin
    const fetch = createFetch({ policy: quick(), endpoints });
    expect(await (await fetch(`${SERVICE}/a?b=1#c`)).text()).toBe('v6');
    const dispatcher = track(new Agent()).compose(retryInterceptor({ policy: quick(), endpoints }));
    expect(await (await request(`${SERVICE}/d?e=2`, { dispatcher })).body.text()).toBe('v6');
    expect(server.urls).toEqual(['/a?b=1', '/d?e=2']);
    expect(only(fetch.stats()).endpoints[0]?.endpoint).toBe(`http://[::1]:${server.port}`);
  });

  it('refuses a call URL with no path to map (relative, schemeless) instead of sending it to the endpoint’s /', async () => {
    // pathOf() found no path in "/users/7" and answered "/": a DELETE /users/7 went out as DELETE / on the endpoint.
    const [server] = await start(ok);
    const fetch = createFetch({ policy: quick({ maxAttempts: 1 }), endpoints: [server?.origin as string] });
    for (const url of ['/users/7?x=1', 'users/7', 'member-api/users/7', '//member-api/users/7', 'data:,x']) {
      const error = await rejection(fetch(url, { method: 'DELETE' }));
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toMatch(/with endpoints, call with an absolute http\(s\) URL/);
      expect(String(error)).not.toMatch(/x=1/); // a query may carry secrets: not echoed
    }
    expect(server?.hits).toHaveLength(0);
    expect(fetch.stats().policy.calls).toBe(0); // refused before the call began: nothing to release
    // An absolute URL, a URL object and a Request keep their path and query.
    await fetch('HTTP://member-api/a?b=1');
    await fetch(new URL('http://member-api/c'));
    await fetch(new Request('https://member-api/d?e', { method: 'POST', body: 'x' }));
    expect(server?.hits.map((h) => `${h.method} ${h.url}`)).toEqual(['GET /a?b=1', 'GET /c', 'POST /d?e']);
  });

  it('takes 10,000 endpoints and refuses 10,001, naming the key', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => `http://10.${i >> 16}.${(i >> 8) & 255}.${i & 255}:81`);
    expect(() => createFetch({ policy: quick(), endpoints: many(10_000), outlierDetection: {} })).not.toThrow();
    expect(issuesOf(() => createFetch({ policy: quick(), endpoints: many(10_001) }))).toEqual({
      endpoints: 'must have at most 10000 endpoints',
    });
  });

  it('ejects a failing endpoint in a pool larger than the detector’s default host cap (1,024)', async () => {
    // The detector tracked 1,024 hosts and forgot the least recently seen one at each result of another: with round
    // robin over 1,100 endpoints every endpoint was new again at its turn, so none ever counted 3 failures in a row.
    const endpoints = Array.from({ length: 1100 }, (_, i) => `http://10.0.${i >> 8}.${i & 255}:81`);
    const sick = `${endpoints[0]}/`;
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints,
      outlierDetection: { consecutive5xx: 3, maxEjectionPercent: 50 },
      fetch: stubFetch((url) => (url.startsWith(sick) ? 503 : 200)),
    });
    for (let i = 0; i < endpoints.length * 3; i++) await fetch(`${SERVICE}/x`);
    const u = only(fetch.stats());
    expect(u.outlierDetection).toMatchObject({ hostsTracked: 1100, hostsForgotten: 0, ejectionsActive: 1 });
    expect(u.endpoints[0]?.ejected).toBe(true);
  });

  it('refuses a detector that cannot track every endpoint, config or shared instance', () => {
    const endpoints = ['http://127.0.0.1:3001', 'http://127.0.0.1:3002', 'http://127.0.0.1:3003'];
    expect(issuesOf(() => createFetch({ policy: quick(), endpoints, outlierDetection: { maxHosts: 2 } }))).toEqual({
      'outlierDetection.maxHosts':
        'is 2, fewer than the 3 endpoints: it would forget endpoints and never eject them; set at least 3',
    });
    const shared = new OutlierDetector({ maxHosts: 2 });
    expect(
      Object.keys(issuesOf(() => retryInterceptor({ policy: quick(), endpoints, outlierDetection: shared }))),
    ).toEqual(['outlierDetection']);
  });

  it('takes an object with only some of a policy’s methods for a config, and refuses it by key', () => {
    // It passed as an instance and failed later: a TypeError at the first pick (nextWakeMs) and in every stats().
    const partial = { onResult() {}, sweep() {}, isEjected: () => false, addHosts() {} };
    const issues = issuesOf(() =>
      createFetch({ policy: quick(), endpoints: ['http://127.0.0.1:3001'], outlierDetection: partial as never }),
    );
    expect(Object.keys(issues).sort()).toEqual([
      'outlierDetection.addHosts',
      'outlierDetection.isEjected',
      'outlierDetection.onResult',
      'outlierDetection.sweep',
    ]);
    const breakerLike = { tryAcquire() {}, onSuccess() {}, onFailure() {}, onCancel() {} };
    expect(Object.keys(issuesOf(() => createFetch({ policy: quick(), circuitBreaker: breakerLike as never })))).toEqual(
      ['circuitBreaker.tryAcquire', 'circuitBreaker.onSuccess', 'circuitBreaker.onFailure', 'circuitBreaker.onCancel'],
    );
  });

  it('refuses NaN, strings and junk in every numeric and kind option, by key', () => {
    const issues = issuesOf(() =>
      createFetch({
        policy: quick(),
        endpoints: ['http://127.0.0.1:3001'],
        loadBalancer: { kind: 'least-request', panicThreshold: '50' } as never,
        seed: '42' as never,
        limits: { maxRequests: Number.NaN, maxRetries: '3', retryBudget: { percent: Number.NaN } } as never,
        circuitBreaker: { failureThreshold: Number.NaN, halfOpenMaxProbes: 0.5 } as never,
        outlierDetection: { maxEjectionPercent: Number.NaN, interval: 'often' } as never,
      }),
    );
    expect(Object.keys(issues).sort()).toEqual(
      [
        'loadBalancer.kind',
        'loadBalancer.panicThreshold',
        'seed',
        'limits.maxRequests',
        'limits.maxRetries',
        'limits.retryBudget.percent',
        'circuitBreaker.failureThreshold',
        'circuitBreaker.halfOpenMaxProbes',
        'outlierDetection.maxEjectionPercent',
        'outlierDetection.interval',
      ].sort(),
    );
    for (const junk of [42, [], 'P2C', true]) {
      expect(
        Object.keys(
          issuesOf(() => createFetch({ policy: quick(), endpoints: ['http://a'], loadBalancer: junk as never })),
        ),
      ).toEqual([typeof junk === 'string' ? 'loadBalancer.kind' : 'loadBalancer']);
    }
  });
});

describe('shared instances are counted once', () => {
  it('sums a breaker shared across per-key scopes once in the signals', async () => {
    // A shared CircuitBreaker beside a limits config sits in every per-key scope: it was summed once per scope.
    const [a, b, c] = await start(fail503, fail503, fail503);
    const breaker = new CircuitBreaker({ failureThreshold: 3, failureRate: false, breakDuration: '10s' });
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      circuitBreaker: breaker,
      limits: { maxRequests: 10 },
    });
    for (const server of [a, b, c]) await (await fetch(`${server?.origin}/x`)).text();
    expect(await rejection(fetch(`${a?.origin}/x`)).then(refusalOf)).toBe('breaker-open');
    const stats = fetch.stats();
    expect(stats.upstreams).toHaveLength(3);
    expect(breaker.stats()).toMatchObject({ opened: 1, rejected: 1 });
    expect(stats.signals).toMatchObject({
      upstream_rq_total: 3,
      circuit_breakers_open: 1,
      circuit_breaker_opened: 1,
      circuit_breaker_rejected: 1,
    });
  });

  it('exports a breaker and limits shared by two clients of one name once (telemetry)', async () => {
    const hold = held();
    const [server] = await start(hold.respond);
    const { meter, observe } = recordingMeter();
    const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: false, breakDuration: '10s' });
    const limits = new ConcurrencyBreaker({ maxRequests: 10 });
    const options = { policy: quick({ maxAttempts: 1 }), upstream: 'member-api', circuitBreaker: breaker, limits };
    const fetch = createFetch({ ...options, telemetry: { meter } });
    const interceptor = retryInterceptor({ ...options, telemetry: { meter } });
    const dispatcher = track(new Agent()).compose(interceptor);
    const call = request(`${server?.origin}/x`, { dispatcher });
    const series = { 'seawall.upstream': 'member-api' };
    try {
      await waitFor(() => hold.waiting() === 1, 2000, 'the call to reach the server');
      expect(observe('seawall.upstream_rq_active')).toEqual([[1, series]]); // one call in flight, not two
    } finally {
      hold.release();
    }
    await (await call).body.text();
    breaker.onFailure(breaker.tryAcquire(Date.now()) as never, Date.now()); // opens it, once
    expect(await rejection(fetch(`${server?.origin}/x`)).then(refusalOf)).toBe('breaker-open');
    expect(observe('seawall.circuit_breaker.opened')).toEqual([[1, series]]);
    expect(observe('seawall.circuit_breakers.open')).toEqual([[1, series]]);
    expect(observe('seawall.circuit_breaker.rejected')).toEqual([[1, series]]);
  });

  it('keeps the series of a client keyed per origin bounded, however many origins it calls', async () => {
    // Every origin ever called kept its own series (and map entry) after the client forgot its scope.
    const { meter, observe } = recordingMeter();
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      limits: { maxRequests: 0 }, // every call refused before any I/O: the scopes are made all the same
      telemetry: { meter },
    });
    for (let i = 0; i < 1100; i++) await fetch(`http://h${i}.invalid/x`).catch(() => undefined);
    expect(fetch.stats().upstreams).toHaveLength(1024);
    const overflow = observe('seawall.upstream_rq_pending_overflow');
    expect(overflow.length).toBeLessThanOrEqual(1024);
    expect(overflow.at(-1)).toEqual([1, { 'seawall.upstream': 'http://h1099.invalid' }]);
  });

  it('reports a breaker whose break has passed as half-open, in stats and telemetry', async () => {
    const [server] = await start(fail503);
    const { meter, observe } = recordingMeter();
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      circuitBreaker: { failureThreshold: 1, failureRate: false, breakDuration: 50 },
      telemetry: { meter },
    });
    await (await fetch(`${server?.origin}/x`)).text();
    expect(fetch.stats().signals.circuit_breakers_open).toBe(1);
    // Said 'open' until the next call, although the next attempt would be a probe.
    await waitFor(() => fetch.stats().signals.circuit_breakers_half_open === 1, 3000, 'the breaker to half-open');
    expect(fetch.stats().signals.circuit_breakers_open).toBe(0);
    expect(observe('seawall.circuit_breakers.open')).toEqual([[0, { 'seawall.upstream': server?.origin }]]);
  });
});

/** One client of each driver over the same options, reduced to what these tests look at. */
interface Client {
  call(
    path: string,
    init?: { signal?: AbortSignal; seawall?: SeawallRequestOptions; headers?: Record<string, string> },
  ): Promise<{ status: number; text: string }>;
  stats(): ClientStats;
}
type Options = Parameters<typeof createFetch>[0];
const DRIVERS: Array<{ name: string; make(options: Options, agent?: Agent): Client }> = [
  {
    name: 'createFetch',
    make(options) {
      const fetch = createFetch(options);
      return {
        call: async (path, init = {}) => {
          const response = await fetch(`${SERVICE}${path}`, init);
          return { status: response.status, text: await response.text() };
        },
        stats: () => fetch.stats(),
      };
    },
  },
  {
    name: 'retryInterceptor',
    make(options, agent = new Agent()) {
      const interceptor = retryInterceptor({ ...options, pool: agent }); // its stats: pending only without a free connection
      const dispatcher = track(agent).compose(interceptor);
      return {
        call: async (path, init = {}) => {
          const response = await request(`${SERVICE}${path}`, { dispatcher, ...init });
          return { status: response.statusCode, text: await response.body.text() };
        },
        stats: () => interceptor.stats(),
      };
    },
  },
];

describe.each(DRIVERS)('dead and unlucky peers ($name)', (driver) => {
  it('retries a refused connection on another endpoint, and the detector ejects the dead one', async () => {
    const [live] = await start(ok);
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const detector = new OutlierDetector({ consecutive5xx: 3, maxEjectionPercent: 50 });
    const client = driver.make({
      policy: quick({ maxAttempts: 2 }),
      endpoints: [dead, live?.origin as string],
      outlierDetection: detector,
      circuitBreaker: { failureThreshold: 100, failureRate: false },
      limits: { maxRequests: 10 },
    });
    for (let i = 0; i < 6; i++) expect((await client.call(`/c${i}`)).status).toBe(200);
    // Calls 1-3 met the dead endpoint first (round robin) and were retried on the live one; the third connect
    // failure in a row ejected it, and calls 4-6 went to the live endpoint alone.
    expect(live?.hits.map((h) => h.url)).toEqual(['/c0', '/c1', '/c2', '/c3', '/c4', '/c5']);
    expect(detector.inspect(dead)).toMatchObject({ ejected: true, timesEjected: 1 });
    const stats = client.stats();
    // The interceptor saw the three connects to the dead endpoint fail before a byte was written: not sent. fetch cannot
    // tell a failed connect from a sent request, and counts them.
    expect(stats.signals).toMatchObject({
      upstream_rq_total: driver.name === 'createFetch' ? 9 : 6,
      upstream_rq_retry: 3,
      'outlier_detection.ejections_active': 1,
    });
    // The first two retries avoided the endpoint that had just failed; the third found it ejected already.
    expect(only(stats).loadBalancer?.avoidedPrevious).toBe(2);
    expect(only(stats).circuitBreaker).toMatchObject({ failures: 3, successes: 6 });
    expect(idle(only(stats))).toEqual(IDLE);
  });

  it('sends the retry of a failed attempt to another endpoint, with p2c too', async () => {
    const [sick, a, b] = await start(fail503, ok, ok);
    const client = driver.make({
      policy: quick({ maxAttempts: 2 }),
      endpoints: [sick, a, b].map((s) => s?.origin as string),
      loadBalancer: 'p2c',
      seed: 11,
    });
    for (let i = 0; i < 30; i++) expect((await client.call(`/c${i}`)).status).toBe(200);
    const met = sick?.hits.length ?? 0;
    expect(met).toBeGreaterThan(0); // the seed's draws do send some first tries to it
    // No call met the sick endpoint twice: each one that met it was retried elsewhere, and answered.
    expect(new Set(sick?.hits.map((h) => h.url)).size).toBe(met);
    expect((a?.hits.length ?? 0) + (b?.hits.length ?? 0)).toBe(30);
    const u = only(client.stats());
    expect(u).toMatchObject({ attempts: 30 + met, retries: met });
    expect(u.loadBalancer?.avoidedPrevious).toBe(met);
  });

  it('retries a peer that dies after the head (buffered) and one that resets before it, elsewhere', async () => {
    const [cut, reset, well] = await start(
      (_req, res) => resetMidBody(res),
      (_req, res) => resetBeforeResponse(res),
      ok,
    );
    const detector = new OutlierDetector({ consecutive5xx: 100, consecutiveGatewayFailure: 100 });
    const client = driver.make({
      policy: quick({ maxAttempts: 3 }),
      bufferResponse: true,
      endpoints: [cut, reset, well].map((s) => s?.origin as string),
      outlierDetection: detector,
      circuitBreaker: { failureThreshold: 100, failureRate: false },
    });
    for (let i = 0; i < 3; i++) expect(await client.call(`/c${i}`)).toEqual({ status: 200, text: 'ok' });
    expect(well?.hits).toHaveLength(3);
    for (const server of [cut, reset]) {
      // Reported as failures of that endpoint (a reset is a locally originated gateway failure).
      expect(detector.inspect(server?.origin as string)?.consecutiveGatewayFailure).toBe(server?.hits.length);
    }
    const u = only(client.stats());
    expect(u.attempts).toBe((cut?.hits.length ?? 0) + (reset?.hits.length ?? 0) + 3);
    expect(u.circuitBreaker).toMatchObject({ successes: 3, failures: u.attempts - 3 });
    expect(idle(u)).toEqual(IDLE);
  });

  it('refuses with no-healthy-endpoint when all are ejected (panic 0), and uses them again after the ejection', async () => {
    let status = 503;
    const servers = await start(
      (_req, res) => res.writeHead(status).end(),
      (_req, res) => res.writeHead(status).end(),
    );
    const client = driver.make({
      policy: quick({ maxAttempts: 1 }),
      endpoints: servers.map((s) => s.origin),
      loadBalancer: { panicThreshold: 0 },
      outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 100, interval: 20, baseEjectionTime: 100 },
    });
    for (let i = 0; i < 2; i++) expect((await client.call('/x')).status).toBe(503);
    const error = (await rejection(client.call('/x'))) as SeawallError;
    expect(refusalOf(error)).toBe('no-healthy-endpoint');
    expect(error.attempts).toBe(0);
    expect(servers.map((s) => s.hits.length)).toEqual([1, 1]);
    expect(client.stats().signals['outlier_detection.ejections_active']).toBe(2);
    status = 200;
    // No timer runs the sweep: stats() does, once it is due and the ejection time has passed.
    await waitFor(() => client.stats().signals['outlier_detection.ejections_active'] === 0, 3000, 'the un-ejection');
    expect(only(client.stats()).endpoints.map((e) => e.ejected)).toEqual([false, false]);
    for (let i = 0; i < 4; i++) expect((await client.call('/x')).status).toBe(200);
    expect(servers.map((s) => s.hits.length)).toEqual([3, 3]);
    const u = only(client.stats());
    expect(u.refused['no-healthy-endpoint']).toBe(1);
    expect(client.stats().signals.upstream_rq_total).toBe(6);
    expect(u.outlierDetection).toMatchObject({ ejectionsEnforcedTotal: 2, unejectionsTotal: 2 });
  });
});

describe.each(DRIVERS)('every permit ends exactly once, at the stages left ($name)', (driver) => {
  const options = (origin: string): Options => ({
    policy: quick({ maxAttempts: 3 }),
    endpoints: [origin],
    circuitBreaker: { failureThreshold: 100, failureRate: false },
    limits: { maxRequests: 10, maxRetries: 10 },
    outlierDetection: { consecutive5xx: 100, consecutiveGatewayFailure: 100 },
  });

  it('releases the retry slot of a call aborted during its backoff', async () => {
    const [server] = await start((_req, res) => res.writeHead(503, { 'retry-after-ms': '5000' }).end('wait'));
    const client = driver.make(options(server?.origin as string));
    const controller = new AbortController();
    const call = client.call('/x', { signal: controller.signal });
    // The retry slot is taken when the retry is decided and held over the backoff.
    await waitFor(() => only(client.stats()).limits?.activeRetries === 1, 2000, 'the backoff to begin');
    expect(idle(only(client.stats()))).toEqual({ ...IDLE, activeRetries: 1 });
    controller.abort();
    await rejection(call);
    expect(server?.hits).toHaveLength(1);
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ failures: 1, inFlight: 0 });
    expect(client.stats().policy.active).toBe(0);
  });

  it('releases an attempt that failed locally (a header that cannot be sent) as a cancel', async () => {
    const [server] = await start(ok);
    const client = driver.make(options(server?.origin as string));
    await rejection(client.call('/x', { headers: { 'x-bad': 'a\r\nb' } }));
    expect(server?.hits).toHaveLength(0);
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ cancelled: 1, failures: 0, successes: 0 });
    expect(u.outlierDetection?.ejectionsDetectedConsecutive5xx).toBe(0);
  });

  it('releases a buffered attempt aborted while its body arrives', async () => {
    const [server] = await start((_req, res) => res.writeHead(200, { 'content-length': '100' }).write('part'));
    const client = driver.make({ ...options(server?.origin as string), bufferResponse: true });
    const controller = new AbortController();
    const call = client.call('/x', { signal: controller.signal });
    await waitFor(() => (server?.hits.length ?? 0) === 1, 2000, 'the attempt to reach the server');
    await waitFor(() => only(client.stats()).endpoints[0]?.inFlight === 1, 2000, 'the attempt to be in flight');
    controller.abort();
    await rejection(call);
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ cancelled: 1, failures: 0, successes: 0 });
  });

  it.each([1, 2])(
    'releases everything when a user’s tracer throws at attempt %i (the retry’s is on a timer)',
    async (bad) => {
      const [server] = await start(fail503);
      let spans = 0;
      const tracer = {
        startSpan() {
          spans++;
          if (spans === bad) throw new Error('tracer broke');
          return { setAttribute() {}, setStatus() {}, recordException() {}, end() {} };
        },
      };
      const client = driver.make({ ...options(server?.origin as string), telemetry: { tracer } });
      const error = await within(rejection(client.call('/x')), 5000, 'the call to end');
      expect(String((error as Error).message)).toMatch(/tracer broke|local/);
      expect(server?.hits).toHaveLength(bad - 1);
      const u = only(client.stats());
      expect(idle(u)).toEqual(IDLE);
      expect(client.stats().policy.active).toBe(0);
      expect(u.circuitBreaker).toMatchObject({ inFlight: 0, cancelled: 1 });
    },
  );

  it('takes nothing for a call aborted before it starts, even when a retry would be allowed', async () => {
    const [server] = await start(ok);
    const client = driver.make(options(server?.origin as string));
    await rejection(client.call('/x', { signal: AbortSignal.abort() }));
    const u = only(client.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker?.offered).toBe(0);
    expect(u.attempts).toBe(0);
    expect(server?.hits).toHaveLength(0);
  });
});

describe.each(DRIVERS)('the wall clock steps back an hour ($name)', (driver) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('closes the breaker after its break and returns an ejected endpoint on time (local durations are monotonic)', async () => {
    let failing = true;
    const flaky = (req: IncomingMessage, res: ServerResponse, hit: Hit, n: number) =>
      failing ? fail503(req, res, hit, n) : ok(req, res, hit, n);
    const [first, second, healthy] = await start(flaky, flaky, ok);
    const client = driver.make({
      policy: quick({ maxAttempts: 1 }),
      endpoints: [first?.origin as string, second?.origin as string, healthy?.origin as string],
      circuitBreaker: { failureThreshold: 2, failureRate: false, breakDuration: 150 },
      outlierDetection: { consecutive5xx: 1, interval: 50, baseEjectionTime: 150, maxEjectionPercent: 34 },
      loadBalancer: { kind: 'round-robin', panicThreshold: 0 },
    });
    // The first endpoint fails and is ejected (the limit allows one); the second fails too: 2 in a row open the breaker.
    for (let i = 0; i < 2; i++) expect((await client.call(`/a${i}`)).status).toBe(503);
    expect(only(client.stats()).circuitBreaker?.state).toBe('open');
    expect(only(client.stats()).endpoints.map((e) => e.ejected)).toEqual([true, false, false]);
    failing = false;
    const real = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => real() - 3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 600)); // 4× the break and the ejection
    const u = only(client.stats());
    expect(u.circuitBreaker?.state).toBe('half-open');
    expect(u.endpoints[0]?.ejected).toBe(false);
    expect((await client.call('/probe')).status).toBe(200);
    expect(only(client.stats()).circuitBreaker?.state).toBe('closed');
  });
});

describe('aborted while the attempt is being sent', () => {
  it('releases everything when the caller aborts from inside the send (createFetch)', async () => {
    const controller = new AbortController();
    let responses = 0;
    const fetch = createFetch({
      policy: quick({ maxAttempts: 3 }),
      endpoints: ['http://127.0.0.1:3001', 'http://127.0.0.1:3002'],
      circuitBreaker: { failureThreshold: 100, failureRate: false },
      limits: { maxRequests: 10 },
      fetch: (input) => {
        controller.abort(); // synchronously, between the pick and the answer
        responses++;
        return stubFetch(() => 503)(input);
      },
    });
    const error = await rejection(fetch(`${SERVICE}/x`, { signal: controller.signal }));
    expect((error as Error).name).toBe('AbortError');
    expect(responses).toBe(1);
    const u = only(fetch.stats());
    expect(idle(u)).toEqual(IDLE);
    expect(u.circuitBreaker).toMatchObject({ cancelled: 1, failures: 0 });
    expect(fetch.stats().policy).toMatchObject({ active: 0, attempts: 1 });
  });
});

describe('HTTP/1.1 pipelining on the endpoints (retryInterceptor)', () => {
  it('ends every pipelined call once when a connection dies under them, and frees every slot', async () => {
    let cut = true;
    const [flaky, well] = await start(
      (_req, res) => {
        if (cut) {
          cut = false;
          resetMidBody(res); // the connection dies with this response, and with whatever was pipelined behind it
        } else setTimeout(() => res.end('ok'), 5);
      },
      (_req, res) => setTimeout(() => res.end('ok'), 5),
    );
    const interceptor = retryInterceptor({
      policy: quick({ maxAttempts: 3 }),
      bufferResponse: true,
      endpoints: [flaky?.origin as string, well?.origin as string],
      circuitBreaker: { failureThreshold: 100, failureRate: false },
      limits: { maxRequests: 20, maxRetries: 20 },
      outlierDetection: { consecutive5xx: 100, consecutiveGatewayFailure: 100 },
    });
    const dispatcher = track(new Agent({ pipelining: 4, connections: 1 })).compose(interceptor);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, async (_, i) => (await request(`${SERVICE}/c${i}`, { dispatcher })).body.text()),
    );
    expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill('fulfilled'));
    const stats = interceptor.stats();
    const u = only(stats);
    expect(idle(u)).toEqual(IDLE);
    expect(u.retries).toBeGreaterThan(0);
    expect(stats.policy).toMatchObject({ active: 0, attempts: u.attempts, calls: 12 });
    expect(u.circuitBreaker).toMatchObject({ successes: 12, failures: u.attempts - 12, cancelled: 0 });
    // No pool view (no `pool` option): every attempt takes a request slot at once, none is pending.
    expect(u.limits).toMatchObject({ doubleReleases: 0, pendingTotal: 0, requestsTotal: u.attempts });
  });
});

describe('racing the half-open breaker', () => {
  it('lets only halfOpenMaxProbes through, shared between a createFetch and a retryInterceptor', async () => {
    let answer = 500;
    const [server] = await start((_req, res) => {
      if (answer === 500) res.writeHead(500).end();
      else setTimeout(() => res.end('ok'), 100); // the probe stays out while the others arrive
    });
    const breaker = new CircuitBreaker({
      failureThreshold: 2,
      failureRate: false,
      breakDuration: 50,
      halfOpenMaxProbes: 1,
      probeLease: '1s', // the probe takes 100 ms: longer than the default lease (the 50 ms break)
    });
    const fetch = createFetch({ policy: quick({ maxAttempts: 1 }), circuitBreaker: breaker });
    const dispatcher = track(new Agent()).compose(
      retryInterceptor({ policy: quick({ maxAttempts: 1 }), circuitBreaker: breaker }),
    );
    const url = `${server?.origin}/x`;
    for (let i = 0; i < 2; i++) await (await fetch(url)).text();
    answer = 200;
    await waitFor(() => breaker.state(Date.now()) === 'half-open', 3000, 'the break to pass');
    const calls = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? fetch(url).then((r) => r.text()) : request(url, { dispatcher }).then((r) => r.body.text()),
    );
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [refusalOf(o.reason)] : []));
    expect(refused).toEqual(Array(9).fill('breaker-half-open-full'));
    expect(server?.hits).toHaveLength(3);
    expect(breaker.stats()).toMatchObject({ state: 'closed', probes: 1, rejectedHalfOpenFull: 9, inFlight: 0 });
  });
});

describe.each(DRIVERS)('a mixed load adds up ($name)', (driver) => {
  it('ends every call once, returns every gauge to 0, and counts each attempt once', async () => {
    const servers = await start(
      ok,
      fail503,
      (_req, res) => resetBeforeResponse(res),
      (_req, res) => setTimeout(() => res.end('slow'), 20),
    );
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const client = driver.make(
      {
        policy: quick({ maxAttempts: 3 }),
        endpoints: [...servers.map((s) => s.origin), dead],
        loadBalancer: 'p2c',
        seed: 5,
        outlierDetection: { consecutive5xx: 3, maxEjectionPercent: 40 },
        circuitBreaker: { failureThreshold: 1000, failureRate: false },
        limits: { maxRequests: 8, maxPendingRequests: 4, maxRetries: 3 },
      },
      new Agent({ connections: 2 }),
    );
    const controllers = Array.from({ length: 80 }, () => new AbortController());
    const settled = Promise.allSettled(
      controllers.map((c, i) => client.call(`/c${i}`, i % 5 === 2 ? { signal: c.signal } : {})),
    );
    await waitFor(() => servers.reduce((n, s) => n + s.hits.length, 0) >= 4, 3000, 'some attempts to arrive');
    for (const c of controllers) c.abort();
    const outcomes = await settled;
    for (let round = 0; round < 3; round++) {
      await Promise.allSettled(Array.from({ length: 10 }, (_, i) => client.call(`/r${round}-${i}`)));
    }
    expect(outcomes).toHaveLength(80);
    const stats = client.stats();
    const u = only(stats);
    expect(idle(u)).toEqual(IDLE);
    expect(stats.policy.active).toBe(0);
    expect(stats.policy.calls).toBe(110);
    const refused = Object.values(u.refused).reduce((a, b) => a + b, 0);
    // The policy began every attempt the client sent or refused; a retry refused by max_retries was never begun. The
    // interceptor counts an attempt as sent only once undici puts it on a connection: one that never got there (a
    // refused connect, an abort or a timeout while it waited) was begun, and not sent.
    const begun = stats.signals.upstream_rq_total + refused - u.refused['max-retries'];
    if (driver.name === 'createFetch') expect(stats.policy.attempts).toBe(begun);
    else expect(stats.policy.attempts).toBeGreaterThanOrEqual(begun);
    expect(stats.signals.upstream_rq_total).toBe(u.attempts);
    expect(u.limits?.pendingOverflow).toBe(u.refused['max-pending'] + u.refused['max-requests']);
    expect(u.limits?.retryOverflow).toBe(u.refused['max-retries']);
    expect(stats.signals.upstream_rq_retry_overflow).toBe(stats.policy.retryOverflow + u.refused['max-retries']);
    // What reached a live server was sent; the dead endpoint took the rest.
    expect(servers.reduce((n, s) => n + s.hits.length, 0)).toBeLessThanOrEqual(u.attempts);
    expect(u.limits).toMatchObject({ doubleReleases: 0 });
    expect(u.circuitBreaker).toMatchObject({ duplicateReports: 0 });
  });
});
