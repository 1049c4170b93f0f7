// Which hop retries, over real HTTP: a chain A -> B -> C of node:http servers with Seawall's middleware and client.
// The three layer choices (plain retries, the default one-layer rule, error ownership) and every row of the ownership
// table (semantics.md §6), counted in attempts each server saw. The test calls A with the platform's plain fetch, so A
// is the outermost Seawall hop.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFetch,
  currentContext,
  retryInterceptor,
  runWithContext,
  type SeawallClientOptions,
  seawallHandler,
} from '../../src/http/index.js';
import { ConfigError } from '../../src/policy/core/config-error.js';
import type { StopReason } from '../../src/policy/core/types.js';
import { CLAIM_HEADER, CRITERIA_MET_HEADER } from '../../src/policy/hop/hop.js';
import type { RetryPolicy, RetryPolicyConfig } from '../../src/policy/index.js';
import type { RetryCondition } from '../../src/policy/retry/classify.js';
import { startServer, type TestServer, within } from '../support/loopback.js';
import { agentsClosedAfterEach, quick } from './client/client-setup.js';

/** C fails with 500, which the default retryOn leaves alone: every policy here retries it. */
const RETRY_5XX: RetryCondition[] = ['5xx', 'connect-failure', 'reset', 'timeout'];
/** Every call in this file ends in well under a second; a broken rule that hangs fails at this bound instead. */
const CALL_BOUND_MS = 5000;

const agents = agentsClosedAfterEach();
let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const server = await startServer(...args);
  servers.push(server);
  return server;
}

/** A failed (or any) answer as a caller read it: status and claim headers. */
interface Answer {
  status: number;
  claimed: string | null;
  criteriaMet: string | null;
}

/** An answer with all its headers (a hop that forwards it as is copies them). */
interface Reply extends Answer {
  headers: Record<string, string>;
}

type Driver = 'fetch' | 'undici';
type Get = (url: string, signal?: AbortSignal) => Promise<Reply>;

function single(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(',') : value;
}

/** Seawall's client through `driver`, answering with what the caller read. Errors (rejectOnGiveUp) propagate. */
function client(driver: Driver, options: SeawallClientOptions): Get {
  const all = { telemetry: false, ...options } as const;
  if (driver === 'fetch') {
    const fetch = createFetch(all);
    return async (url, signal) => {
      const response = await fetch(url, signal === undefined ? {} : { signal });
      await response.arrayBuffer();
      return {
        status: response.status,
        claimed: response.headers.get(CLAIM_HEADER),
        criteriaMet: response.headers.get(CRITERIA_MET_HEADER),
        headers: Object.fromEntries(response.headers),
      };
    };
  }
  const dispatcher = agents.agentWith(all);
  return async (url, signal) => {
    const response = await request(url, signal === undefined ? { dispatcher } : { dispatcher, signal });
    await response.body.dump();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) headers[name] = single(value) ?? '';
    return {
      status: response.statusCode,
      claimed: single(response.headers[CLAIM_HEADER]),
      criteriaMet: single(response.headers[CRITERIA_MET_HEADER]),
      headers,
    };
  };
}

/** The hop's retry policy: tiny waits, no budget, 5xx retried, 3 attempts unless `config` says otherwise. */
function policy(config: RetryPolicyConfig = {}): RetryPolicy {
  return quick({ maxAttempts: 3, retryOn: RETRY_5XX, ...config });
}

interface Hop {
  server: TestServer;
  policy: RetryPolicy;
  /** What this hop's calls to the next hop got back, one entry per call (its final answer). */
  answers: Answer[];
  /** The headers arguments this hop passed to writeHead when it forwarded an answer (see `answer`). */
  forwarded: unknown[];
}

/** How a forwarding hop passes the downstream answer's headers to writeHead: node's three forms. */
type Forward = 'forward-object' | 'forward-flat' | 'forward-pairs';

