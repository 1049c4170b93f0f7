// A hung half-open probe over a real socket (issue #25): no deadline, no per-try timeout, and its lease still frees the breaker.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createFetch, SeawallError } from '../../../src/http/index.js';
import { delay, rejection } from '../../support/loopback.js';
import { quick } from './client-setup.js';
import { IDLE, idle, only, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();

function refusalOf(error: unknown): string | null {
  expect(error).toBeInstanceOf(SeawallError);
  return (error as SeawallError).refusal;
}

describe('half-open probe lease', () => {
  it('re-opens when the probe is never answered, then lets a new probe through and closes', async () => {
    const hung: ServerResponse[] = [];
    const [server] = await start((_req, res, _hit, n) => {
      if (n === 1)
        res.writeHead(500).end(); // opens the circuit
      else if (n === 2)
        hung.push(res); // the first probe: never answered while the test runs
      else res.end('ok');
    });
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }), // no deadline, no per-try timeout
      circuitBreaker: { failureThreshold: 1, failureRate: false, breakDuration: 300 },
    });
    const url = `${server?.origin}/x`;
    expect((await fetch(url)).status).toBe(500);
    await delay(350);
    const aborts = new AbortController();
    const probe = fetch(url, { signal: aborts.signal }).then(
      () => 'answered',
      () => 'aborted',
    );
    await delay(100);
    expect(hung).toHaveLength(1);
    expect(refusalOf(await rejection(fetch(url)))).toBe('breaker-half-open-full');
    // The lease (the break, 300 ms) ends: the hung probe counts as failed and the circuit is open for another break.
    await delay(350);
    expect(refusalOf(await rejection(fetch(url)))).toBe('breaker-open');
    await delay(400);
    const next = await fetch(url);
    expect([next.status, await next.text()]).toEqual([200, 'ok']);
    const breaker = only(fetch.stats()).circuitBreaker;
    expect(breaker).toMatchObject({ state: 'closed', probes: 2, probesExpired: 1, reopened: 1, inFlight: 1 });
    // The hung probe ends at last (aborted): its report is stale and nothing stays held.
    aborts.abort();
    expect(await probe).toBe('aborted');
    for (const res of hung) res.destroy();
    const after = only(fetch.stats());
    expect(after.circuitBreaker).toMatchObject({ state: 'closed', staleReports: 1, inFlight: 0 });
    expect(idle(after)).toEqual(IDLE);
    expect(server?.hits).toHaveLength(3);
  });
});
