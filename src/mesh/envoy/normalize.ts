// Envoy input read as Envoy's own loader reads it: proto3 JSON names as field names, a single value as a list of one.
//
// Envoy turns YAML into JSON and hands it to protobuf's JSON parser (MessageUtil::loadFromYaml -> JsonStringToMessage).
// That parser finds a field by its name or its json_name (lowerCamelCase, as go-control-plane and Kuma write), and
// runs with allow_legacy_syntax, under which a single element stands for an array of one (protobuf's
// src/google/protobuf/json/internal/parser.cc, ParseField; json.cc sets the option). The walk is guided by the
// messages Seawall reads: their zod schemas (schema.ts) and, for the messages only walked (listeners, the HTTP
// connection manager, load assignments, the admin config dump), the small tables below. Only field names are renamed:
// values of fields not described here (metadata, typed_per_filter_config, any map) are left as written. A field
// written in both spellings in one message is refused (protobuf's legacy mode would keep one of them, silently).

import type { z } from 'zod';
import { bootstrapSchema, clusterSchema, nodeSchema, routeConfigurationSchema } from './schema.js';

/** What a field holds: a list or not, and the message (or an Any, resolved by its @type) to walk inside. */
interface Field {
  repeated: boolean;
  of?: Message | 'any' | undefined;
}

/** A message's fields by proto name, and the proto name of each json_name. */
export interface Message {
  fields: Map<string, Field>;
  byJson: Map<string, string>;
}

/** protobuf's json_name: each '_' dropped and the character after it upper-cased. */
export function jsonName(field: string): string {
  return field.replace(/_(.)/g, (_m, c: string) => c.toUpperCase()).replace(/_$/, '');
}

function message(fields: Record<string, Field>): Message {
  const map = new Map(Object.entries(fields));
  const byJson = new Map<string, string>();
  for (const name of map.keys()) if (jsonName(name) !== name) byJson.set(jsonName(name), name);
  return { fields: map, byJson };
}

const leaf: Field = { repeated: false };
const one = (of: Message | 'any'): Field => ({ repeated: false, of });
const many = (of?: Message | 'any'): Field => ({ repeated: true, of });
/** Fields Seawall neither reads nor walks: only their names are recognised. */
const leaves = (...names: string[]): Record<string, Field> => Object.fromEntries(names.map((n) => [n, leaf]));

type Def = { type?: string; innerType?: unknown; in?: unknown; element?: unknown; shape?: Record<string, unknown> };

function unwrap(node: unknown): { def?: Def; shape?: Record<string, unknown> } | undefined {
  let current = node as { def?: Def; shape?: Record<string, unknown> } | undefined;
  for (let i = 0; i < 8 && current?.def; i++) {
    const def = current.def;
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') current = def.innerType as never;
    else if (def.type === 'pipe') current = def.in as never;
    else break;
  }
  return current;
}

/** The message a strict zod object schema describes (its every field; lists and nested objects followed). */
function fromZod(schema: z.ZodType): Message {
  const shape = unwrap(schema)?.shape ?? {};
  const fields: Record<string, Field> = {};
  for (const [name, value] of Object.entries(shape)) {
    const node = unwrap(value);
    if (node?.def?.type === 'array') {
      const element = unwrap(node.def.element);
      fields[name] = many(element?.def?.type === 'object' ? fromZod(element as never) : undefined);
    } else if (node?.def?.type === 'object') fields[name] = one(fromZod(node as never));
    else fields[name] = leaf;
  }
  return message(fields);
}

/** `base` with some of its fields described further (a field the schema leaves unchecked but Seawall reads). */
function extend(base: Message, fields: Record<string, Field>): Message {
  const all: Record<string, Field> = Object.fromEntries(base.fields);
  return message({ ...all, ...fields });
}

// envoy.config.core.v3 SocketAddress, Address; envoy.config.endpoint.v3 Endpoint, LbEndpoint, LocalityLbEndpoints,
// ClusterLoadAssignment: the path to an endpoint's hostname (read.ts endpointHost).
const SOCKET_ADDRESS = message(
  leaves('protocol', 'address', 'port_value', 'named_port', 'resolver_name', 'ipv4_compat'),
);
const ADDRESS = message({ ...leaves('pipe', 'envoy_internal_address'), socket_address: one(SOCKET_ADDRESS) });
const ENDPOINT = message({
  ...leaves('health_check_config', 'hostname', 'additional_addresses'),
  address: one(ADDRESS),
});
const LB_ENDPOINT = message({
  ...leaves('endpoint_name', 'health_status', 'metadata', 'load_balancing_weight'),
  endpoint: one(ENDPOINT),
});
const LOCALITY_LB_ENDPOINTS = message({
  ...leaves('locality', 'metadata', 'leds_cluster_locality_config', 'load_balancing_weight', 'priority', 'proximity'),
  lb_endpoints: many(LB_ENDPOINT),
});
const LOAD_ASSIGNMENT = message({
  ...leaves('cluster_name', 'named_endpoints', 'policy'),
  endpoints: many(LOCALITY_LB_ENDPOINTS),
});

