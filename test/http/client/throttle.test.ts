// Client-side adaptive throttling over real sockets on 127.0.0.1: local refusals, only sent requests counted, relayed 503s ignored.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { createFetch, type RefusedEvent, SEAWALL_CHANNELS, SeawallError } from '../../../src/http/index.js';
import { CLAIM_HEADER } from '../../../src/policy/hop/ownership.js';
import { quick } from './client-setup.js';
import { only, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();
const THROTTLE = { kind: 'adaptive', k: 2, window: '10s', minRequests: 10 } as const;

/** Calls `url` `n` times one after the other: how many were refused locally by the throttle. */
async function callMany(fetch: ReturnType<typeof createFetch>, url: string, n: number): Promise<number> {
  let throttled = 0;
  for (let i = 0; i < n; i++) {
    try {
      await (await fetch(url)).text();
    } catch (error) {
      expect(error).toBeInstanceOf(SeawallError);
      expect((error as SeawallError).refusal).toBe('throttled');
      expect((error as SeawallError).attempts).toBe(0); // refused before any I/O
      throttled++;
    }
  }
  return throttled;
}

describe('adaptive throttle (SRE book ch. 21) in the HTTP client', () => {
  it('refuses locally against a server answering its own 503 to 9 requests in 10, and counts only what it sent', async () => {
    const [server] = await start((_req, res, _hit, n) => res.writeHead(n % 10 === 0 ? 200 : 503).end());
    const fetch = createFetch({ policy: quick({ maxAttempts: 1 }), throttle: THROTTLE, seed: 7 });
    const events: RefusedEvent[] = [];
    const onRefused = (message: unknown) => events.push(message as RefusedEvent);
    diagnostics.subscribe(SEAWALL_CHANNELS.refused, onRefused);
    const throttled = await callMany(fetch, `${server?.origin}/x`, 200).finally(() =>
      diagnostics.unsubscribe(SEAWALL_CHANNELS.refused, onRefused),
    );
    // Each local refusal is a seawall:refused event naming the throttle.
    expect(events).toHaveLength(throttled);
    expect(events[0]).toMatchObject({ attempt: 1, refusal: 'throttled' });
    const stats = fetch.stats();
    const t = only(stats).throttle;
    const hits = server?.hits.length ?? 0;
    // The server accepts a tenth of what it gets, so k × accepts stays far below requests: most calls never leave.
    expect(throttled).toBeGreaterThan(100);
    expect(hits + throttled).toBe(200);
    expect(t).toMatchObject({ sent: hits, throttled });
    expect(t?.rejected).toBe(hits - Math.floor(hits / 10)); // hit numbers count from 1
    expect(stats.signals.upstream_rq_total).toBe(hits); // throttled attempts are not sent
    expect(stats.signals.adaptive_throttle_rejected).toBe(throttled);
    expect(only(stats).refused.throttled).toBe(throttled);
  });

  it('does not count a 503 relayed from further down (claim "0"): the callee did not say "too much"', async () => {
    const [server] = await start((_req, res) => res.writeHead(503, { [CLAIM_HEADER]: '0' }).end());
    const fetch = createFetch({ policy: quick({ maxAttempts: 1 }), throttle: THROTTLE, seed: 7 });
    expect(await callMany(fetch, `${server?.origin}/x`, 60)).toBe(0);
    expect(server?.hits).toHaveLength(60);
    expect(only(fetch.stats()).throttle).toMatchObject({ sent: 60, rejected: 0, accepts: 60, rejectProbability: 0 });
  });

  it('refuses a bad throttle option with a ConfigError naming its path', () => {
    expect(() => createFetch({ policy: quick(), throttle: { kind: 'adaptive', k: 0 } })).toThrow(
      /throttle\.k: must be a number/,
    );
    expect(() => createFetch({ policy: quick(), throttle: { kind: 'adaptive', window: '10ms' } })).toThrow(
      /throttle\.window: must be from 1s to 1h/,
    );
  });
});
