// Tests for ConcurrencyBreaker: Envoy's documented circuit-breaking behaviour as vectors, exactly-once release, config.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import {
  ConcurrencyBreaker,
  type ConcurrencyPermit,
  type ConcurrencyResource,
  validateConcurrencyBreakerConfig,
} from './concurrency.js';

/** Takes `n` units of `resource`, failing the test on an overflow. */
function take(b: ConcurrencyBreaker, resource: ConcurrencyResource, n: number): ConcurrencyPermit[] {
  return Array.from({ length: n }, () => {
    const v = b.tryAcquire(resource);
    if (!v.allowed) throw new Error(`unexpected ${v.reason}`);
    return v;
  });
}

describe('Envoy circuit breaking (arch_overview/upstream/circuit_breaking, cluster_stats)', () => {
  it('defaults to max_connections, max_pending_requests and max_requests 1024, max_retries 3', () => {
    expect(new ConcurrencyBreaker().config).toEqual({
      maxConnections: 1024,
      maxPendingRequests: 1024,
      maxRequests: 1024,
      maxRetries: 3,
      retryBudget: null,
    });
  });

  it.each<[ConcurrencyResource, number, string, string]>([
    ['request', 1024, 'max-requests', 'requestsOpen'],
    ['pending', 1024, 'max-pending', 'pendingOpen'],
    ['connection', 1024, 'max-connections', 'connectionsOpen'],
    ['retry', 3, 'max-retries', 'retriesOpen'],
  ])('fails the next %s fast once %i are outstanding (%s), and admits again after a release', (r, n, reason, open) => {
    const b = new ConcurrencyBreaker();
    const held = take(b, r, n);
    expect(b.stats()).toMatchObject({ [open]: true });
    expect(b.tryAcquire(r)).toEqual({ allowed: false, reason });
    expect(b.remaining(r)).toBe(0);
    b.release(held[0] as ConcurrencyPermit);
    expect(b.stats()).toMatchObject({ [open]: false });
    expect(b.tryAcquire(r).allowed).toBe(true);
  });

  it('counts max_requests and max_pending_requests overflows in upstream_rq_pending_overflow, retries apart', () => {
    const b = new ConcurrencyBreaker({ maxRequests: 1, maxPendingRequests: 1, maxRetries: 1, maxConnections: 1 });
    take(b, 'request', 1);
    take(b, 'pending', 1);
    take(b, 'retry', 1);
    take(b, 'connection', 1);
    for (const r of ['request', 'request', 'pending', 'retry', 'connection'] as const) b.tryAcquire(r);
    expect(b.stats()).toMatchObject({ pendingOverflow: 3, activeOverflow: 2, retryOverflow: 1, connectionOverflow: 1 });
  });

  it('never queues: an overflow holds nothing and changes no gauge', () => {
    const b = new ConcurrencyBreaker({ maxRequests: 2 });
    take(b, 'request', 2);
    const before = b.stats();
    for (let i = 0; i < 100; i++) b.tryAcquire('request');
    expect(b.stats()).toEqual({ ...before, pendingOverflow: 100, activeOverflow: 100 });
  });

  it('max_retries 0 refuses every retry; max_requests 0 every request', () => {
    const b = new ConcurrencyBreaker({ maxRetries: 0, maxRequests: 0 });
    expect(b.tryAcquire('retry')).toEqual({ allowed: false, reason: 'max-retries' });
    expect(b.tryAcquire('request')).toEqual({ allowed: false, reason: 'max-requests' });
  });

  // semantics.md §3, from envoy/config/cluster/v3/circuit_breaker.proto (RetryBudget):
  // allowed retries = max(trunc(budget_percent/100 · (active + pending)), min_retry_concurrency).
  it.each([
    [20, 3, 16, 0, 3],
    [20, 3, 20, 0, 4],
    [20, 3, 100, 0, 20],
    [20, 5, 20, 0, 5],
    [20, 3, 10, 10, 4],
    [29, 0, 100, 0, 28], // Envoy's doubles: 0.29 · 100 is 28.999…, truncated
    [0, 0, 50, 0, 0],
  ])(
    'a %s %% budget with minimum %s allows %s active + %s pending -> %s concurrent retries',
    (percent, min, active, pending, allowed) => {
      const b = new ConcurrencyBreaker({ retryBudget: { percent, minConcurrency: min } });
      take(b, 'request', active);
      take(b, 'pending', pending);
      expect(b.limit('retry')).toBe(allowed);
      take(b, 'retry', allowed);
      expect(b.tryAcquire('retry')).toEqual({ allowed: false, reason: 'max-retries' });
      expect(b.stats()).toMatchObject({ retryOverflow: 1, remainingRetries: 0, retriesOpen: true });
    },
  );

  it('the budget replaces max_retries (Envoy: the budget overrides the retry circuit breaker)', () => {
    const b = new ConcurrencyBreaker({ retryBudget: {} });
    take(b, 'request', 100);
    expect(b.config.retryBudget).toEqual({ percent: 20, minConcurrency: 3 });
    expect(take(b, 'retry', 20)).toHaveLength(20);
  });

  it('reports remaining 0, never negative, when the budget shrinks below the retries out', () => {
    const b = new ConcurrencyBreaker({ retryBudget: { percent: 50, minConcurrency: 0 } });
    const requests = take(b, 'request', 10);
    take(b, 'retry', 5);
    for (const p of requests) b.release(p);
    expect(b.limit('retry')).toBe(0);
    expect(b.stats()).toMatchObject({ activeRetries: 5, remainingRetries: 0, retriesOpen: true });
  });
});

