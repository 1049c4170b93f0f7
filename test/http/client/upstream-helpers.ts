// Helpers of the upstream tests (endpoints, breakers, limits): several scripted servers, held answers, closing after each test.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import type { ClientStats, UpstreamStats } from '../../../src/http/index.js';
import { type Hit, startServer, type TestServer } from '../../support/loopback.js';

type Respond = (req: IncomingMessage, res: ServerResponse, hit: Hit, n: number) => void;

/** Call at the top of a test file: servers started with `start` are closed after each test. */
export function serversClosedAfterEach(): (...responders: Respond[]) => Promise<TestServer[]> {
  let running: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(running.map((s) => s.close()));
    running = [];
  });
  return async (...responders) => {
    const started = await Promise.all(responders.map((respond) => startServer(respond)));
    running.push(...started);
    return started;
  };
}

export const ok: Respond = (_req, res) => res.end('ok');
export const fail503: Respond = (_req, res) => res.writeHead(503).end('down');

/** A responder that keeps every response open until `release()` answers them all with 200. */
export function held(): { respond: Respond; release(): void; waiting(): number } {
  const open: ServerResponse[] = [];
  return {
    respond: (_req, res) => {
      open.push(res);
    },
    release: () => {
      for (const res of open.splice(0)) res.end('late');
    },
    waiting: () => open.length,
  };
}

/** The one upstream of a client with endpoints (or the only one it has). */
export function only(stats: ClientStats): UpstreamStats {
  if (stats.upstreams.length !== 1) throw new Error(`expected one upstream, got ${stats.upstreams.length}`);
  return stats.upstreams[0] as UpstreamStats;
}

/** Nothing held: no permit, slot or in-flight count left after the calls ended. */
export function idle(u: UpstreamStats): Record<string, number> {
  return {
    breakerInFlight: u.circuitBreaker?.inFlight ?? 0,
    probesInFlight: u.circuitBreaker?.probesInFlight ?? 0,
    activeRequests: u.limits?.activeRequests ?? 0,
    pendingRequests: u.limits?.pendingRequests ?? 0,
    activeRetries: u.limits?.activeRetries ?? 0,
    endpointsInFlight: u.endpoints.reduce((sum, e) => sum + e.inFlight, 0),
  };
}

export const IDLE = {
  breakerInFlight: 0,
  probesInFlight: 0,
  activeRequests: 0,
  pendingRequests: 0,
  activeRetries: 0,
  endpointsInFlight: 0,
};