interface HopOptions {
  driver?: Driver;
  /** The hop's retry policy config (merged over `policy()`'s). */
  config?: RetryPolicyConfig;
  /** More client options (oneLayer, trustClaims, ...). */
  client?: Partial<SeawallClientOptions>;
  /**
   * How the hop answers after its call: `relay` (default) answers the call's status (200 on success); `throw` lets the
   * SeawallError escape the handler (rejectOnGiveUp); a number answers that status whatever the call did; a Forward
   * passes the downstream answer on as is (its status and its headers, claim headers included, in writeHead).
   */
  answer?: 'relay' | 'throw' | number | Forward;
  /** Headers the hop's handler puts in its own writeHead (with `relay` or a number). */
  headers?: Record<string, string>;
}

/** Hop-by-hop headers a forwarding proxy does not copy (node frames the body itself). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/** The downstream answer's headers as `form` passes them to writeHead (a fresh object the test keeps an eye on). */
function forwardable(headers: Record<string, string>, form: Forward): OutgoingHttpHeaders | unknown[] {
  const entries = Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name));
  if (form === 'forward-object') return Object.fromEntries(entries);
  if (form === 'forward-pairs') return entries;
  return entries.flat();
}

/** `name`'s value in writeHead headers of any form (object, flat list, pairs), or undefined. */
function headerIn(headers: unknown, name: string): unknown {
  if (!Array.isArray(headers)) return (headers as Record<string, unknown>)[name];
  const pairs: unknown[][] = Array.isArray(headers[0])
    ? headers
    : Array.from({ length: headers.length / 2 }, (_, i) => headers.slice(2 * i, 2 * i + 2));
  return pairs.find((pair) => pair[0] === name)?.[1];
}

/** A Seawall hop: its handler calls `down` once with Seawall's client and answers as `options.answer` says. */
async function hop(down: TestServer | Hop, options: HopOptions = {}): Promise<Hop> {
  const target = 'server' in down ? down.server : down;
  const retryPolicy = policy(options.config);
  const answer = options.answer ?? 'relay';
  const get = client(options.driver ?? 'fetch', {
    policy: retryPolicy,
    rejectOnGiveUp: answer === 'throw',
    ...options.client,
  });
  const answers: Answer[] = [];
  const forwarded: unknown[] = [];
  const handler = seawallHandler(
    async (_req, res: ServerResponse) => {
      const got = await get(`${target.origin}/`); // a SeawallError escapes with answer 'throw'
      answers.push({ status: got.status, claimed: got.claimed, criteriaMet: got.criteriaMet });
      if (typeof answer === 'string' && answer.startsWith('forward')) {
        const headers = forwardable(got.headers, answer as Forward);
        forwarded.push(headers);
        res.writeHead(got.status, headers as OutgoingHttpHeaders).end();
        return;
      }
      const status = typeof answer === 'number' ? answer : got.status;
      res.writeHead(status, options.headers ?? {}).end();
    },
    { workers: 64, meter: false, onError: () => {} },
  );
  const server = await serve((req, res) => handler(req, res));
  return { server, policy: retryPolicy, answers, forwarded };
}

/** C as a Seawall hop whose handler answers `status` (with `headers`) every time: the middleware claims it. */
function sealedC(status = 500, headers: Record<string, string> = {}): Promise<TestServer> {
  const handler = seawallHandler((_req, res) => res.writeHead(status, headers).end(), { workers: 64, meter: false });
  return serve((req, res) => handler(req, res));
}

/** C as a plain node:http server (no Seawall): a 500 with no claim header (an uncooperative callee). */
function plainC(): Promise<TestServer> {
  return serve((_req, res) => res.writeHead(500).end());
}

/** The test's own call to A, with the platform's fetch (no Seawall headers: A is the outermost Seawall hop). */
async function callA(a: Hop): Promise<Answer> {
  const response = await within(globalThis.fetch(`${a.server.origin}/`), CALL_BOUND_MS, 'A to answer');
  await response.arrayBuffer();
  return {
    status: response.status,
    claimed: response.headers.get(CLAIM_HEADER),
    criteriaMet: response.headers.get(CRITERIA_MET_HEADER),
  };
}

