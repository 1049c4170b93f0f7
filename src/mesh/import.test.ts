// Tests for `seawall mesh import`: what each mesh setting becomes, and import -> simulate against the checkout incident.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, simulate } from '../sim/index.js';
import { importMesh, readMeshText } from './import.js';
import { readScenarioView } from './scenario-read.js';

const ISTIO = 'examples/mesh/istio-checkout.yaml';
const ENVOY = 'examples/mesh/envoy-checkout.yaml';

describe('reading Envoy', () => {
  it("maps the seed's route and cluster settings to Seawall's keys", async () => {
    const read = await readMeshText(
      `virtual_hosts:
  - name: member-api
    domains: [member-api]
    routes:
      - match: { prefix: /, headers: [{ name: ':method', string_match: { exact: GET } }] }
        route:
          cluster: member-api
          timeout: 3s
          retry_policy:
            retry_on: 5xx,reset,connect-failure
            num_retries: 2
            per_try_timeout: 1s
            retry_back_off: { base_interval: 0.025s, max_interval: 1s }
            rate_limited_retry_back_off: { reset_headers: [{ name: Retry-After, format: SECONDS }], max_interval: 60s }
---
name: member-api
connect_timeout: 1s
lb_policy: LEAST_REQUEST
common_lb_config: { healthy_panic_threshold: { value: 30 } }
circuit_breakers:
  thresholds:
    - { priority: DEFAULT, max_connections: 100, max_pending_requests: 20, retry_budget: { budget_percent: { value: 25 }, min_retry_concurrency: 5 } }
outlier_detection: { consecutive_5xx: 5, interval: 10s, base_ejection_time: 30s, max_ejection_percent: 50 }
`,
      'envoy.yaml',
    );
    expect(read.format).toBe('envoy');
    expect(read.edges).toHaveLength(1);
    const e = read.edges[0];
    expect(e?.from).toBeNull();
    expect(e?.to).toBe('member-api');
    expect(e?.retry).toEqual({
      maxAttempts: 3, // num_retries counts retries; maxAttempts counts the first try too
      perTryTimeout: '1s',
      deadline: { patience: '3s' },
      backoff: { kind: 'envoy', base: '25ms', max: '1s' },
      budget: false,
      retryOn: ['5xx', 'timeout'],
      honorRetryAfter: true,
      maxRetryAfter: '60s',
    });
    // The budget is the circuit breakers' and replaces max_retries (no default cap of 3 beside it).
    expect(e?.limits).toEqual({
      maxConnections: 100,
      maxPendingRequests: 20,
      retryBudget: { percent: 25, minConcurrency: 5 },
    });
    expect(e?.outlierDetection).toEqual({
      consecutive5xx: 5,
      interval: '10s',
      baseEjectionTime: '30s',
      maxEjectionPercent: 50,
    });
    expect(e?.loadBalancer).toEqual({ kind: 'p2c', panicThreshold: 30 });
    expect(e?.unsafeReplay).toBe('none'); // the route carries GET only
  });

  it('reads a bootstrap: the caller from node.cluster, callee limits from the inbound cluster', async () => {
    const read = await readMeshText((await import('node:fs')).readFileSync(ENVOY, 'utf8'), ENVOY);
    expect(read.edges.map((e) => `${e.from} -> ${e.to}`)).toEqual([
      'checkout-bff -> coupon-api',
      'coupon-api -> member-api',
    ]);
    expect(read.edges[1]?.retry?.retryNonIdempotent).toBe(true); // one route for every method, retrying 5xx
    expect(read.edges[1]?.unsafeReplay).toBe('all-methods');
  });
});

