// Envoy input as Envoy's loader reads it: single values for lists (issue #24 item 4), proto3 JSON names (item 9).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MeshError } from '../errors.js';
import { importRead, readMeshText } from '../import.js';
import { parseYamlDocuments } from '../yaml-io.js';
import { jsonName, normalizeEnvoyDoc } from './normalize.js';

const EXAMPLE = 'examples/mesh/envoy-checkout.yaml';
const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

async function problems(text: string): Promise<string[]> {
  try {
    await readMeshText(text, 'in.yaml');
  } catch (error) {
    if (error instanceof MeshError) return [...error.problems];
    throw error;
  }
  throw new Error('no error');
}

/** What an import makes of a text: the read (edges, services, warnings) and the scenario YAML. */
async function imported(text: string) {
  const read = await readMeshText(text, 'mesh.yaml');
  return { edges: read.edges, services: read.services, yaml: importRead(read, 'mesh.yaml').yaml };
}

/** A bootstrap whose listener and cluster write each repeated field as a list, or each as a single mapping. */
function bootstrap(single: boolean): string {
  const l = (item: unknown) => (single ? item : [item]);
  const doc = {
    node: { id: 'bff', cluster: 'checkout-bff' },
    static_resources: {
      listeners: l({
        name: 'out',
        filter_chains: l({
          filters: l({
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM,
              stat_prefix: 'out',
              route_config: {
                virtual_hosts: l({
                  name: 'coupon',
                  domains: l('*'),
                  routes: l({
                    match: { prefix: '/', headers: l({ name: ':method', string_match: { exact: 'GET' } }) },
                    route: {
                      cluster: 'coupon',
                      timeout: '2s',
                      retry_policy: {
                        retry_on: 'retriable-status-codes',
                        num_retries: 2,
                        retriable_status_codes: l(503),
                      },
                    },
                  }),
                }),
              },
            },
          }),
        }),
      }),
      clusters: l({
        name: 'coupon',
        connect_timeout: '1s',
        load_assignment: {
          cluster_name: 'coupon',
          endpoints: l({
            lb_endpoints: l({
              endpoint: { address: { socket_address: { address: 'coupon-api.shop', port_value: 80 } } },
            }),
          }),
        },
        circuit_breakers: { thresholds: l({ max_retries: 3, retry_budget: { budget_percent: { value: 20 } } }) },
      }),
    },
  };
  return JSON.stringify(doc);
}

describe('a repeated field written as a single mapping (issue #24 item 4)', () => {
  it('is read as a list of one, as Envoy reads it: the same routes, limits and endpoint as the list form', async () => {
    const lists = await imported(bootstrap(false));
    const singles = await imported(bootstrap(true));
    expect(lists.edges).toHaveLength(1);
    expect(lists.edges[0]?.to).toBe('coupon-api');
    expect(lists.edges[0]?.retry).toMatchObject({ maxAttempts: 3, retryOn: [503] });
    expect(singles).toEqual(lists);
  });

  it('reads a single resource, and a single weighted cluster, the same way', async () => {
    const cluster = { '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster', name: 'b', lb_policy: 'RANDOM' };
    expect((await imported(JSON.stringify({ resources: cluster }))).edges).toEqual(
      (await imported(JSON.stringify({ resources: [cluster] }))).edges,
    );
    const routes = (single: boolean) => {
      const w = { name: 'b', weight: 100 };
      return JSON.stringify({
        virtual_hosts: {
          name: 'v',
          domains: '*',
          routes: { match: { prefix: '/' }, route: { weighted_clusters: { clusters: single ? w : [w] } } },
        },
      });
    };
    expect((await imported(routes(true))).edges).toEqual((await imported(routes(false))).edges);
  });

  it('refuses, with its path, a filter chain or filter that is no mapping (never skipped without a word)', async () => {
    const listener = (chains: unknown) =>
      JSON.stringify({
        node: { cluster: 'a' },
        static_resources: { listeners: [{ name: 'l', filter_chains: chains }] },
      });
    expect(await problems(listener('oops'))).toContain(
      'in.yaml: document 1.static_resources.listeners[0].filter_chains[0]: must be a mapping (a FilterChain)',
    );
    expect(await problems(listener({ filters: 7 }))).toContain(
      'in.yaml: document 1.static_resources.listeners[0].filter_chains[0].filters[0]: must be a mapping (a Filter)',
    );
  });

  it('notes routes a bootstrap takes from RDS (not in the file) instead of losing them silently', async () => {
    const doc = {
      node: { cluster: 'a' },
      static_resources: {
        listeners: [
          { filter_chains: [{ filters: [{ typed_config: { '@type': HCM, rds: { route_config_name: 'r80' } } }] }] },
        ],
        clusters: [{ name: 'b', lb_policy: 'RANDOM' }],
      },
    };
    const read = await readMeshText(JSON.stringify(doc), 'in.yaml');
    expect(read.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(
        /^document 1\.static_resources\.listeners\[0\]\.filter_chains\[0\]\.filters\[0\]\.typed_config\.rds: routes come from RDS \(route_config_name r80\).*import the route config too/,
      ),
    );
  });
});

