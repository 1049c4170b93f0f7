// Seawall's diagnostics_channel events and hooks: each fires exactly when its mechanism acts, and not otherwise.
import diagnostics from 'node:diagnostics_channel';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/execute/index.js';
import {
  type BudgetRefusedEvent,
  type CancelEvent,
  createFetch,
  type DropEvent,
  type GiveUpEvent,
  type RetryEvent,
  SEAWALL_CHANNELS,
  type ShedEvent,
} from '../../../src/http/index.js';
import { encodeAbsoluteDeadline } from '../../../src/policy/hop/deadline.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { closeAll, gatedHandler, open, send, serve, sleep, waitFor } from '../server/server-helpers.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';

const agents = agentsClosedAfterEach();
const subscriptions: (() => void)[] = [];
const servers: TestServer[] = [];

afterEach(async () => {
  for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await closeAll();
});

/** Collects what `name` publishes until the test ends. */
function listen<E>(name: string): E[] {
  const seen: E[] = [];
  const onMessage = (message: unknown) => seen.push(message as E);
  diagnostics.subscribe(name, onMessage);
  subscriptions.push(() => diagnostics.unsubscribe(name, onMessage));
  return seen;
}

/** A server answering `statuses` in turn (the last one from then on). */
async function answering(...statuses: number[]): Promise<TestServer> {
  const server = await startServer((_req, res, _hit, n) => {
    res.statusCode = statuses[Math.min(n, statuses.length) - 1] as number;
    res.end('x');
  });
  servers.push(server);
  return server;
}

describe('client events', () => {
  it('seawall:retry fires once per retry with its facts, from createFetch; a first-try success publishes none', async () => {
    const retries = listen<RetryEvent>(SEAWALL_CHANNELS.retry);
    const server = await answering(503, 503, 200);
    const fetch = createFetch({ policy: quick({ maxAttempts: 3 }), upstream: 'member-api', telemetry: false });
    expect((await fetch(`${server.origin}/a`)).status).toBe(200);
    expect(retries).toHaveLength(2);
    expect(retries.map((e) => e.attempt)).toEqual([1, 2]);
    const first = retries[0] as RetryEvent;
    expect(first).toMatchObject({
      client: 'fetch',
      upstream: 'member-api',
      method: 'GET',
      url: `${server.origin}/a`,
      outcome: 'response',
      status: 503,
    });
    expect(first.delayMs).toBeGreaterThanOrEqual(0);
    const ok = await answering(200);
    await fetch(ok.origin);
    expect(retries).toHaveLength(2);
  });

  it('seawall:retry comes from retryInterceptor (client undici) and execute (client execute)', async () => {
    const retries = listen<RetryEvent>(SEAWALL_CHANNELS.retry);
    const server = await answering(503, 200);
    const agent = agents.agentWith({ policy: quick(), telemetry: false });
    const response = await request(server.origin, { dispatcher: agent });
    await response.body.text();
    let calls = 0;
    const executor = createExecutor({ policy: quick(), upstream: 'member-db' });
    await executor.execute(() => {
      if (++calls === 1) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      return 1;
    });
    expect(retries.map((e) => [e.client, e.upstream, e.outcome])).toEqual([
      ['undici', server.origin, 'response'],
      ['execute', 'member-db', 'connect-failure'],
    ]);
    expect(retries[1]?.status).toBeNull();
    expect((retries[1] as RetryEvent).error).toMatchObject({ message: 'refused' });
  });

  it('seawall:give-up fires when retries run out, not on success nor on a failure that is not retryable', async () => {
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const fetch = createFetch({ policy: quick({ maxAttempts: 2 }), telemetry: false });
    const failing = await answering(503);
    expect((await fetch(failing.origin)).status).toBe(503);
    expect(giveUps).toHaveLength(1);
    expect(giveUps[0]).toMatchObject({ reason: 'attempts-exhausted', attempts: 2, status: 503, refusal: null });
    await fetch((await answering(404)).origin);
    await fetch((await answering(200)).origin);
    expect(giveUps).toHaveLength(1);
  });

  it('publishes no give-up for a POST 500 it may not replay (unsafe-to-retry), and rejectOnGiveUp returns it', async () => {
    // GIVE_UP_REASONS (policy/types.ts): one set decides the channel and what rejectOnGiveUp rejects.
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const failing = await answering(500);
    const policy = quick({ maxAttempts: 3, retryOn: ['5xx'] });
    const fetch = createFetch({ policy, rejectOnGiveUp: true, telemetry: false });
    const response = await fetch(failing.origin, { method: 'POST', body: 'pay' });
    expect(response.status).toBe(500);
    await response.text();
    expect(failing.hits).toHaveLength(1);
    expect(policy.stats().stops['unsafe-to-retry']).toBe(1);
    expect(giveUps).toEqual([]);
    // the same client on a GET gives up after its attempts: published, and rejected
    await expect(fetch(failing.origin)).rejects.toMatchObject({ reason: 'attempts-exhausted' });
    expect(giveUps.map((e) => e.reason)).toEqual(['attempts-exhausted']);
  });

  it('seawall:budget-refused fires when the budget denies a retry, and not when attempts run out', async () => {
    const refused = listen<BudgetRefusedEvent>(SEAWALL_CHANNELS.budgetRefused);
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const failing = await answering(503);
    const roomy = createFetch({ policy: quick({ maxAttempts: 2 }), telemetry: false });
    await roomy(failing.origin);
    expect(refused).toHaveLength(0);
    const policy = new RetryPolicy({
      maxAttempts: 3,
      backoff: { kind: 'full-jitter', base: 1, cap: 2 },
      budget: { kind: 'token-bucket', maxTokens: 2, tokenRatio: 0.1 },
    });
    const fetch = createFetch({ policy, telemetry: false });
    for (let i = 0; i < 3; i++) await fetch(failing.origin);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]).toMatchObject({ client: 'fetch', refusal: null, status: 503 });
    expect(giveUps.filter((e) => e.reason === 'budget-exhausted')).toHaveLength(refused.length);
  });

  it('onRetry and onGiveUp get the same events; a hook that throws leaves the call alone and warns once', async () => {
    const server = await answering(503);
    const retried: RetryEvent[] = [];
    const gaveUp: GiveUpEvent[] = [];
    const fetch = createFetch({
      policy: quick({ maxAttempts: 3 }),
      telemetry: false,
      onRetry: (event) => retried.push(event),
      onGiveUp: (event) => gaveUp.push(event),
    });
    expect((await fetch(server.origin)).status).toBe(503);
    expect(retried.map((e) => e.attempt)).toEqual([1, 2]);
    expect(gaveUp.map((e) => e.reason)).toEqual(['attempts-exhausted']);

    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const throwing = createFetch({
        policy: quick({ maxAttempts: 3 }),
        telemetry: false,
        onRetry: () => {
          throw new Error('logger down');
        },
      });
      expect((await throwing(server.origin)).status).toBe(503);
      expect((await throwing(server.origin)).status).toBe(503);
      await sleep(10); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => (w as { code?: string }).code === 'SEAWALL_HOOK_FAILED')).toHaveLength(1);
    expect(warnings[0]?.message).toContain('logger down');
  });
});