describe('pending requests', () => {
  it('promote() moves a pending request to a request slot', () => {
    const b = new ConcurrencyBreaker({ maxPendingRequests: 1 });
    const [p] = take(b, 'pending', 1) as [ConcurrencyPermit];
    const v = b.promote(p);
    expect(v).toMatchObject({ allowed: true, resource: 'request' });
    expect(b.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1, pendingTotal: 1, requestsTotal: 1 });
    expect(b.tryAcquire('pending').allowed).toBe(true);
  });

  it('promote() fails with max-requests when the requests are full, and frees the pending slot anyway', () => {
    const b = new ConcurrencyBreaker({ maxRequests: 1, maxPendingRequests: 1 });
    take(b, 'request', 1);
    const [p] = take(b, 'pending', 1) as [ConcurrencyPermit];
    expect(b.promote(p)).toEqual({ allowed: false, reason: 'max-requests' });
    expect(b.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1, activeOverflow: 1, pendingCancelled: 0 });
    expect(b.release(p)).toBe(false);
  });

  it('counts a pending request released without a connection as cancelled (upstream_rq_cancelled)', () => {
    const b = new ConcurrencyBreaker();
    const [p] = take(b, 'pending', 1) as [ConcurrencyPermit];
    expect(b.release(p)).toBe(true);
    expect(b.stats()).toMatchObject({ pendingRequests: 0, pendingCancelled: 1 });
  });

  it('refuses to promote a permit that is not a live pending one', () => {
    const b = new ConcurrencyBreaker();
    const [r] = take(b, 'request', 1) as [ConcurrencyPermit];
    expect(() => b.promote(r)).toThrow(/pending permit/);
    const [p] = take(b, 'pending', 1) as [ConcurrencyPermit];
    b.release(p);
    expect(() => b.promote(p)).toThrow(/pending permit/);
  });
});

describe('exactly-once release', () => {
  it('ignores a second release: no count goes negative and no extra slot opens', () => {
    const b = new ConcurrencyBreaker({ maxRequests: 1 });
    const [p] = take(b, 'request', 1) as [ConcurrencyPermit];
    expect(b.release(p)).toBe(true);
    expect(b.release(p)).toBe(false);
    expect(b.stats()).toMatchObject({ activeRequests: 0, remainingRequests: 1, doubleReleases: 1 });
    take(b, 'request', 1);
    expect(b.tryAcquire('request')).toEqual({ allowed: false, reason: 'max-requests' });
  });

  it('refuses a permit from another breaker', () => {
    const [p] = take(new ConcurrencyBreaker(), 'request', 1) as [ConcurrencyPermit];
    expect(() => new ConcurrencyBreaker().release(p)).toThrow(/another breaker/);
  });

  it('keeps every gauge within [0, limit] and every count balanced over random sequences', () => {
    const resource = fc.constantFrom<ConcurrencyResource>('connection', 'pending', 'request', 'retry');
    const op = fc.oneof(
      fc.record({ op: fc.constant('acquire' as const), resource }),
      fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('promote' as const), pick: fc.nat() }),
    );
    const limit = fc.integer({ min: 0, max: 4 });
    const config = fc.record({
      maxConnections: limit,
      maxPendingRequests: limit,
      maxRequests: limit,
      maxRetries: limit,
    });
    let doubles = 0;
    let overflows = 0;
    fc.assert(
      fc.property(config, fc.array(op, { minLength: 200, maxLength: 300, size: 'max' }), (cfg, ops) => {
        const b = new ConcurrencyBreaker(cfg);
        const held: ConcurrencyPermit[] = [];
        const gone: ConcurrencyPermit[] = [];
        const granted = { connection: 0, pending: 0, request: 0, retry: 0 };
        const freed = { connection: 0, pending: 0, request: 0, retry: 0 };
        for (const o of ops) {
          if (o.op === 'acquire') {
            const v = b.tryAcquire(o.resource);
            if (v.allowed) {
              held.push(v);
              granted[o.resource]++;
            } else overflows++;
          } else if (o.op === 'release' && (held.length > 0 || gone.length > 0)) {
            const fresh = o.pick % 2 === 0 && held.length > 0;
            const list = fresh ? held : gone.length > 0 ? gone : held;
            const [p] = list.splice(o.pick % list.length, 1) as [ConcurrencyPermit];
            const wasLive = list === held;
            expect(b.release(p)).toBe(wasLive);
            if (wasLive) freed[p.resource]++;
            else doubles++;
            gone.push(p);
          } else if (o.op === 'promote') {
            const pending = held.filter((p) => p.resource === 'pending');
            if (pending.length === 0) continue;
            const p = pending[o.pick % pending.length] as ConcurrencyPermit;
            held.splice(held.indexOf(p), 1);
            gone.push(p);
            freed.pending++;
            const v = b.promote(p);
            if (v.allowed) {
              held.push(v);
              granted.request++;
            }
          }
          const st = b.stats();
          const active = [st.activeConnections, st.pendingRequests, st.activeRequests, st.activeRetries];
          const limits = [cfg.maxConnections, cfg.maxPendingRequests, cfg.maxRequests, cfg.maxRetries];
          const expected = (['connection', 'pending', 'request', 'retry'] as const).map((r) => granted[r] - freed[r]);
          if (active.join() !== expected.join() || active.some((a, i) => a < 0 || a > (limits[i] as number))) {
            expect({ active, expected, limits }).toBe('balanced and within limits');
          }
        }
      }),
      { numRuns: 200 },
    );
    // Both guards must have been exercised: floors far under the ~9,000 double releases and ~7,000 overflows measured.
    expect([doubles > 1000, overflows > 1000]).toEqual([true, true]);
  });
});

