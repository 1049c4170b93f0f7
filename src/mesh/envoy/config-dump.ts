// An Envoy admin /config_dump (envoy.admin.v3.ConfigDump) as the parts Seawall reads: node, clusters, route configs.

import type { MeshWarning } from '../errors.js';
import { type Located, listenerRoutes } from './listeners.js';

const ADMIN = 'type.googleapis.com/envoy.admin.v3.';
const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const ROUTES_TYPE = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';
const LISTENER_TYPE = 'type.googleapis.com/envoy.config.listener.v3.Listener';

/** How to get a dump Seawall reads, for every refusal. */
export const DUMP_HOWTO =
  'dump the clusters, listeners and routes, e.g. `curl -s localhost:15000/config_dump` on the proxy ' +
  '(or `?resource=dynamic_active_clusters`, `?resource=dynamic_route_configs`, one file each), ' +
  'or `istioctl proxy-config all POD -o json`';

export interface DumpParts {
  /** The bootstrap's node (whose proxy this is), when the dump has a BootstrapConfigDump. */
  node: Located | undefined;
  clusters: Located[];
  routes: Located[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function entries(owner: Record<string, unknown>, field: string, path: string, bad: (l: string) => void): Located[] {
  const value = owner[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    bad(`${path}.${field}: must be a list`);
    return [];
  }
  return value.map((v, i) => ({ value: v, path: `${path}.${field}[${i}]` }));
}

interface Found {
  node?: Located;
  bootClusters: Located[];
  bootListeners: Located[];
  clusters?: Located[];
  listeners?: Located[];
  routes?: Located[];
}

/** The Any `field` of a dump entry, which must hold `type`; its body without the @type. */
function unpack(entry: Located, field: string, type: string, bad: (l: string) => void): Located | undefined {
  if (!isRecord(entry.value)) {
    bad(`${entry.path}: must be a mapping`);
    return undefined;
  }
  const value = entry.value[field];
  const path = `${entry.path}.${field}`;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || value['@type'] !== type) {
    bad(`${path}: must be an Any with @type ${type}`);
    return undefined;
  }
  const { '@type': _type, ...body } = value;
  return { value: body, path };
}

function dynamicListener(entry: Located, bad: (l: string) => void, note: (m: string) => void): Located | undefined {
  if (!isRecord(entry.value)) {
    bad(`${entry.path}: must be a mapping`);
    return undefined;
  }
  const active = entry.value.active_state;
  if (active === undefined || active === null) {
    const name = typeof entry.value.name === 'string' ? ` ${entry.value.name}` : '';
    note(`${entry.path}: listener${name} has no active_state (warming, draining or rejected); not read`);
    return undefined;
  }
  return unpack({ value: active, path: `${entry.path}.active_state` }, 'listener', LISTENER_TYPE, bad);
}

function add(list: Located[] | undefined, items: (Located | undefined)[]): Located[] {
  return [...(list ?? []), ...items.filter((x): x is Located => x !== undefined)];
}

/** One entry of `configs`: a whole dump of one kind, or (from `?resource=`) one entry of such a dump. */
function readEntry(c: Located, found: Found, bad: (l: string) => void, note: (m: string) => void): void {
  const v = c.value as Record<string, unknown>;
  const type = v['@type'] as string;
  const cluster = (e: Located) => unpack(e, 'cluster', CLUSTER_TYPE, bad);
  const route = (e: Located) => unpack(e, 'route_config', ROUTES_TYPE, bad);
  switch (type.startsWith(ADMIN) ? type.slice(ADMIN.length) : type) {
    case 'BootstrapConfigDump': {
      const boot = v.bootstrap;
      if (!isRecord(boot)) {
        bad(`${c.path}.bootstrap: must be a mapping (an Envoy Bootstrap)`);
        return;
      }
      if (boot.node !== undefined) found.node = { value: boot.node, path: `${c.path}.bootstrap.node` };
      const sr = boot.static_resources;
      if (isRecord(sr)) {
        const at = `${c.path}.bootstrap.static_resources`;
        found.bootClusters = entries(sr, 'clusters', at, bad);
        found.bootListeners = entries(sr, 'listeners', at, bad);
      }
      return;
    }
    case 'ClustersConfigDump': {
      const active = ['static_clusters', 'dynamic_active_clusters'].flatMap((f) => entries(v, f, c.path, bad));
      found.clusters = add(found.clusters, active.map(cluster));
      const warming = entries(v, 'dynamic_warming_clusters', c.path, bad);
      if (warming.length > 0) note(`${c.path}.dynamic_warming_clusters: ${warming.length} warming cluster(s) not read`);
      return;
    }
    case 'ClustersConfigDump.StaticCluster':
    case 'ClustersConfigDump.DynamicCluster':
      found.clusters = add(found.clusters, [cluster(c)]);
      return;
    case 'ListenersConfigDump': {
      const statics = entries(v, 'static_listeners', c.path, bad);
      const dynamics = entries(v, 'dynamic_listeners', c.path, bad);
      found.listeners = add(found.listeners, [
        ...statics.map((e) => unpack(e, 'listener', LISTENER_TYPE, bad)),
        ...dynamics.map((e) => dynamicListener(e, bad, note)),
      ]);
      return;
    }
    case 'ListenersConfigDump.StaticListener':
      found.listeners = add(found.listeners, [unpack(c, 'listener', LISTENER_TYPE, bad)]);
      return;
    case 'ListenersConfigDump.DynamicListener':
      found.listeners = add(found.listeners, [dynamicListener(c, bad, note)]);
      return;
    case 'RoutesConfigDump': {
      const all = ['static_route_configs', 'dynamic_route_configs'].flatMap((f) => entries(v, f, c.path, bad));
      found.routes = add(found.routes, all.map(route));
      return;
    }
    case 'RoutesConfigDump.StaticRouteConfig':
    case 'RoutesConfigDump.DynamicRouteConfig':
      found.routes = add(found.routes, [route(c)]);
      return;
    default:
      // Secrets, scoped routes, endpoints, extension configs: nothing Seawall maps.
      note(
        `${c.path} (@type ${type}): not read (Seawall reads the node, clusters, listeners and route configurations)`,
      );
  }
}

/**
 * The parts of a config dump Seawall reads. Route configs come from the RoutesConfigDump (it holds the listeners'
 * inline ones too) or, without one, from the listeners; an RDS name no route config answers is a note. Clusters and
 * listeners come from their dumps, or from the bootstrap's static_resources when the dump has none of them.
 * Undefined, with a problem saying how to get a readable dump, when nothing Seawall reads is in it.
 */
export function readConfigDump(
  dump: Record<string, unknown>,
  source: string,
  at: string,
  problems: string[],
  warnings: MeshWarning[],
): DumpParts | undefined {
  const before = problems.length;
  const bad = (line: string) => {
    problems.push(`${source}: ${line}`);
  };
  const note = (message: string) => warnings.push({ kind: 'note', where: '', field: 'config_dump', message });
  const found: Found = { bootClusters: [], bootListeners: [] };
  const configs = entries(dump, 'configs', at, bad);
  for (const c of configs) {
    const type = isRecord(c.value) ? c.value['@type'] : undefined;
    if (typeof type !== 'string') bad(`${c.path}: must be an admin dump with an @type (envoy.admin.v3.*ConfigDump)`);
    else readEntry(c, found, bad, note);
  }
  const clusters = found.clusters ?? found.bootClusters;
  const listeners = found.listeners ?? found.bootListeners;
  const inline: Located[] = [];
  const rds: { name: string; path: string }[] = [];
  for (const listener of listeners) {
    const routes = listenerRoutes(listener.value, listener.path, source, problems);
    inline.push(...routes.inline);
    rds.push(...routes.rds);
    for (const message of routes.unread) note(message);
  }
  // @ko envoy-config-dump-routes
  const routes = found.routes ?? inline;
  const names = new Set(routes.map((r) => (isRecord(r.value) ? r.value.name : undefined)));
  for (const ref of rds) {
    if (!names.has(ref.name))
      note(
        `${ref.path}: routes come from RDS (route_config_name ${ref.name}) and the dump holds no route config of that name; ${DUMP_HOWTO}`,
      );
  }
  if (problems.length > before) {
    problems.push(`${source}: ${at}: the config dump is not read as it stands; ${DUMP_HOWTO}`);
    return undefined;
  }
  if (clusters.length === 0 && routes.length === 0) {
    // @ko envoy-config-dump-refuses-empty
    bad(`${at}: this config dump holds no cluster and no route configuration Seawall reads; ${DUMP_HOWTO}`);
    return undefined;
  }
  if (found.node === undefined)
    note(`${at}: the dump has no BootstrapConfigDump (node.cluster), so its routes are read as any caller's`);
  return { node: found.node, clusters, routes };
}