describe('reading Istio', () => {
  it('counts attempts as retries + 1, reads sourceLabels as the caller, and merges the DestinationRule', async () => {
    const read = await readMeshText((await import('node:fs')).readFileSync(ISTIO, 'utf8'), ISTIO);
    const member = read.edges.find((e) => e.to === 'member-api');
    expect(member?.from).toBe('coupon-api');
    expect(member?.retry).toMatchObject({
      maxAttempts: 4,
      perTryTimeout: '1s',
      deadline: false,
      retryOn: ['reset', 'connect-failure', 'timeout', 502, 503, 504],
    });
    // Istio: unset thresholds are MaxUint32; success-rate ejection off; minHealthPercent (default 0) is the panic threshold.
    expect(member?.limits).toEqual({
      maxConnections: 100,
      maxPendingRequests: 20,
      maxRequests: 4294967295,
      maxRetries: 4294967295,
    });
    expect(member?.outlierDetection).toMatchObject({
      enforcingSuccessRate: 0,
      consecutive5xx: 5,
      enforcingConsecutive5xx: 100,
      maxEjectionPercent: 50,
    });
    expect(member?.loadBalancer).toEqual({ kind: 'p2c', panicThreshold: 0 });
    expect(read.services).toEqual([expect.objectContaining({ name: 'member-api', workers: 50, queueLimit: 200 })]);
    expect(read.warnings).toContainEqual(
      expect.objectContaining({ where: 'coupon-api -> member-api', field: 'limits', kind: 'dropped' }),
    );
  });

  it("applies Istio's default retry policy to a route without retries, and none with attempts: 0", async () => {
    const vs = (retries: string) =>
      `apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: { name: b }\nspec:\n  hosts: [b.ns.svc.cluster.local]\n  http:\n    - route: [{ destination: { host: b.ns.svc.cluster.local } }]\n${retries}`;
    const byDefault = await readMeshText(vs(''), 'vs.yaml');
    // Istio 1.24+: connect-failure, refused-stream and the gRPC-only unavailable/cancelled; no 503.
    expect(byDefault.edges[0]?.retry).toMatchObject({
      maxAttempts: 3,
      retryOn: ['connect-failure', 'reset-before-request'],
    });
    expect(byDefault.warnings).toContainEqual(
      expect.objectContaining({
        field: 'maxAttempts',
        message: expect.stringMatching(/1\.24\+.*1\.23 and earlier also retried 503/),
      }),
    );
    const off = await readMeshText(vs('      retries: { attempts: 0 }\n'), 'vs.yaml');
    expect(off.edges[0]?.retry).toEqual({ maxAttempts: 1, deadline: false });
  });
});

/** Simulates variant `mesh` of a generated file; skips (saying why) only if the simulator refuses the new call keys. */
/** Simulates the imported variant; a key the simulator refuses fails the test (import writes only what it runs). */
async function simulateMesh(file: string) {
  const scenario = loadScenario(file);
  const result = await simulate(scenario, { variants: ['mesh'], seeds: [1] });
  return result.runs[0];
}

describe('import -> simulate: an existing mesh against the checkout incident', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seawall-import-'));

  it('runs the Istio example (retries, limits, outlier detection, balancer, callee limits) and gives figures', async () => {
    const out = join(dir, 'istio.yaml');
    const result = await importMesh(ISTIO, { scenario: 'checkout-incident', outPath: out });
    writeFileSync(out, result.yaml);
    const view = readScenarioView(out);
    expect(view.variants.map((v) => v.name)).toEqual(['mesh']);
    const run = await simulateMesh(out);
    expect(run?.variant).toBe('mesh');
    expect(run?.userRequests).toBeGreaterThan(80_000);
    expect(run?.successRate.before).toBeGreaterThan(0.99);
    // Two layers of sidecar retries: member-api sees several attempts per request during the failover.
    expect(run?.amplification['member-api']?.during).toBeGreaterThan(3);
  });

  it('runs retries-only Envoy routes (no cluster blocks) the same way', async () => {
    const file = join(dir, 'routes.yaml');
    writeFileSync(
      file,
      `node: { id: bff, cluster: checkout-bff }\nstatic_resources:\n  listeners:\n    - name: out\n      filter_chains:\n        - filters:\n            - name: envoy.filters.network.http_connection_manager\n              typed_config:\n                '@type': type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\n                route_config:\n                  virtual_hosts:\n                    - name: coupon\n                      domains: ['*']\n                      routes:\n                        - match: { prefix: / }\n                          route: { cluster: coupon-api, timeout: 2s, retry_policy: { retry_on: gateway-error, num_retries: 3, per_try_timeout: 0.5s } }\n`,
    );
    const out = join(dir, 'envoy.yaml');
    const result = await importMesh(file, { scenario: 'checkout-incident', outPath: out });
    writeFileSync(out, result.yaml);
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ where: 'coupon-api -> member-api', field: 'maxAttempts', kind: 'note' }),
    );
    const run = await simulateMesh(out);
    expect(run?.amplification['coupon-api']?.during).toBeGreaterThan(1.5);
    expect(run?.amplification['member-api']?.during).toBeCloseTo(run?.amplification['coupon-api']?.during ?? 0, 5);
  });

  it('writes the same bytes for the same input, and a standalone scenario the simulator accepts', async () => {
    const a = await importMesh(ISTIO, {});
    const b = await importMesh(ISTIO, {});
    expect(a.yaml).toBe(b.yaml);
    const out = join(dir, 'standalone.yaml');
    writeFileSync(out, a.yaml);
    expect(loadScenario(out).variants.map((v) => v.name)).toEqual(['mesh']);
  });

  it('reports a route to a call the scenario does not have', async () => {
    const file = join(dir, 'stray.yaml');
    writeFileSync(
      file,
      'virtual_hosts:\n  - name: x\n    domains: [x]\n    routes:\n      - match: { prefix: / }\n        route: { cluster: payments }\n',
    );
    const result = await importMesh(file, { scenario: 'checkout-incident' });
    expect(result.warnings).toContainEqual(expect.objectContaining({ where: '* -> payments', kind: 'dropped' }));
  });
});