function stops(hop: Hop, reason: StopReason): number {
  return hop.policy.stats().stops[reason];
}

const OWNERSHIP: HopOptions = { config: { ownership: true } };

describe.each<Driver>(['fetch', 'undici'])('which layer retries (hops call with %s)', (driver) => {
  it('plain retries (oneLayer false everywhere) multiply: C sees 3 x 3 = 9 attempts', async () => {
    const c = await sealedC();
    const b = await hop(c, { driver, client: { oneLayer: false } });
    const a = await hop(b, { driver, client: { oneLayer: false } });
    expect((await callA(a)).status).toBe(500);
    expect(b.server.hits).toHaveLength(3);
    expect(c.hits).toHaveLength(9);
  });

  it('default (one layer): the outermost Seawall hop retries, B makes one attempt per request: C sees 3', async () => {
    const c = await sealedC();
    const b = await hop(c, { driver });
    const a = await hop(b, { driver });
    expect((await callA(a)).status).toBe(500);
    expect(b.server.hits).toHaveLength(3);
    expect(c.hits).toHaveLength(3);
    expect(b.policy.stats()).toMatchObject({ calls: 3, attempts: 3, retries: 0 }); // one attempt per call
    expect(a.policy.stats()).toMatchObject({ calls: 1, attempts: 3, retries: 2 });
  });

  it('ownership: B, next to the failure, retries; A does not retry the unclaimed error: C sees 3, B sees 1', async () => {
    const c = await sealedC();
    const b = await hop(c, { driver, ...OWNERSHIP });
    const a = await hop(b, { driver, ...OWNERSHIP });
    const answer = await callA(a);
    expect(answer.status).toBe(500);
    expect(c.hits).toHaveLength(3);
    expect(b.server.hits).toHaveLength(1);
    expect(stops(b, 'attempts-exhausted')).toBe(1);
    expect(stops(a, 'unclaimed-error')).toBe(1);
    expect(answer.claimed).toBe('0'); // A relays it unclaimed too
  });
});

describe.each<Driver>(['fetch', 'undici'])('the ownership table over HTTP (hops call with %s)', (driver) => {
  it('claimed + retries: B retries C, and passes the error up unclaimed', async () => {
    const c = await sealedC();
    const b = await hop(c, { driver, ...OWNERSHIP });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(3);
    expect(b.answers).toEqual([{ status: 500, claimed: '1', criteriaMet: null }]);
    expect(a.answers).toEqual([{ status: 500, claimed: '0', criteriaMet: null }]);
  });

  it('claimed + no retries (B maxAttempts 1): B passes criteria-met up and A retries (at least once)', async () => {
    const c = await sealedC();
    const b = await hop(c, { driver, config: { ownership: true, maxAttempts: 1 } });
    const a = await hop(b, { driver, ...OWNERSHIP });
    const answer = await callA(a);
    expect(b.server.hits).toHaveLength(3); // A retried
    expect(c.hits).toHaveLength(3);
    expect(a.answers).toEqual([{ status: 500, claimed: '0', criteriaMet: '1' }]);
    expect(stops(a, 'attempts-exhausted')).toBe(1);
    expect(answer).toMatchObject({ claimed: '0', criteriaMet: null }); // A spent its retries: unclaimed above it
  });

  it('unclaimed: nobody retries it (C relays an error it marks "0" itself)', async () => {
    const c = await sealedC(500, { [CLAIM_HEADER]: '0' });
    const b = await hop(c, { driver, ...OWNERSHIP });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(1);
    expect(b.server.hits).toHaveLength(1);
    expect(stops(b, 'unclaimed-error')).toBe(1);
    expect(stops(a, 'unclaimed-error')).toBe(1);
    expect(a.answers[0]?.claimed).toBe('0');
  });

  it('absent (C is a plain server) + retries: the nearest caller retries, and passes it up unclaimed', async () => {
    const c = await plainC();
    const b = await hop(c, { driver, ...OWNERSHIP });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(3);
    expect(b.answers).toEqual([{ status: 500, claimed: null, criteriaMet: null }]);
    expect(a.answers).toEqual([{ status: 500, claimed: '0', criteriaMet: null }]);
    expect(b.server.hits).toHaveLength(1);
    expect(stops(a, 'unclaimed-error')).toBe(1);
  });

  it('absent + no retries (B maxAttempts 1): unclaimed, so nobody above retries either', async () => {
    const c = await plainC();
    const b = await hop(c, { driver, config: { ownership: true, maxAttempts: 1 } });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(1);
    expect(b.server.hits).toHaveLength(1);
    expect(a.answers).toEqual([{ status: 500, claimed: '0', criteriaMet: null }]);
    expect(stops(a, 'unclaimed-error')).toBe(1);
  });

  it('an error B produces itself (its call to C succeeded) is claimed, and A retries it', async () => {
    const c = await sealedC(200);
    const b = await hop(c, { driver, ...OWNERSHIP, answer: 500 });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(b.server.hits).toHaveLength(3);
    expect(a.answers).toEqual([{ status: 500, claimed: '1', criteriaMet: null }]);
  });
});

