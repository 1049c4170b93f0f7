// propagate: false keeps Seawall's headers off the wire (third parties) while the deadline still holds on this side.
import { type Dispatcher, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, SeawallError } from '../../../src/http/index.js';
import type { RetryPolicy, RetryPolicyConfig } from '../../../src/policy/index.js';
import { rejection, startServer, type TestServer, within } from '../../support/loopback.js';
import { agentsClosedAfterEach, quick as quickPolicy } from './client-setup.js';

const SEAWALL_HEADERS = ['x-seawall-attempt', 'x-request-deadline', 'grpc-timeout'];

/**
 * The shared quick policy with a 5 s patience. (At 300 ms for every test, a loaded machine ran a first call out of
 * it; only the deadline test needs a short one, and sets it.)
 */
function quick(config: RetryPolicyConfig = {}): RetryPolicy {
  return quickPolicy({ deadline: { patience: '5s' }, ...config });
}

const agents = agentsClosedAfterEach();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function agentWith(propagate: boolean | undefined): Dispatcher {
  return agents.agentWith({ policy: quick(), propagate });
}

function seawallHeadersSeen(n: number): string[] {
  return SEAWALL_HEADERS.filter((name) => server?.hits[n]?.headers[name] !== undefined);
}

describe('propagate', () => {
  it('fetch: off sends none of the three headers on any attempt, and keeps the caller headers', async () => {
    server = await startServer((_req, res, _hit, n) => res.writeHead(n === 1 ? 503 : 200).end());
    const fetch = createFetch({ policy: quick(), propagate: false });
    const response = await fetch(server.origin, { headers: { authorization: 'Bearer t' } });
    expect(response.status).toBe(200);
    expect(server.hits).toHaveLength(2);
    expect(seawallHeadersSeen(0)).toEqual([]);
    expect(seawallHeadersSeen(1)).toEqual([]);
    expect(server.hits[1]?.headers.authorization).toBe('Bearer t');
  });

  it('undici: off sends none; the default sends all three; a per-call option overrides the client', async () => {
    server = await startServer((_req, res) => res.end());
    await (await request(server.origin, { dispatcher: agentWith(false) })).body.dump();
    await (await request(server.origin, { dispatcher: agentWith(undefined) })).body.dump();
    const off = agentWith(true);
    await (await request(server.origin, { dispatcher: off, seawall: { propagate: false } } as object)).body.dump();
    expect(seawallHeadersSeen(0)).toEqual([]);
    expect(seawallHeadersSeen(1)).toEqual(SEAWALL_HEADERS);
    expect(seawallHeadersSeen(2)).toEqual([]);
  });

  it('still sends an Idempotency-Key it was asked for', async () => {
    server = await startServer((_req, res) => res.end());
    const fetch = createFetch({ policy: quick(), propagate: false });
    await fetch(server.origin, { method: 'POST', body: 'x', seawall: { idempotencyKey: 'k-1' } });
    expect(server.hits[0]?.headers['idempotency-key']).toBe('k-1');
    expect(seawallHeadersSeen(0)).toEqual([]);
  });

  it('still ends the call at the deadline it did not send', async () => {
    server = await startServer(() => {}); // never answers
    const fetch = createFetch({ policy: quick({ deadline: { patience: '300ms' } }), propagate: false });
    const started = Date.now();
    // No per-try timeout: only the deadline (300 ms) can end this attempt. If it does not, the guard fails the test
    // at 3 s with this message, instead of the attempt hanging to the 60 s test timeout.
    const error = await within(rejection(fetch(server.origin)), 3000, 'the call to end at its 300 ms deadline');
    const elapsedMs = Date.now() - started;
    expect(error).toBeInstanceOf(SeawallError);
    expect(['deadline-would-pass', 'deadline-exceeded']).toContain((error as SeawallError).reason);
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(1000);
    expect(seawallHeadersSeen(0)).toEqual([]);
  });
});
