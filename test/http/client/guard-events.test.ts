// seawall:breaker, seawall:ejection and seawall:refused with their hooks: exact payloads, and nothing built unheard.
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { GuardEvents } from '../../../src/driver/upstream/guard-events.js';
import {
  type BreakerEvent,
  createFetch,
  type EjectionEvent,
  type GiveUpEvent,
  type RefusedEvent,
  SEAWALL_CHANNELS,
} from '../../../src/http/index.js';
import type { BreakerChange } from '../../../src/policy/upstream/breaker.js';
import { ChangeLog } from '../../../src/policy/upstream/changes.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { quick } from './client-setup.js';

const subscriptions: (() => void)[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function listen<E>(name: string): E[] {
  const seen: E[] = [];
  const onMessage = (message: unknown) => seen.push(message as E);
  diagnostics.subscribe(name, onMessage);
  subscriptions.push(() => diagnostics.unsubscribe(name, onMessage));
  return seen;
}

async function answering(status: number): Promise<TestServer> {
  const server = await startServer((_req, res) => res.writeHead(status).end('x'));
  servers.push(server);
  return server;
}

describe('guard events', () => {
  it('publishes the breaker opening, then a refused first attempt: a refusal event and a give-up (refused)', async () => {
    const breaks = listen<BreakerEvent>(SEAWALL_CHANNELS.breaker);
    const refusals = listen<RefusedEvent>(SEAWALL_CHANNELS.refused);
    const giveUps = listen<GiveUpEvent>(SEAWALL_CHANNELS.giveUp);
    const onBreak: BreakerEvent[] = [];
    const onRefused: RefusedEvent[] = [];
    const server = await answering(503);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      upstream: 'member-api',
      telemetry: false,
      circuitBreaker: { failureThreshold: 2, breakDuration: '10s' },
      onBreak: (e) => onBreak.push(e),
      onRefused: (e) => onRefused.push(e),
    });
    for (let i = 0; i < 2; i++) await (await fetch(`${server.origin}/a`)).text();
    const opened = {
      upstream: 'member-api',
      state: 'open',
      previous: 'closed',
      cause: 'failures',
      breakDurationMs: 10_000,
    };
    expect(breaks).toEqual([opened]);
    expect(onBreak).toEqual([opened]);
    const error = await fetch(`${server.origin}/a`).then(
      () => null,
      (e: unknown) => e as { reason: string; refusal: string; attempts: number },
    );
    expect(error).toMatchObject({ reason: 'refused', refusal: 'breaker-open', attempts: 0 });
    expect(server.hits).toHaveLength(2); // nothing sent
    const refused = { client: 'fetch', upstream: 'member-api', method: 'GET', url: `${server.origin}/a` };
    expect(refusals).toEqual([{ ...refused, elapsedMs: expect.any(Number), attempt: 1, refusal: 'breaker-open' }]);
    expect(onRefused).toEqual(refusals);
    // The two 503s were give-ups (attempts-exhausted), and so is the refused call.
    expect(giveUps.map((g) => [g.reason, g.refusal, g.attempts])).toEqual([
      ['attempts-exhausted', null, 1],
      ['attempts-exhausted', null, 1],
      ['refused', 'breaker-open', 0],
    ]);
  });

  it('publishes an ejection with its endpoint, reason, time out and the ejections active', async () => {
    const ejections = listen<EjectionEvent>(SEAWALL_CHANNELS.ejection);
    const onEject: EjectionEvent[] = [];
    const sick = await answering(503);
    const ok = await answering(200);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 2 }),
      upstream: 'member-api',
      telemetry: false,
      endpoints: [sick.origin, ok.origin],
      outlierDetection: { consecutive5xx: 1, baseEjectionTime: '30s', maxEjectionPercent: 50 },
      onEject: (e) => onEject.push(e),
    });
    expect((await fetch('http://member-api/a')).status).toBe(200); // sick first (round-robin), then ok
    const ejected = {
      upstream: 'member-api',
      endpoint: sick.origin,
      ejected: true,
      reason: 'consecutive-5xx',
      ejectionTimeMs: 30_000,
      ejectionsActive: 1,
    };
    expect(ejections).toEqual([ejected]);
    expect(onEject).toEqual([ejected]);
  });

  it('builds no payload without a subscriber or a hook: the change is not even read (hasSubscribers first)', () => {
    const log = new ChangeLog<BreakerChange>();
    let reads = 0;
    const read = <T>(value: T) => {
      reads++;
      return value;
    };
    log.add({
      get from() {
        return read('closed' as const);
      },
      get to() {
        return read('open' as const);
      },
      get cause() {
        return read('failures' as const);
      },
      get breakDurationMs() {
        return read(5);
      },
    } as BreakerChange);
    const events = new GuardEvents({});
    // `to` picks the hook, the one read; nothing else of the change is touched, and the log is drained.
    events.drain('member-api', log, null);
    expect(reads).toBe(1);
    expect(log.empty).toBe(true);
    expect(events.refusedObserved()).toBe(false);
  });
});