describe.each<Driver>(['fetch', 'undici'])('relayed errors are never claimed (hops call with %s)', (driver) => {
  it("B's answer relaying C's 503 says claimed 0, never 1 (default layer rule: criteria met)", async () => {
    const c = await sealedC(503);
    const b = await hop(c, { driver });
    const a = await hop(b, { driver });
    const answer = await callA(a);
    expect(c.hits).toHaveLength(3);
    expect(a.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: '1' }]); // B made its one attempt
    expect(answer).toMatchObject({ status: 503, claimed: '0', criteriaMet: null }); // A spent its three
  });

  it('a SeawallError escaping the handler (500) relays the failure: claimed 0', async () => {
    const c = await sealedC(503);
    const b = await hop(c, { driver, ...OWNERSHIP, answer: 'throw' });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(3);
    expect(b.server.hits).toHaveLength(1);
    expect(a.answers).toEqual([{ status: 500, claimed: '0', criteriaMet: null }]);
  });

  it('a handler with no failed call that marks its 5xx itself keeps its marking (a "0" the middleware would not pick)', async () => {
    const c = await sealedC(200);
    const b = await hop(c, { driver, ...OWNERSHIP, answer: 503, headers: { [CLAIM_HEADER]: '0' } });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(a.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: null }]);
    expect(b.server.hits).toHaveLength(1); // A took it as relayed: no retry
  });

  it('after a failed call, the relay mark replaces a claim header the handler copied onto its 5xx', async () => {
    const c = await sealedC(503);
    const copied = { [CLAIM_HEADER]: '1', [CRITERIA_MET_HEADER]: '1' };
    const b = await hop(c, { driver, ...OWNERSHIP, answer: 503, headers: copied });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(c.hits).toHaveLength(3); // B spent its retries
    expect(a.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: null }]);
    expect(b.server.hits).toHaveLength(1);
  });
});