const ROUTE_CONFIGURATION = fromZod(routeConfigurationSchema);
const CLUSTER = extend(fromZod(clusterSchema), { load_assignment: one(LOAD_ASSIGNMENT) });

// envoy.extensions.filters.network.http_connection_manager.v3: Rds, HttpConnectionManager (the fields read here).
const RDS = message(leaves('config_source', 'route_config_name'));
const HCM = message({
  ...leaves('codec_type', 'stat_prefix', 'scoped_routes', 'http_filters', 'tracing', 'common_http_protocol_options'),
  rds: one(RDS),
  route_config: one(ROUTE_CONFIGURATION),
});
// envoy.config.listener.v3: Filter, FilterChain, Listener (the fields read here).
const FILTER = message({ ...leaves('name', 'config_discovery'), typed_config: one('any') });
const FILTER_CHAIN = message({
  ...leaves('filter_chain_match', 'transport_socket', 'transport_socket_connect_timeout', 'metadata', 'name'),
  filters: many(FILTER),
});
const LISTENER = message({
  ...leaves('name', 'address', 'additional_addresses', 'stat_prefix', 'listener_filters', 'traffic_direction'),
  ...leaves('use_original_dst', 'bind_to_port', 'per_connection_buffer_limit_bytes', 'metadata', 'api_listener'),
  filter_chains: many(FILTER_CHAIN),
  default_filter_chain: one(FILTER_CHAIN),
});

const bootstrapBase = fromZod(bootstrapSchema);
const staticBase = bootstrapBase.fields.get('static_resources')?.of as Message;
const STATIC_RESOURCES = extend(staticBase, { listeners: many(LISTENER), clusters: many(CLUSTER) });
const BOOTSTRAP = extend(bootstrapBase, { node: one(fromZod(nodeSchema)), static_resources: one(STATIC_RESOURCES) });

/** An xDS DiscoveryResponse-like list of resources, each an Any. */
const RESOURCES = message({
  ...leaves('version_info', 'canary', 'type_url', 'nonce', 'control_plane'),
  resources: many('any'),
});

// envoy.admin.v3 (config_dump.proto, config_dump_shared.proto): the dumps and their entries.
const STATE = leaves('version_info', 'last_updated', 'error_state', 'client_status');
const STATIC_CLUSTER = message({ ...STATE, cluster: one('any') });
const STATIC_LISTENER = message({ ...STATE, listener: one('any') });
const LISTENER_STATE = message({ ...STATE, listener: one('any') });
const DYNAMIC_LISTENER = message({
  ...leaves('name', 'error_state', 'client_status'),
  active_state: one(LISTENER_STATE),
  warming_state: one(LISTENER_STATE),
  draining_state: one(LISTENER_STATE),
});
const ROUTE_ENTRY = message({ ...STATE, route_config: one('any') });
const ADMIN = 'type.googleapis.com/envoy.admin.v3.';

/** The types an Any is walked as, by its @type. */
const ANY: ReadonlyMap<string, Message> = new Map([
  ['type.googleapis.com/envoy.config.cluster.v3.Cluster', CLUSTER],
  ['type.googleapis.com/envoy.config.route.v3.RouteConfiguration', ROUTE_CONFIGURATION],
  ['type.googleapis.com/envoy.config.listener.v3.Listener', LISTENER],
  ['type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager', HCM],
  [`${ADMIN}BootstrapConfigDump`, message({ ...leaves('last_updated'), bootstrap: one(BOOTSTRAP) })],
  [
    `${ADMIN}ClustersConfigDump`,
    message({
      ...leaves('version_info'),
      static_clusters: many(STATIC_CLUSTER),
      dynamic_active_clusters: many(STATIC_CLUSTER),
      dynamic_warming_clusters: many(STATIC_CLUSTER),
    }),
  ],
  [
    `${ADMIN}ListenersConfigDump`,
    message({
      ...leaves('version_info'),
      static_listeners: many(STATIC_LISTENER),
      dynamic_listeners: many(DYNAMIC_LISTENER),
    }),
  ],
  [
    `${ADMIN}RoutesConfigDump`,
    message({ static_route_configs: many(ROUTE_ENTRY), dynamic_route_configs: many(ROUTE_ENTRY) }),
  ],
  // What `/config_dump?resource=...` lists: the entries of one repeated field, each an Any of its own.
  [`${ADMIN}ClustersConfigDump.StaticCluster`, STATIC_CLUSTER],
  [`${ADMIN}ClustersConfigDump.DynamicCluster`, STATIC_CLUSTER],
  [`${ADMIN}ListenersConfigDump.StaticListener`, STATIC_LISTENER],
  [`${ADMIN}ListenersConfigDump.DynamicListener`, DYNAMIC_LISTENER],
  [`${ADMIN}RoutesConfigDump.StaticRouteConfig`, ROUTE_ENTRY],
  [`${ADMIN}RoutesConfigDump.DynamicRouteConfig`, ROUTE_ENTRY],
]);
const CONFIG_DUMP = message({ configs: many('any') });

