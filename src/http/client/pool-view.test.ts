// connectionFree over the stats shapes undici 7 gives (Agent per origin, Pool, Client), without sockets.
import { describe, expect, it } from 'vitest';
import { connectionFree, isUndiciPool } from './pool-view.js';

const poolStats = (free: number) => ({ connected: 3, free, pending: 0, queued: 0, running: 0, size: 0 });
const clientStats = (connected: boolean, size: number) => ({ connected, pending: 0, running: size, size });

describe('connectionFree (undici pool stats)', () => {
  it('reads an Agent per origin, keyed as undici keys it (URL.origin: the default port dropped)', () => {
    const agent = { stats: { 'http://a.test': poolStats(1), 'http://b.test:8080': poolStats(0) } };
    expect(connectionFree(agent, 'http://a.test:80')).toBe(true);
    expect(connectionFree(agent, 'http://a.test')).toBe(true);
    expect(connectionFree(agent, 'http://b.test:8080')).toBe(false);
    expect(connectionFree(agent, 'http://c.test')).toBe(false); // no pool to it yet: a connection must be opened
  });

  it('reads an Agent with connections: 1 (a Client per origin), a Pool and a Client', () => {
    expect(connectionFree({ stats: { 'http://a.test': clientStats(true, 0) } }, 'http://a.test')).toBe(true);
    expect(connectionFree({ stats: { 'http://a.test': clientStats(true, 1) } }, 'http://a.test')).toBe(false);
    expect(connectionFree({ stats: { 'http://a.test': clientStats(false, 0) } }, 'http://a.test')).toBe(false);
    expect(connectionFree({ stats: poolStats(2) }, 'http://any.test')).toBe(true);
    expect(connectionFree({ stats: poolStats(0) }, 'http://any.test')).toBe(false);
    expect(connectionFree({ stats: clientStats(true, 0) }, 'http://any.test')).toBe(true);
  });

  it('answers false for stats it cannot read, and knows what a pool is', () => {
    expect(connectionFree({ stats: { 'http://a.test': { whatever: 1 } } }, 'http://a.test')).toBe(false);
    expect(connectionFree({ stats: {} }, 'not a url')).toBe(false);
    expect([isUndiciPool({ stats: {} }), isUndiciPool({}), isUndiciPool(null), isUndiciPool({ stats: 3 })]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });
});