describe.each<Forward>(['forward-object', 'forward-flat', 'forward-pairs'])(
  'a hop passing the downstream answer on as is (writeHead with its headers, %s)',
  (form) => {
    it("after B's call failed, C's own claim never goes up: A sees 0 and does not retry (C sees 3, not 9)", async () => {
      const c = await sealedC(503); // the middleware claims it: "1"
      const b = await hop(c, { ...OWNERSHIP, answer: form });
      const a = await hop(b, OWNERSHIP);
      const answer = await callA(a);
      expect(b.answers).toEqual([{ status: 503, claimed: '1', criteriaMet: null }]);
      expect(a.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: null }]);
      expect(c.hits).toHaveLength(3);
      expect(b.server.hits).toHaveLength(1);
      expect(stops(a, 'unclaimed-error')).toBe(1);
      expect(answer.claimed).toBe('0');
      expect(headerIn(b.forwarded[0], CLAIM_HEADER)).toBe('1'); // the handler's own headers are not changed
    });

    it('a copied at-least-once flag never goes up after B spent its retries (C sees 3, not 9)', async () => {
      const c = await sealedC(503, { [CLAIM_HEADER]: '0', [CRITERIA_MET_HEADER]: '1' });
      const b = await hop(c, { ...OWNERSHIP, answer: form });
      const a = await hop(b, OWNERSHIP);
      await callA(a);
      expect(b.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: '1' }]);
      expect(c.hits).toHaveLength(3); // B retried the flagged error
      expect(a.answers).toEqual([{ status: 503, claimed: '0', criteriaMet: null }]);
      expect(b.server.hits).toHaveLength(1);
      expect(headerIn(b.forwarded[0], CRITERIA_MET_HEADER)).toBe('1');
    });
  },
);

describe.each<Driver>(['fetch', 'undici'])('the trust boundary (%s)', (driver) => {
  /** A callee outside the boundary that says "unclaimed" to stop our retries. */
  async function forger(): Promise<TestServer> {
    return serve((_req, res) => res.writeHead(500, { [CLAIM_HEADER]: '0' }).end());
  }

  async function attempts(options: Partial<SeawallClientOptions>): Promise<number> {
    const server = await forger();
    const get = client(driver, { policy: policy({ ownership: true }), ...options });
    expect((await within(get(`${server.origin}/`), CALL_BOUND_MS, 'the call to end')).status).toBe(500);
    return server.hits.length;
  }

  it('trusted by default: its "0" stops the retries', async () => {
    expect(await attempts({})).toBe(1);
  });

  it('trustClaims false: its claim is ignored, the error is retried as carrying none', async () => {
    expect(await attempts({ trustClaims: false })).toBe(3);
  });

  it('propagate false (an upstream outside the system) implies trustClaims false', async () => {
    expect(await attempts({ propagate: false })).toBe(3);
  });

  it('an explicit trustClaims true wins over propagate false', async () => {
    expect(await attempts({ propagate: false, trustClaims: true })).toBe(1);
  });
});

describe('trustClaims option', () => {
  it.each([
    ['createFetch', (o: SeawallClientOptions) => createFetch(o)],
    ['retryInterceptor', (o: SeawallClientOptions) => retryInterceptor(o)],
  ])('%s refuses a non-boolean trustClaims, naming the key', (_name, make) => {
    const build = () => make({ policy: quick(), trustClaims: 'no' } as never);
    expect(build).toThrow(ConfigError);
    expect(build).toThrow('trustClaims: must be true or false');
  });
});