/** The hand-written tables by the proto message each stands for (test/mesh/envoy-normalize-protos.test.ts). */
export const WALKED: Readonly<Record<string, Message>> = {
  'envoy.config.core.v3.SocketAddress': SOCKET_ADDRESS,
  'envoy.config.core.v3.Address': ADDRESS,
  'envoy.config.endpoint.v3.Endpoint': ENDPOINT,
  'envoy.config.endpoint.v3.LbEndpoint': LB_ENDPOINT,
  'envoy.config.endpoint.v3.LocalityLbEndpoints': LOCALITY_LB_ENDPOINTS,
  'envoy.config.endpoint.v3.ClusterLoadAssignment': LOAD_ASSIGNMENT,
  'envoy.extensions.filters.network.http_connection_manager.v3.Rds': RDS,
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager': HCM,
  'envoy.config.listener.v3.Filter': FILTER,
  'envoy.config.listener.v3.FilterChain': FILTER_CHAIN,
  'envoy.config.listener.v3.Listener': LISTENER,
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function has(value: Record<string, unknown>, field: string): boolean {
  // @ko envoy-doc-kind-json-names
  return field in value || jsonName(field) in value;
}

const CLUSTER_HINTS = [
  'circuit_breakers',
  'outlier_detection',
  'connect_timeout',
  'load_assignment',
  'lb_policy',
  'type',
];

export type EnvoyDocKind = 'config_dump' | 'bootstrap' | 'resources' | 'routes' | 'cluster';

/** Which Envoy document this is, by its fields in either spelling; undefined when it is none. */
export function envoyDocKind(value: unknown): EnvoyDocKind | undefined {
  if (!isRecord(value) || 'apiVersion' in value || 'kind' in value) return undefined;
  if ('configs' in value) return 'config_dump';
  if (has(value, 'static_resources') || 'node' in value) return 'bootstrap';
  if ('resources' in value) return 'resources';
  if (has(value, 'virtual_hosts')) return 'routes';
  if ('name' in value && CLUSTER_HINTS.some((k) => has(value, k))) return 'cluster';
  const type = value['@type'];
  if (type === 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration') return 'routes';
  if (type === 'type.googleapis.com/envoy.config.cluster.v3.Cluster') return 'cluster';
  return undefined;
}

const ROOTS: Record<EnvoyDocKind, Message> = {
  config_dump: CONFIG_DUMP,
  bootstrap: BOOTSTRAP,
  resources: RESOURCES,
  routes: ROUTE_CONFIGURATION,
  cluster: CLUSTER,
};

interface Walk {
  source: string;
  problems: string[];
}

function walkAny(value: unknown, path: string, walk: Walk): unknown {
  if (!isRecord(value)) return value;
  const type = value['@type'];
  const shape = typeof type === 'string' ? ANY.get(type) : undefined;
  return shape === undefined ? value : walkMessage(value, shape, path, walk);
}

function walkValue(value: unknown, of: Message | 'any' | undefined, path: string, walk: Walk): unknown {
  if (of === undefined) return value;
  return of === 'any' ? walkAny(value, path, walk) : walkMessage(value, of, path, walk);
}

function walkField(value: unknown, field: Field, path: string, walk: Walk): unknown {
  if (!field.repeated) return walkValue(value, field.of, path, walk);
  if (value === null || value === undefined) return value;
  // protobuf's JSON parser under allow_legacy_syntax (Envoy's loader): one element in place of a list of one.
  // @ko envoy-single-as-list
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => walkValue(item, field.of, `${path}[${i}]`, walk));
}

function walkMessage(value: unknown, shape: Message, path: string, walk: Walk): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  const written = new Map<string, string>();
  for (const [key, v] of Object.entries(value)) {
    // @ko envoy-json-names
    const name = shape.fields.has(key) ? key : shape.byJson.get(key);
    if (name === undefined) {
      // Not a field of this message: kept as written, for the schema to name (or, in a message only walked, to skip).
      if (!(key in out)) out[key] = v;
      continue;
    }
    const first = written.get(name);
    // @ko envoy-json-names-twice
    if (first !== undefined) {
      walk.problems.push(
        `${walk.source}: ${path}.${key}: ${name} is written twice, as ${first} and ${key} (its proto and JSON names); write it once`,
      );
      continue;
    }
    written.set(name, key);
    const field = shape.fields.get(name) as Field;
    out[name] = walkField(v, field, `${path}.${name}`, walk);
  }
  return out;
}

/**
 * A document of `kind` with proto field names throughout the messages Seawall reads and single values read as lists
 * where lists are due. Problems (a field written in both spellings) go to `problems` with their paths.
 */
export function normalizeEnvoyDoc(
  value: Record<string, unknown>,
  kind: EnvoyDocKind,
  source: string,
  at: string,
  problems: string[],
): Record<string, unknown> {
  const walk: Walk = { source, problems };
  const type = value['@type'];
  const root = typeof type === 'string' && ANY.has(type) ? (ANY.get(type) as Message) : ROOTS[kind];
  return walkMessage(value, root, at, walk) as Record<string, unknown>;
}
