// Operating the client on real HTTP: inherited deadlines, one layer of retries, the kill switch, update(), budget, stats.
import { afterEach, describe, expect, it } from 'vitest';
import { KILL_SWITCH_ENV } from '../../src/driver/traits.js';
import { createFetch, runWithContext, SeawallError } from '../../src/http/index.js';
import { RetryPolicy } from '../../src/policy/index.js';
import { delay, rejection, startServer, type TestServer } from '../support/loopback.js';
import { quick } from './client/client-setup.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const failing = () => startServer((_req, res) => res.writeHead(503).end());

describe('the inbound request context (AsyncLocalStorage)', () => {
  it('passes the inbound deadline on when it is earlier than the policy patience', async () => {
    server = await startServer((_req, res) => res.end());
    const fetch = createFetch({ policy: quick({ deadline: { patience: '5s' } }) });
    // 1 s, not 200 ms: a loaded machine spent more than 200 ms on this file's first call, which then failed.
    await runWithContext({ deadlineMs: Date.now() + 1000, fromSeawallHop: false }, () => fetch(server!.origin));
    const leftMs = Number(/^(\d+)m$/.exec(String(server.hits[0]?.headers['grpc-timeout']))?.[1]);
    expect(leftMs).toBeLessThanOrEqual(1000); // against 5,000 with the inbound deadline lost
    expect(leftMs).toBeGreaterThan(500);
  });

  it('makes a single attempt inside a request that came from another Seawall hop (one layer of retries)', async () => {
    server = await failing();
    const fetch = createFetch({ policy: quick() });
    const response = await runWithContext({ deadlineMs: null, fromSeawallHop: true }, () => fetch(server!.origin));
    expect(response.status).toBe(503);
    expect(server.hits).toHaveLength(1);
  });

  it('retries inside a Seawall hop when oneLayer is off', async () => {
    server = await failing();
    const fetch = createFetch({ policy: quick(), oneLayer: false });
    await runWithContext({ deadlineMs: null, fromSeawallHop: true }, () => fetch(server!.origin));
    expect(server.hits).toHaveLength(3);
  });

  it('ends the call when the inbound request goes away', async () => {
    server = await startServer(() => {}); // never answers
    const inbound = new AbortController();
    const fetch = createFetch({ policy: quick() });
    const call = runWithContext({ deadlineMs: null, fromSeawallHop: false, signal: inbound.signal }, () =>
      fetch(server!.origin),
    );
    await delay(30);
    inbound.abort(new Error('client went away'));
    const error = await rejection(call);
    expect(error).toBeInstanceOf(SeawallError);
    expect(error).toMatchObject({ reason: 'aborted', attempts: 1 });
  });
});

describe('the operator levers', () => {
  it(`turns retries off with the ${KILL_SWITCH_ENV} environment variable read at start`, async () => {
    server = await failing();
    await createFetch({ policy: quick(), env: { [KILL_SWITCH_ENV]: '1' } })(server.origin);
    expect(server.hits).toHaveLength(1);
    await createFetch({ policy: quick(), env: { [KILL_SWITCH_ENV]: '0' } })(server.origin);
    expect(server.hits).toHaveLength(4);
  });

  it('turns retries off and on again at run time with policy.update({ maxAttempts })', async () => {
    server = await failing();
    const policy = quick();
    const fetch = createFetch({ policy });
    policy.update({ maxAttempts: 1 });
    await fetch(server.origin);
    expect(server.hits).toHaveLength(1);
    policy.update({ maxAttempts: 3 });
    await fetch(server.origin);
    expect(server.hits).toHaveLength(4);
  });

  it('lets the caller lower the attempts of one call, and of writes by default', async () => {
    server = await failing();
    const fetch = createFetch({ policy: quick({ maxAttempts: 4 }), writes: { maxAttempts: 2 } });
    await fetch(server.origin, { seawall: { maxAttempts: 1 } });
    expect(server.hits).toHaveLength(1);
    await fetch(server.origin, { method: 'POST', body: 'x' });
    expect(server.hits).toHaveLength(3);
    await fetch(server.origin, { method: 'PUT', body: 'x' });
    expect(server.hits).toHaveLength(7);
  });

  it('rejects an invalid per-call retryOn with a ConfigError naming it', async () => {
    server = await failing();
    const error = await rejection(
      createFetch({ policy: quick() })(server.origin, { seawall: { retryOn: ['bogus' as never] } }),
    );
    expect((error as Error).name).toBe('ConfigError');
    expect(String((error as Error).message)).toContain('seawall.retryOn.0');
    expect(server.hits).toHaveLength(0);
  });
});

describe('the retry budget under 100 % failure', () => {
  it('keeps the server at no more than 1.1 attempts per call over 1,000 calls', async () => {
    server = await failing();
    const policy = new RetryPolicy({
      maxAttempts: 3,
      backoff: { kind: 'full-jitter', base: 1, cap: 2 },
      budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },
    });
    const fetch = createFetch({ policy });
    const url = server.origin;
    let next = 0;
    const worker = async () => {
      while (next < 1000) {
        next++;
        const response = await fetch(url);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 25 }, worker));
    expect(server.hits.length / 1000).toBeLessThanOrEqual(1.1);
    const stats = policy.stats();
    expect(stats.calls).toBe(1000);
    expect(stats.stops['budget-exhausted']).toBeGreaterThan(900);
    expect(stats.retryOverflow).toBe(stats.stops['budget-exhausted']);
  });

  it('keeps a separate budget per origin by default', async () => {
    server = await failing();
    const other = await failing();
    try {
      const policy = new RetryPolicy({
        backoff: 'none',
        budget: { kind: 'token-bucket', maxTokens: 4, tokenRatio: 0.1 },
      });
      const fetch = createFetch({ policy });
      for (let i = 0; i < 5; i++) await fetch(server.origin);
      const before = other.hits.length;
      await fetch(other.origin);
      expect(other.hits.length - before).toBeGreaterThan(1); // the other origin's budget is untouched
    } finally {
      await other.close();
    }
  });
});