/** B as a Seawall hop running `handler` (the test calls it with plain fetch: B is the outermost hop). */
async function hopRunning(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<TestServer> {
  const listener = seawallHandler(handler, { workers: 64, meter: false, onError: () => {} });
  return serve((req, res) => listener(req, res));
}

/** The test's own call to a hop (plain fetch): its status and claim headers. */
async function answerOf(server: TestServer): Promise<Answer> {
  const response = await within(globalThis.fetch(`${server.origin}/`), CALL_BOUND_MS, 'B to answer');
  await response.arrayBuffer();
  return {
    status: response.status,
    claimed: response.headers.get(CLAIM_HEADER),
    criteriaMet: response.headers.get(CRITERIA_MET_HEADER),
  };
}

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** C as a Seawall hop answering 503 (claimed by its middleware) once `gate` has resolved. */
function gatedC(gate: Promise<void>): Promise<TestServer> {
  const handler = seawallHandler(
    (_req, res) => {
      void gate.then(() => res.writeHead(503).end());
    },
    { workers: 64, meter: false },
  );
  return serve((req, res) => handler(req, res));
}

describe.each<Driver>(['fetch', 'undici'])('which failed calls mark the answer (hops call with %s)', (driver) => {
  it("an own error after a call that got a 404 is claimed (1): a 4xx is the caller's business, not a relayed error", async () => {
    const c = await sealedC(404);
    const b = await hop(c, { driver, ...OWNERSHIP, answer: 500 });
    const a = await hop(b, { driver, ...OWNERSHIP });
    await callA(a);
    expect(a.answers).toEqual([{ status: 500, claimed: '1', criteriaMet: null }]);
    expect(b.server.hits).toHaveLength(3); // A retried B's own error
  });

  it('an own error after a call B aborted itself is claimed (1)', async () => {
    const arrived = deferred();
    const c = await serve(() => arrived.resolve()); // never answers
    const get = client(driver, { policy: policy({ ownership: true }) });
    const b = await hopRunning(async (_req, res) => {
      const controller = new AbortController();
      const call = get(`${c.origin}/`, controller.signal);
      await within(arrived.promise, CALL_BOUND_MS, 'the call to reach C');
      controller.abort();
      await expect(call).rejects.toThrow();
      res.writeHead(500).end();
    });
    expect(await answerOf(b)).toEqual({ status: 500, claimed: '1', criteriaMet: null });
    expect(c.hits).toHaveLength(1);
  });

  it.each(['criteria-met call fails first', 'unclaimed call fails first'])(
    'several failed calls: unclaimed wins over criteria met, whatever the order (%s)',
    async (order) => {
      const onceEnded = deferred();
      const spentEnded = deferred();
      const criteriaFirst = order.startsWith('criteria');
      // The later call's C answers only after the other call has ended.
      const c1 = await gatedC(criteriaFirst ? Promise.resolve() : spentEnded.promise);
      const c2 = await gatedC(criteriaFirst ? onceEnded.promise : Promise.resolve());
      const once = client(driver, { policy: policy({ ownership: true, maxAttempts: 1 }) });
      const thrice = client(driver, { policy: policy({ ownership: true }) });
      const ended: string[] = [];
      const b = await hopRunning(async (_req, res) => {
        await Promise.allSettled([
          once(`${c1.origin}/`).finally(() => {
            ended.push('criteria-met');
            onceEnded.resolve();
          }),
          thrice(`${c2.origin}/`).finally(() => {
            ended.push('unclaimed');
            spentEnded.resolve();
          }),
        ]);
        res.writeHead(503).end();
      });
      expect(await answerOf(b)).toEqual({ status: 503, claimed: '0', criteriaMet: null });
      expect(ended).toEqual(criteriaFirst ? ['criteria-met', 'unclaimed'] : ['unclaimed', 'criteria-met']);
      expect([c1.hits.length, c2.hits.length]).toEqual([1, 3]);
    },
  );

  it("a call made in a context derived from the request's (a sooner deadline) still marks the answer", async () => {
    const c = await sealedC(503);
    const get = client(driver, { policy: policy({ ownership: true, maxAttempts: 1 }) });
    const b = await hopRunning(async (_req, res) => {
      const inbound = currentContext();
      if (inbound === undefined) throw new Error('no context in the handler');
      const got = await runWithContext({ ...inbound, deadlineMs: Date.now() + 1000 }, () => get(`${c.origin}/`));
      res.writeHead(got.status).end();
    });
    expect(await answerOf(b)).toEqual({ status: 503, claimed: '0', criteriaMet: '1' });
    expect(c.hits[0]?.headers['grpc-timeout']).toBeDefined(); // the derived deadline reached C
  });

  it('relay.clear(): a handler that recovered from a failed call claims its own 5xx (1)', async () => {
    const c = await sealedC(503);
    const get = client(driver, { policy: policy({ ownership: true }) });
    const b = await hopRunning(async (_req, res) => {
      await get(`${c.origin}/`); // failed: B would relay it
      currentContext()?.relay?.clear(); // a fallback answered instead; what fails now is B's own
      res.writeHead(500).end();
    });
    expect(await answerOf(b)).toEqual({ status: 500, claimed: '1', criteriaMet: null });
    expect(c.hits).toHaveLength(3);
  });
});
