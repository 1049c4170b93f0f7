// What an Envoy or Istio file means to the import, item by item (issue #24): unrouted clusters, weighted splits,
// gateway-only VirtualServices, and the fields Seawall does not model, each reported rather than dropped.
import { describe, expect, it } from 'vitest';
import type { MeshWarning } from './errors.js';
import { readMeshText } from './import.js';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

function bootstrap(routes: string, clusters = ''): string {
  return `node: { id: a, cluster: a }
static_resources:
  listeners:
    - name: out
      filter_chains:
        - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                '@type': ${HCM}
                route_config:
                  virtual_hosts:
                    - name: all
                      domains: ['*']
                      routes:
${routes}
  clusters:
${clusters || '    - { name: b }'}
`;
}

const has = (warnings: readonly MeshWarning[], field: string, pattern: RegExp) =>
  warnings.some((w) => w.field === field && pattern.test(w.message));

describe('item 3: a cluster no route uses gets no retries, as in Envoy', () => {
  it("makes one attempt, not Seawall's default policy, and says why", async () => {
    const read = await readMeshText(
      bootstrap(
        '                        - { match: { prefix: / }, route: { cluster: b } }',
        '    - { name: b }\n    - { name: c, outlier_detection: { consecutive_5xx: 3 } }',
      ),
      'e.yaml',
    );
    const c = read.edges.find((e) => e.to === 'c');
    expect(c?.retry).toEqual({ maxAttempts: 1 });
    expect(c?.outlierDetection).toEqual({ consecutive5xx: 3 });
    expect(has(read.warnings, 'maxAttempts', /no route in this file leads to cluster c/)).toBe(true);
  });

  it('a route without retry_policy makes one attempt', async () => {
    const read = await readMeshText(
      bootstrap('                        - { match: { prefix: / }, route: { cluster: b } }'),
      'e.yaml',
    );
    expect(read.edges.find((e) => e.to === 'b')?.retry).toEqual({ maxAttempts: 1 });
  });
});

describe('item 7: weighted splits are a split, never calls one after another', () => {
  it('Envoy weighted_clusters across services: the largest share stands for the route, the rest is reported', async () => {
    const read = await readMeshText(
      bootstrap(
        '                        - { match: { prefix: / }, route: { weighted_clusters: { clusters: [{ name: b, weight: 10 }, { name: c, weight: 90 }] } } }',
        '    - { name: b }\n    - { name: c }',
      ),
      'e.yaml',
    );
    expect(read.edges.map((e) => e.to)).toEqual(['c']);
    expect(has(read.warnings, 'calls', /splits requests \(c 90 %, b 10 %\).*all of them go to c/)).toBe(true);
  });

  it('Istio weights across hosts: the same; subsets of one host stay one call', async () => {
    const vs = (route: string) =>
      `apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: r }\nspec:\n  hosts: [reviews]\n  http:\n    - route: ${route}\n`;
    const split = await readMeshText(
      vs('[{ destination: { host: reviews }, weight: 30 }, { destination: { host: ratings }, weight: 70 }]'),
      'vs.yaml',
    );
    expect(split.edges.map((e) => e.to)).toEqual(['ratings']);
    expect(has(split.warnings, 'calls', /splits requests by weight \(ratings 70, reviews 30\)/)).toBe(true);
    const subsets = await readMeshText(
      vs(
        '[{ destination: { host: reviews, subset: v1 }, weight: 90 }, { destination: { host: reviews, subset: v2 }, weight: 10 }]',
      ),
      'vs.yaml',
    );
    expect(subsets.edges.map((e) => e.to)).toEqual(['reviews']);
    expect(subsets.warnings.filter((w) => w.field === 'calls' || w.field === 'retry')).toEqual([]);
  });
});

describe('item 7: nothing is dropped silently', () => {
  it('Envoy hedge_policy, request_mirror_policies and idle_timeout are reported', async () => {
    const read = await readMeshText(
      bootstrap(
        '                        - { match: { prefix: / }, route: { cluster: b, idle_timeout: 5s, hedge_policy: { hedge_on_per_try_timeout: true }, request_mirror_policies: [{ cluster: b }] } }',
      ),
      'e.yaml',
    );
    expect(has(read.warnings, 'hedging', /hedge_policy/)).toBe(true);
    expect(has(read.warnings, 'mirror', /request_mirror_policies/)).toBe(true);
    expect(has(read.warnings, 'deadline', /idle_timeout/)).toBe(true);
  });

  it('Istio fault, mirror and portLevelSettings are reported', async () => {
    const read = await readMeshText(
      `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: { name: r }
spec:
  hosts: [ratings]
  http:
    - fault: { abort: { percentage: { value: 50 }, httpStatus: 503 } }
      mirror: { host: ratings-shadow }
      route: [{ destination: { host: ratings } }]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: { name: r }
spec:
  host: ratings
  trafficPolicy:
    portLevelSettings: [{ port: { number: 9080 }, connectionPool: { tcp: { maxConnections: 10 } } }]
`,
      'vs.yaml',
    );
    expect(has(read.warnings, 'fault', /abort 50 % of requests with 503.*never reach the callee/)).toBe(true);
    expect(has(read.warnings, 'mirror', /mirror to ratings-shadow/)).toBe(true);
    expect(has(read.warnings, 'portLevelSettings', /port 9080/)).toBe(true);
  });
});

describe('item 6: a VirtualService bound only to gateways does not set mesh callers’ retries', () => {
  const vs = (gateways: string) =>
    `apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: r }\nspec:\n  hosts: [b]\n${gateways}  http:\n    - route: [{ destination: { host: b } }]\n      retries: { attempts: 5, retryOn: 5xx }\n`;

  it('is reported and not mapped; with "mesh" among its gateways it applies', async () => {
    await expect(readMeshText(vs('  gateways: [ingress]\n'), 'vs.yaml')).rejects.toThrow(/no route, cluster/);
    const both = await readMeshText(vs('  gateways: [ingress, mesh]\n'), 'vs.yaml');
    expect(both.edges[0]?.retry?.maxAttempts).toBe(6);
  });

  it('says so beside routes that do apply', async () => {
    const text = `${vs('  gateways: [ingress]\n')}---\n${vs('').replace('name: r', 'name: s').replace('hosts: [b]', 'hosts: [c]').replace('host: b', 'host: c')}`;
    const read = await readMeshText(text, 'vs.yaml');
    expect(read.edges.map((e) => e.to)).toEqual(['c']);
    expect(has(read.warnings, 'gateways', /bound to gateway ingress only/)).toBe(true);
  });
});
