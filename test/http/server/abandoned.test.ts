// A callee whose caller abandoned the request stays quiet: no error stack per abandoned request, deadline-exceeded named.
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFetch, SeawallError, shed } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { listen, open, type Running, send, waitFor } from './server-helpers.js';

const running: (Running | TestServer)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** member-api: never answers (the database is slow). */
async function hangingUpstream(): Promise<TestServer> {
  const server = await startServer(() => {});
  running.push(server);
  return server;
}

/**
 * coupon-api on Express: shed() first, a route calling member-api through createFetch (no try/catch: the error goes
 * to Express), and `guard.errors` after the routes unless `quiet` is false. env 'development', so Express logs.
 */
async function couponApi(upstream: string, quiet: boolean, seen: unknown[] = []): Promise<Running> {
  const fetch = createFetch({ policy: new RetryPolicy({ maxAttempts: 1, budget: false }), telemetry: false });
  const app = express();
  app.set('env', 'development');
  const guard = shed({ meter: false });
  app.use(guard);
  app.get('/coupons', async (_req, res) => {
    try {
      res.end(await (await fetch(`${upstream}/members/7`)).text());
    } catch (error) {
      seen.push(error);
      throw error;
    }
  });
  if (quiet) app.use(guard.errors);
  const server = await listen(app);
  running.push(server);
  return server;
}

describe('a callee whose caller abandoned the request', () => {
  it('logs nothing under Express with guard.errors when the client goes away mid-call', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const member = await hangingUpstream();
    const seen: unknown[] = [];
    const coupon = await couponApi(member.origin, true, seen);
    const { req } = open(coupon.port, { path: '/coupons' });
    req.end();
    await waitFor(() => member.hits.length === 1, 3000, 'the call reached member-api');
    req.destroy(); // the caller's per-try timeout: it hangs up
    await waitFor(() => seen.length === 1, 3000, 'the route failed');
    expect((seen[0] as SeawallError).reason).toBe('aborted');
    await new Promise((r) => setTimeout(r, 50)); // Express defers its logging
    expect(errors).not.toHaveBeenCalled();
  });

  it('(without guard.errors, Express logs the SeawallError: what the handler avoids)', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const member = await hangingUpstream();
    const coupon = await couponApi(member.origin, false);
    const { req } = open(coupon.port, { path: '/coupons' });
    req.end();
    await waitFor(() => member.hits.length === 1, 3000, 'the call reached member-api');
    req.destroy();
    await waitFor(() => errors.mock.calls.length > 0, 3000, 'Express logged the error');
    expect(String(errors.mock.calls[0]?.[0])).toContain('SeawallError');
  });

  it('reports an inbound deadline that passed as deadline-exceeded, answered 504 and not logged', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const member = await hangingUpstream();
    const seen: unknown[] = [];
    const coupon = await couponApi(member.origin, true, seen);
    const reply = await send(coupon.port, { path: '/coupons', headers: { 'grpc-timeout': '150m' } });
    expect(reply.status).toBe(504);
    expect(seen[0]).toBeInstanceOf(SeawallError);
    expect((seen[0] as SeawallError).reason).toBe('deadline-exceeded');
    await new Promise((r) => setTimeout(r, 50));
    expect(errors).not.toHaveBeenCalled();
  });
});