describe('connection managers whose routes are not read', () => {
  it('are noted: scoped RDS, and an HTTP connection manager filter without the v3 typed_config', async () => {
    const filters = [
      { name: 'envoy.filters.network.http_connection_manager', typed_config: { '@type': HCM, scoped_routes: {} } },
      { name: 'envoy.http_connection_manager', config: { route_config: {} } },
    ];
    const doc = {
      node: { cluster: 'a' },
      static_resources: {
        listeners: [{ filter_chains: [{ filters }] }],
        clusters: [{ name: 'b', lb_policy: 'RANDOM' }],
      },
    };
    const read = await readMeshText(JSON.stringify(doc), 'in.yaml');
    const at = 'document 1.static_resources.listeners[0].filter_chains[0].filters';
    expect(read.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        `${at}[0].typed_config.scoped_routes: scoped routes (SRDS) are not read; their routes are not imported`,
        `${at}[1]: an HTTP connection manager without a typed_config of @type ${HCM}; its routes are not read`,
      ]),
    );
  });
});

/** Every key holding '_' in lowerCamelCase where `pick` says so (the example has no map whose keys hold '_'). */
function camelize(value: unknown, pick: () => boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => camelize(v, pick));
  if (typeof value !== 'object' || value === null) return value;
  const spell = pick();
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [spell ? jsonName(k) : k, camelize(v, pick)] as const),
  );
}

const exampleDocs = parseYamlDocuments(readFileSync(EXAMPLE, 'utf8'), EXAMPLE).map((d) => d.value);
const asText = (docs: unknown[]) => docs.map((d) => JSON.stringify(d)).join('\n---\n');

describe('proto3 JSON names (lowerCamelCase, issue #24 item 9)', () => {
  it('the example in camelCase throughout imports to the same YAML as its snake_case twin', async () => {
    const camel = exampleDocs.map((d) => camelize(d, () => true));
    const text = asText(camel);
    expect(text).toContain('"staticResources"');
    expect(text).toContain('"retryPolicy"');
    expect(text).toContain('"perTryTimeout"');
    expect(text).toContain('"circuitBreakers"');
    expect(text).toContain('"socketAddress"');
    expect(await imported(text)).toEqual(await imported(asText(exampleDocs)));
  });

  it('any mix of spellings, one per message, imports the same (property)', async () => {
    const twin = await imported(asText(exampleDocs));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), async (bits) => {
        let i = 0;
        const docs = exampleDocs.map((d) => camelize(d, () => bits[i++ % bits.length] as boolean));
        expect(await imported(asText(docs))).toEqual(twin);
      }),
      { numRuns: 25 },
    );
  });

  it('reads the retry budget, outlier detection and consecutive5xx by their JSON names', async () => {
    const cluster = {
      name: 'b',
      lbPolicy: 'RANDOM',
      outlierDetection: { consecutive5xx: 4, baseEjectionTime: '10s', maxEjectionPercent: 50 },
      circuitBreakers: {
        thresholds: [{ maxRetries: 5, retryBudget: { budgetPercent: { value: 25 }, minRetryConcurrency: 2 } }],
      },
    };
    const snake = {
      name: 'b',
      lb_policy: 'RANDOM',
      outlier_detection: { consecutive_5xx: 4, base_ejection_time: '10s', max_ejection_percent: 50 },
      circuit_breakers: {
        thresholds: [{ max_retries: 5, retry_budget: { budget_percent: { value: 25 }, min_retry_concurrency: 2 } }],
      },
    };
    const camelRead = await imported(JSON.stringify(cluster));
    expect(camelRead).toEqual(await imported(JSON.stringify(snake)));
    expect(camelRead.edges[0]).toMatchObject({ outlierDetection: { consecutive5xx: 4, baseEjectionTime: '10s' } });
  });

  it('refuses a field written in both spellings in one message, naming its path', async () => {
    const text = JSON.stringify({
      virtual_hosts: [
        {
          name: 'v',
          domains: ['*'],
          routes: [
            { match: { prefix: '/' }, route: { cluster: 'b', retry_policy: {}, retryPolicy: { numRetries: 1 } } },
          ],
        },
      ],
    });
    expect(await problems(text)).toContain(
      'in.yaml: document 1.virtual_hosts[0].routes[0].route.retryPolicy: retry_policy is written twice, as retry_policy and retryPolicy (its proto and JSON names); write it once',
    );
  });

  it('renames field names only: map keys, header names, cluster names and @type stay as written', () => {
    const value = {
      '@type': 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
      name: 'routeConfigName',
      typedPerFilterConfig: { 'envoy.filters.http.my_filter': { some_key: 1 } },
      virtualHosts: [
        {
          name: 'virtual_host_name',
          metadata: { filter_metadata: { 'my.filter': { camelKey: 1, snake_key: 2 } } },
          routes: [
            {
              match: { prefix: '/', headers: [{ name: 'x_my_header', exactMatch: 'retryPolicy' }] },
              route: { cluster: 'outbound|80||some_host.ns' },
            },
          ],
        },
      ],
    };
    const out = normalizeEnvoyDoc(value, 'routes', 'in.yaml', 'document 1', []);
    expect(out).toEqual({
      '@type': 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
      name: 'routeConfigName',
      typed_per_filter_config: { 'envoy.filters.http.my_filter': { some_key: 1 } },
      virtual_hosts: [
        {
          name: 'virtual_host_name',
          metadata: { filter_metadata: { 'my.filter': { camelKey: 1, snake_key: 2 } } },
          routes: [
            {
              match: { prefix: '/', headers: [{ name: 'x_my_header', exact_match: 'retryPolicy' }] },
              route: { cluster: 'outbound|80||some_host.ns' },
            },
          ],
        },
      ],
    });
  });

  it('a name that is no field in either spelling is still refused by the schema, with a suggestion', async () => {
    const lines = await problems(JSON.stringify({ name: 'b', connectTimeout: '1s', lbPolicyy: 'RANDOM' }));
    expect(lines).toEqual([expect.stringMatching(/^in\.yaml: document 1\.lbPolicyy: unknown field/)]);
  });
});