describe('server events', () => {
  it('seawall:shed fires for each 503 of a full queue, and not for requests admitted', async () => {
    const sheds = listen<ShedEvent>(SEAWALL_CHANNELS.shed);
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: 0, name: 'member-api' });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    expect(sheds).toHaveLength(0);
    const refused = await send(port, { path: '/second' });
    expect(refused.status).toBe(503);
    expect(sheds).toHaveLength(1);
    expect(sheds[0]).toMatchObject({ service: 'member-api', status: 503, reason: 'queue-full', inFlight: 1 });
    g.releaseOne();
    await first;
    expect(sheds).toHaveLength(1);
  });

  it('seawall:drop fires on arrival for an expired deadline and for a request that expired in the queue', async () => {
    const drops = listen<DropEvent>(SEAWALL_CHANNELS.drop);
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: 10, dropExpired: true });
    const late = await send(port, { headers: { 'x-request-deadline': encodeAbsoluteDeadline(Date.now() - 1000) } });
    expect(late.status).toBe(504);
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatchObject({ stage: 'arrival', status: 504, reason: 'deadline-passed', waitedMs: 0 });
    const first = send(port, { path: '/first' });
    await waitFor(() => stats().running === 1);
    const queued = send(port, { path: '/late', headers: { 'grpc-timeout': '60m' } });
    await waitFor(() => stats().queued === 1);
    await sleep(120);
    g.releaseOne();
    expect((await queued).status).toBe(504);
    await first;
    expect(drops).toHaveLength(2);
    expect(drops[1]?.stage).toBe('queue');
    expect(drops[1]?.waitedMs).toBeGreaterThanOrEqual(60);
    const fresh = send(port, { path: '/fresh', headers: { 'grpc-timeout': '5S' } });
    await waitFor(() => g.holds.length === 1);
    g.releaseOne();
    expect((await fresh).status).toBe(200);
    expect(drops).toHaveLength(2);
  });

  it('seawall:cancel fires when the client of a running or a queued request goes away, not when it is answered', async () => {
    const cancels = listen<CancelEvent>(SEAWALL_CHANNELS.cancel);
    const g = gatedHandler();
    const { port, stats } = await serve(g.handler, { workers: 1, queueLimit: 10 });
    const running = open(port, { path: '/running' });
    running.req.end();
    await waitFor(() => stats().running === 1);
    const queued = open(port, { path: '/queued' });
    queued.req.end();
    await waitFor(() => stats().queued === 1);
    queued.req.destroy();
    await waitFor(() => cancels.length === 1, 3000, 'the queued cancel');
    expect(cancels[0]?.stage).toBe('queued');
    running.req.destroy();
    await waitFor(() => cancels.length === 2, 3000, 'the running cancel');
    expect(cancels[1]?.stage).toBe('running');
    const answered = send(port, { path: '/answered' });
    await waitFor(() => g.holds.length === 2);
    g.holds[1]?.();
    expect((await answered).status).toBe(200);
    expect(cancels).toHaveLength(2);
  });
});
