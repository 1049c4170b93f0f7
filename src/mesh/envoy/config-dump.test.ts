// An Envoy admin /config_dump imported as the proxy it dumps (issue #24 item 9), or refused saying how to get one.
import { describe, expect, it } from 'vitest';
import { MeshError } from '../errors.js';
import { readMeshText } from '../import.js';
import { jsonName } from './normalize.js';

const T = 'type.googleapis.com/';
const A = `${T}envoy.admin.v3.`;
const HCM = `${T}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;

const coupon = {
  '@type': `${T}envoy.config.cluster.v3.Cluster`,
  name: 'outbound|8080||coupon-api.shop.svc.cluster.local',
  lb_policy: 'LEAST_REQUEST',
  circuit_breakers: { thresholds: [{ max_retries: 3 }] },
};
const routes = {
  '@type': `${T}envoy.config.route.v3.RouteConfiguration`,
  name: '8080',
  virtual_hosts: [
    {
      name: 'coupon',
      domains: ['coupon-api'],
      routes: [
        {
          match: { prefix: '/' },
          route: { cluster: coupon.name, timeout: '2s', retry_policy: { retry_on: '5xx', num_retries: 2 } },
        },
      ],
    },
  ],
};
const listener = (routeName: string) => ({
  '@type': `${T}envoy.config.listener.v3.Listener`,
  name: '0.0.0.0_8080',
  filter_chains: [
    { filters: [{ name: 'hcm', typed_config: { '@type': HCM, rds: { route_config_name: routeName } } }] },
  ],
});

function dump(routeName = '8080', extra: unknown[] = []): Record<string, unknown> {
  return {
    configs: [
      { '@type': `${A}BootstrapConfigDump`, bootstrap: { node: { id: 'sidecar~1', cluster: 'checkout-bff.shop' } } },
      {
        '@type': `${A}ClustersConfigDump`,
        static_clusters: [
          { cluster: { '@type': `${T}envoy.config.cluster.v3.Cluster`, name: 'xds-grpc', type: 'STATIC' } },
        ],
        dynamic_active_clusters: [{ version_info: '1', cluster: coupon }],
      },
      {
        '@type': `${A}ListenersConfigDump`,
        dynamic_listeners: [{ name: 'l', active_state: { listener: listener(routeName) } }],
      },
      { '@type': `${A}RoutesConfigDump`, dynamic_route_configs: [{ route_config: routes }] },
      ...extra,
    ],
  };
}

async function problems(text: string): Promise<string[]> {
  try {
    await readMeshText(text, 'dump.json');
  } catch (error) {
    if (error instanceof MeshError) return [...error.problems];
    throw error;
  }
  throw new Error('no error');
}

describe('an Envoy admin config_dump', () => {
  it("is read as its proxy's calls: the node gives the caller, RDS names resolve to the dump's route configs", async () => {
    const read = await readMeshText(JSON.stringify(dump()), 'dump.json');
    const edge = read.edges.find((e) => e.to === 'coupon-api');
    expect(edge).toMatchObject({
      from: 'checkout-bff',
      source: 'dump.json: document 1.configs[3].dynamic_route_configs[0].route_config.virtual_hosts[0].routes[0]',
      retry: { maxAttempts: 3 },
      loadBalancer: { kind: 'p2c' },
    });
    expect(read.warnings.filter((w) => w.field === 'config_dump')).toEqual([]);
  });

  it('notes the dumps it does not read (secrets, endpoints, scoped routes) rather than dropping them silently', async () => {
    const read = await readMeshText(
      JSON.stringify(dump('8080', [{ '@type': `${A}SecretsConfigDump`, dynamic_active_secrets: [] }])),
      'dump.json',
    );
    expect(read.warnings).toContainEqual({
      kind: 'note',
      where: '',
      field: 'config_dump',
      message: `document 1.configs[4] (@type ${A}SecretsConfigDump): not read (Seawall reads the node, clusters, listeners and route configurations)`,
    });
  });

  it('notes an RDS name the dump holds no route config for, saying how to dump the routes', async () => {
    const read = await readMeshText(JSON.stringify(dump('9090')), 'dump.json');
    expect(read.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(
        /^document 1\.configs\[2\]\.dynamic_listeners\[0\]\.active_state\.listener\.filter_chains\[0\]\.filters\[0\]\.typed_config\.rds: routes come from RDS \(route_config_name 9090\).*curl -s localhost:15000\/config_dump/,
      ),
    );
  });

  it('reads the entries `?resource=` lists, and a dump in proto3 JSON names', async () => {
    const entries = {
      configs: [
        { '@type': `${A}ClustersConfigDump.DynamicCluster`, cluster: coupon },
        { '@type': `${A}RoutesConfigDump.DynamicRouteConfig`, route_config: routes },
      ],
    };
    const whole = await readMeshText(JSON.stringify(dump()), 'dump.json');
    const parts = await readMeshText(JSON.stringify(entries), 'dump.json');
    expect(parts.edges.find((e) => e.to === 'coupon-api')).toMatchObject({ from: null, retry: { maxAttempts: 3 } });
    const camel = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(camel)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [jsonName(k), camel(x)]))
          : v;
    const camelRead = await readMeshText(JSON.stringify(camel(dump())), 'dump.json');
    expect(JSON.stringify(camel(dump()))).toContain('dynamicActiveClusters');
    expect(camelRead.edges).toEqual(whole.edges);
  });

  it('refuses a dump with nothing Seawall reads, saying how to get the parts it reads', async () => {
    const lines = await problems(JSON.stringify({ configs: [{ '@type': `${A}SecretsConfigDump` }] }));
    expect(lines).toEqual([
      expect.stringMatching(
        /^dump\.json: document 1: this config dump holds no cluster and no route configuration Seawall reads; dump the clusters, listeners and routes, e\.g\. `curl -s localhost:15000\/config_dump`.*`istioctl proxy-config all POD -o json`$/,
      ),
    ]);
  });

  it('refuses an unreadable part with its path and the same how-to', async () => {
    const broken = dump();
    (broken.configs as Record<string, unknown>[])[1] = {
      '@type': `${A}ClustersConfigDump`,
      dynamic_active_clusters: [{ cluster: { name: 'no-type' } }],
    };
    const lines = await problems(JSON.stringify(broken));
    expect(lines).toContain(
      `dump.json: document 1.configs[1].dynamic_active_clusters[0].cluster: must be an Any with @type ${T}envoy.config.cluster.v3.Cluster`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^dump\.json: document 1: the config dump is not read as it stands; .*curl/),
    );
    expect(await problems(JSON.stringify({ configs: [{ bootstrap: {} }] }))).toContain(
      'dump.json: document 1.configs[0]: must be an admin dump with an @type (envoy.admin.v3.*ConfigDump)',
    );
  });
});
