// The upstream options refused at creation (all issues at once, by path), the URL mapping, and the OpenTelemetry instruments.
import { describe, expect, it } from 'vitest';
import { pathOf, routedUrl } from '../../../src/driver/traits.js';
import { UPSTREAM_GAUGES } from '../../../src/driver/upstream/telemetry.js';
import { createFetch, type MeterLike, retryInterceptor } from '../../../src/http/index.js';
import { CircuitBreaker, ConcurrencyBreaker, ConfigError, OutlierDetector } from '../../../src/policy/index.js';
import { quick } from './client-setup.js';
import { fail503, ok, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();

function issuesOf(make: () => unknown): Record<string, string> {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return Object.fromEntries((error as ConfigError).issues.map((i) => [i.path, i.message]));
  }
  throw new Error('expected a ConfigError');
}

describe('hostile upstream options', () => {
  it('lists every problem at once, by path, for both drivers', () => {
    const hostile = {
      policy: quick(),
      endpoints: [
        'http://127.0.0.1:3001',
        'ftp://127.0.0.1:3002',
        'http://127.0.0.1:3003/api',
        'http://127.0.0.1:3001/',
        7,
      ],
      loadBalancer: { kind: 'random', panicThreshold: Number.NaN },
      outlierDetection: { max_ejection_percent: 50, consecutive5xx: '5' },
      circuitBreaker: { failureTreshold: 3, breakDuration: 'soon' },
      limits: { maxRequests: -1, maxPendingRequests: Number.POSITIVE_INFINITY, maxConnections: 10, burst: 3 },
      seed: Number.NaN,
    };
    for (const make of [() => createFetch(hostile as never), () => retryInterceptor(hostile as never)]) {
      const issues = issuesOf(make);
      expect(Object.keys(issues).sort()).toEqual(
        [
          'endpoints.1',
          'endpoints.2',
          'endpoints.3',
          'endpoints.4',
          'loadBalancer.kind',
          'loadBalancer.panicThreshold',
          'outlierDetection.max_ejection_percent',
          'outlierDetection.consecutive5xx',
          'circuitBreaker.failureTreshold',
          'circuitBreaker.breakDuration',
          'limits.maxRequests',
          'limits.maxPendingRequests',
          'limits.maxConnections',
          'limits.burst',
          'seed',
        ].sort(),
      );
      expect(issues['endpoints.1']).toMatch(/http: or https:/);
      expect(issues['endpoints.2']).toMatch(/origin only/);
      expect(issues['endpoints.3']).toMatch(/repeats endpoints\.0/);
      expect(issues['circuitBreaker.failureTreshold']).toMatch(/did you mean failureThreshold/);
      expect(issues['outlierDetection.max_ejection_percent']).toMatch(/write maxEjectionPercent/);
      expect(issues['limits.maxConnections']).toMatch(/new Agent\(\{ connections \}\)/);
    }
  });

  it('refuses an empty or non-list endpoints, and balancer options without endpoints', () => {
    expect(issuesOf(() => createFetch({ policy: quick(), endpoints: [] }))).toEqual({
      endpoints: 'must be a non-empty list of origins, got an array',
    });
    expect(Object.keys(issuesOf(() => createFetch({ policy: quick(), endpoints: 'http://a' as never })))).toEqual([
      'endpoints',
    ]);
    const issues = issuesOf(() =>
      createFetch({
        policy: quick(),
        loadBalancer: 'p2c',
        outlierDetection: {},
        seed: 1,
        circuitBreaker: 'x' as never,
      }),
    );
    expect(Object.keys(issues).sort()).toEqual(['circuitBreaker', 'loadBalancer', 'outlierDetection', 'seed']);
    expect(issues.seed).toMatch(/needs endpoints/);
  });

  it('takes shared policy objects as they are', async () => {
    const [server] = await start(ok);
    const fetch = createFetch({
      policy: quick(),
      endpoints: [server?.origin as string],
      circuitBreaker: new CircuitBreaker(),
      limits: new ConcurrencyBreaker(),
      outlierDetection: new OutlierDetector({ maxEjectionPercent: 50 }),
    });
    expect((await fetch('http://svc.invalid/')).status).toBe(200);
    expect(fetch.stats().upstreams[0]?.outlierDetection?.hostsTracked).toBe(1);
  });
});

describe('the URL mapping', () => {
  it.each([
    ['http://svc/a/b?c=1#f', '/a/b?c=1'],
    ['http://svc', '/'],
    ['http://svc?q=1', '/?q=1'],
    ['http://svc#only', '/'],
    ['https://user:pw@svc:8443/p?x', '/p?x'],
  ])('keeps the path and query of %s', (url, path) => {
    expect(pathOf(url)).toBe(path);
    expect(routedUrl('http://10.0.0.7:8080', url)).toBe(`http://10.0.0.7:8080${path}`);
  });
});

describe('OpenTelemetry instruments of the upstream policies', () => {
  it('exports ejections_active and pending overflow under Envoy names, per upstream', async () => {
    const [sick, well] = await start(fail503, ok);
    const callbacks = new Map<string, (result: { observe(v: number, a?: Record<string, unknown>): void }) => void>();
    const meter: MeterLike = {
      createHistogram: () => ({ record: () => {} }),
      createObservableCounter: (name) => ({ addCallback: (callback) => callbacks.set(name, callback) }),
      createObservableUpDownCounter: (name) => ({ addCallback: (callback) => callbacks.set(name, callback) }),
    };
    const observe = (name: string) => {
      const seen: Array<[number, Record<string, unknown> | undefined]> = [];
      callbacks.get(name)?.({ observe: (v, a) => seen.push([v, a]) });
      return seen;
    };
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      upstream: 'member-api',
      endpoints: [sick?.origin as string, well?.origin as string],
      outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50 },
      limits: { maxRequests: 0 },
      telemetry: { meter },
    });
    for (const name of UPSTREAM_GAUGES.map(([n]) => n)) expect(callbacks.has(name)).toBe(true);
    await fetch('http://svc.invalid/').catch(() => undefined); // refused: maxRequests 0
    expect(observe('seawall.upstream_rq_pending_overflow')).toEqual([[1, { 'seawall.upstream': 'member-api' }]]);
    const open = createFetch({
      policy: quick({ maxAttempts: 1 }),
      upstream: 'member-api',
      endpoints: [sick?.origin as string, well?.origin as string],
      outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50 },
      telemetry: { meter },
    });
    await (await open('http://svc.invalid/')).text();
    // Two clients of one upstream name add up into one series.
    expect(observe('seawall.outlier_detection.ejections_active')).toEqual([[1, { 'seawall.upstream': 'member-api' }]]);
    expect(observe('seawall.upstream_rq_pending_overflow')).toEqual([[1, { 'seawall.upstream': 'member-api' }]]);
  });
});
