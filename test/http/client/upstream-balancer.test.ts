// Endpoints over real servers on 127.0.0.1: URL mapping, outlier ejection, retries to another endpoint, p2c, panic, maxEjectionPercent.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createFetch } from '../../../src/http/index.js';
import { delay } from '../../support/loopback.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import { fail503, held, ok, only, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();
const { agentWith } = agentsClosedAfterEach();
/** A logical origin: nothing resolves it, so a call not mapped onto an endpoint fails. */
const SERVICE = 'http://member-api.invalid';

async function drain(response: Response): Promise<number> {
  await response.text();
  return response.status;
}

describe('endpoints: the URL mapping', () => {
  it('sends each attempt to a picked endpoint with the path and query of the call, round-robin', async () => {
    const servers = await start(ok, ok, ok);
    const fetch = createFetch({ policy: quick(), endpoints: servers.map((s) => s.origin) });
    for (let i = 0; i < 6; i++) expect(await drain(await fetch(`${SERVICE}/users/${i}?view=full#frag`))).toBe(200);
    expect(servers.map((s) => s.hits.map((h) => h.url))).toEqual([
      ['/users/0?view=full', '/users/3?view=full'],
      ['/users/1?view=full', '/users/4?view=full'],
      ['/users/2?view=full', '/users/5?view=full'],
    ]);
    // Host is the endpoint's: the attempt goes to it as if called directly.
    expect(servers[0]?.hits[0]?.headers.host).toBe(`127.0.0.1:${servers[0]?.port}`);
  });

  it('maps undici requests the same way (the Agent routes by the replaced origin)', async () => {
    const servers = await start(ok, ok);
    const dispatcher = agentWith({ policy: quick(), endpoints: servers.map((s) => s.origin) });
    for (let i = 0; i < 4; i++) {
      const response = await request(`${SERVICE}/orders?n=${i}`, { dispatcher });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    }
    expect(servers.map((s) => s.hits.map((h) => h.url))).toEqual([
      ['/orders?n=0', '/orders?n=2'],
      ['/orders?n=1', '/orders?n=3'],
    ]);
  });
});

describe('outlier detection moves traffic', () => {
  it('ejects the endpoint that always fails and sends the rest of the traffic to the others', async () => {
    const [sick, a, b] = await start(fail503, ok, ok);
    const endpoints = [sick, a, b].map((s) => s?.origin as string);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints,
      // One 5xx ejects; 50 % of 3 endpoints allows one out: only if the pool of 3 was declared up front.
      outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await drain(await fetch(`${SERVICE}/x`)));
    expect(sick?.hits).toHaveLength(1);
    expect(statuses.filter((s) => s === 503)).toHaveLength(1);
    expect((a?.hits.length ?? 0) + (b?.hits.length ?? 0)).toBe(29);
    const stats = fetch.stats();
    expect(stats.signals['outlier_detection.ejections_active']).toBe(1);
    expect(only(stats).endpoints.map((e) => e.ejected)).toEqual([true, false, false]);
  });

  it('runs the interval sweep at pick time: failure-percentage ejects, and the endpoint returns after its time', async () => {
    let sickAnswers = 503;
    const [sick, a, b] = await start((_req, res) => res.writeHead(sickAnswers).end(), ok, ok);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints: [sick, a, b].map((s) => s?.origin as string),
      outlierDetection: {
        consecutive5xx: 0, // only the sweep's analysis can eject
        consecutiveGatewayFailure: 0,
        enforcingFailurePercentage: 100,
        failurePercentageMinimumHosts: 3,
        failurePercentageRequestVolume: 3,
        interval: 100,
        baseEjectionTime: 300,
        maxEjectionPercent: 50,
      },
    });
    // Rounds of 12 calls, each followed by an interval: the next round's first pick runs the sweep that analyses it.
    for (let round = 0; round < 6 && !only(fetch.stats()).endpoints[0]?.ejected; round++) {
      for (let i = 0; i < 12; i++) await drain(await fetch(`${SERVICE}/x`));
      await delay(150);
    }
    expect(fetch.stats().upstreams[0]?.outlierDetection?.ejectionsEnforcedFailurePercentage).toBe(1);
    const before = sick?.hits.length ?? 0;
    for (let i = 0; i < 9; i++) await drain(await fetch(`${SERVICE}/x`));
    expect(sick?.hits.length).toBe(before); // out of the pool
    sickAnswers = 200;
    await delay(450); // past baseEjectionTime and a sweep
    for (let i = 0; i < 9; i++) await drain(await fetch(`${SERVICE}/x`));
    expect(sick?.hits.length).toBe(before + 3); // back in the round-robin
    expect(fetch.stats().signals['outlier_detection.ejections_active']).toBe(0);
  });

  it('keeps half the endpoints when all of them fail (maxEjectionPercent 50, the seed)', async () => {
    const servers = await start(fail503, fail503, fail503, fail503);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints: servers.map((s) => s.origin),
      outlierDetection: { consecutive5xx: 2, maxEjectionPercent: 50 },
    });
    for (let i = 0; i < 20; i++) expect(await drain(await fetch(`${SERVICE}/x`))).toBe(503);
    const hitsBefore = servers.map((s) => s.hits.length);
    for (let i = 0; i < 20; i++) expect(await drain(await fetch(`${SERVICE}/x`))).toBe(503); // never refused
    const u = only(fetch.stats());
    expect(u.outlierDetection?.ejectionsActive).toBe(2);
    expect(u.outlierDetection?.ejectionsOverflow).toBeGreaterThan(0);
    const served = servers.map((s, i) => s.hits.length - (hitsBefore[i] as number));
    // The two endpoints still in the pool took the last 20 calls, 10 each; the ejected two none.
    expect(served.filter((n) => n === 0)).toHaveLength(2);
    expect(served.filter((n) => n === 10)).toHaveLength(2);
    expect(u.endpoints.filter((e) => e.ejected)).toHaveLength(2);
  });
});