describe('validateConcurrencyBreakerConfig', () => {
  it('accepts Envoy-sized limits and a budget', () => {
    expect(
      validateConcurrencyBreakerConfig(
        { maxConnections: 100, maxPendingRequests: 0, maxRequests: 4_294_967_295, retryBudget: { percent: 25 } },
        '',
        [],
      ),
    ).toEqual({
      maxConnections: 100,
      maxPendingRequests: 0,
      maxRequests: 4_294_967_295,
      maxRetries: 3,
      retryBudget: { percent: 25, minConcurrency: 3 },
    });
    expect(validateConcurrencyBreakerConfig({ retryBudget: false }, '', [])?.retryBudget).toBeNull();
  });

  it.each<[unknown, string, string]>([
    [{ maxRequests: -1 }, 'maxRequests', 'must be an integer from 0 to 4294967295'],
    [{ maxPendingRequests: 1.5 }, 'maxPendingRequests', 'must be an integer from 0 to 4294967295'],
    [{ maxConnections: 4_294_967_296 }, 'maxConnections', 'must be an integer from 0 to 4294967295'],
    [{ maxRetries: '3' }, 'maxRetries', 'must be an integer from 0 to 4294967295'],
    [{ retryBudget: { percent: 120 } }, 'retryBudget.percent', 'must be a number in [0, 100]'],
    [{ retryBudget: { minConcurrency: -1 } }, 'retryBudget.minConcurrency', 'must be an integer from 0 to 4294967295'],
    [{ retryBudget: { budgetPercent: 20 } }, 'retryBudget.budgetPercent', expect.stringMatching(/^unknown key/)],
    [{ retryBudget: 20 }, 'retryBudget', expect.stringMatching(/^must be an object/)],
    [{ retryBudget: {}, maxRetries: 3 }, 'maxRetries', expect.stringMatching(/budget overrides it/)],
    [{ max_requests: 10 }, 'max_requests', 'unknown key; did you mean maxRequests?'],
  ])('rejects %j at its path', (input, path, message) => {
    const issues: ConfigIssue[] = [];
    expect(validateConcurrencyBreakerConfig(input, '', issues)).toBeUndefined();
    expect(issues).toEqual([{ path, message }]);
  });

  it('prefixes paths, and the constructor throws one ConfigError', () => {
    const issues: ConfigIssue[] = [];
    validateConcurrencyBreakerConfig({ maxRequests: -1, maxRetries: -1 }, 'clusters.member', issues);
    expect(issues.map((i) => i.path)).toEqual(['clusters.member.maxRequests', 'clusters.member.maxRetries']);
    expect(() => new ConcurrencyBreaker({ maxRequests: -1 })).toThrow(ConfigError);
    expect(validateConcurrencyBreakerConfig([], '', [])).toBeUndefined();
  });
});
