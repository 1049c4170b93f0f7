// CallAdmission without sockets: a refused attempt holds nothing, every permit is reported once, retry slots span the backoff.
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../policy/upstream/breaker.js';
import { ConcurrencyBreaker } from '../../policy/upstream/concurrency.js';
import { Upstreams } from './scopes.js';

const NOW = 1_000_000;
const NO_FREE_CONNECTION = { connectionFree: () => false };

describe('CallAdmission', () => {
  it('holds nothing after a refusal by the limits: the breaker permit it had taken is handed back', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5 });
    const limits = new ConcurrencyBreaker({ maxRequests: 0 });
    const admission = (Upstreams.from({ circuitBreaker: breaker, limits }, undefined) as Upstreams).admission('k');
    expect(admission.admit(NOW, 1, null)).toBe(false);
    expect(admission.refusal).toBe('max-requests');
    expect(breaker.stats()).toMatchObject({ inFlight: 0, cancelled: 1 });
    admission.callEnded(NOW); // nothing left to release: no second report
    expect(breaker.stats()).toMatchObject({ inFlight: 0, cancelled: 1, duplicateReports: 0 });
    expect(limits.stats().doubleReleases).toBe(0);
  });

  it('reports an admitted attempt once, however often the call ends', () => {
    const breaker = new CircuitBreaker();
    const limits = new ConcurrencyBreaker({ maxRetries: 1 });
    const admission = (Upstreams.from({ circuitBreaker: breaker, limits }, undefined) as Upstreams).admission('k');
    expect(admission.admit(NOW, 1, NO_FREE_CONNECTION)).toBe(true);
    expect(limits.stats().pendingRequests).toBe(1);
    expect(admission.sent()).toBe(true);
    expect(limits.stats()).toMatchObject({ pendingRequests: 0, activeRequests: 1 });
    admission.attemptEnded({ kind: 'response', status: 503 }, NOW);
    expect(admission.retryDecided()).toBe(true);
    expect(limits.stats().activeRetries).toBe(1); // held over the backoff
    admission.callEnded(NOW);
    admission.callEnded(NOW);
    expect(limits.stats()).toMatchObject({ activeRequests: 0, activeRetries: 0, doubleReleases: 0 });
    expect(breaker.stats()).toMatchObject({ failures: 1, inFlight: 0, duplicateReports: 0 });
  });
});