describe('the panic threshold', () => {
  for (const panicThreshold of [60, 50]) {
    it(`${panicThreshold > 50 ? 'ignores ejections' : 'keeps ejections'} with 1 of 2 endpoints left and panicThreshold ${panicThreshold}`, async () => {
      const [sick, well] = await start(fail503, ok);
      const fetch = createFetch({
        policy: quick({ maxAttempts: 1 }),
        endpoints: [sick?.origin as string, well?.origin as string],
        outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50 },
        loadBalancer: { kind: 'round-robin', panicThreshold },
      });
      for (let i = 0; i < 10; i++) await drain(await fetch(`${SERVICE}/x`));
      const u = only(fetch.stats());
      expect(u.endpoints[0]?.ejected).toBe(true);
      if (panicThreshold > 50) {
        // 1 of 2 available is below 60 %: Envoy's panic mode sends to every endpoint, the ejected one included.
        expect(sick?.hits).toHaveLength(5);
        expect(fetch.stats().signals.lb_healthy_panic).toBe(9);
      } else {
        expect(sick?.hits).toHaveLength(1);
        expect(fetch.stats().signals.lb_healthy_panic).toBe(0);
      }
    });
  }
});

describe('retries and load', () => {
  it('sends the retry of a failed attempt to another endpoint than the one that failed', async () => {
    const [sick, a, b] = await start(fail503, ok, ok);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 2 }),
      endpoints: [sick, a, b].map((s) => s?.origin as string),
    });
    // Three calls at once take the three endpoints in turn; the round-robin then points at the sick one again, so
    // only the avoidance rule keeps the retry of the first call away from it.
    const statuses = await Promise.all([0, 1, 2].map(async (i) => drain(await fetch(`${SERVICE}/c${i}`))));
    expect(statuses).toEqual([200, 200, 200]);
    expect(sick?.hits.map((h) => h.url)).toEqual(['/c0']);
    expect(a?.hits.map((h) => h.url).sort()).toEqual(['/c0', '/c1']);
    expect(fetch.stats().upstreams[0]?.loadBalancer?.avoidedPrevious).toBe(1);
  });

  it('prefers the less loaded endpoint with p2c: a held endpoint gets a call only when both draws name it', async () => {
    const slow = held();
    const [busy, fast] = await start(slow.respond, ok);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints: [busy?.origin as string, fast?.origin as string],
      loadBalancer: 'p2c',
      seed: 7,
    });
    const calls: Promise<number>[] = [];
    for (let i = 0; i < 20; i++) {
      const call = fetch(`${SERVICE}/x`).then(drain);
      calls.push(call);
      await Promise.race([call, delay(200)]); // a call to the held endpoint stays in flight
    }
    // Envoy's draws are with replacement: the held endpoint (in flight) loses to the idle one whenever the idle one is
    // drawn, and gets a call only when both draws name it (1 in 4): 4 of the 20 with seed 7, not its half.
    const heldCalls = busy?.hits.length ?? 0;
    expect(heldCalls).toBeGreaterThanOrEqual(1);
    expect(heldCalls).toBeLessThanOrEqual(6);
    expect(only(fetch.stats()).endpoints.map((e) => e.inFlight)).toEqual([heldCalls, 0]);
    slow.release();
    expect(await Promise.all(calls)).toEqual(Array(20).fill(200));
    expect(only(fetch.stats()).endpoints.map((e) => e.inFlight)).toEqual([0, 0]);
  });
});
