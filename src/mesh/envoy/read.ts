// Reads Envoy configs (bootstraps, RouteConfigurations, Clusters, xDS-style resource lists) into the neutral model.

import type { z } from 'zod';
import type { MeshWarning } from '../errors.js';
import { carriesNonIdempotent, type HostMap, type MeshEdge, type MeshRead, type MeshServiceLimits } from '../model.js';
import { hasUnsafeConditions, retryOnSemantics } from '../retry-on.js';
import { fieldsAt, issueLines } from '../schema-kit.js';
import type { YamlDoc } from '../yaml-io.js';
import { readConfigDump } from './config-dump.js';
import { bootstrapRouteNotes, type Located, listenerRoutes } from './listeners.js';
import { envoyDocKind, normalizeEnvoyDoc } from './normalize.js';
import { clusterToEdgePolicy, retryFromEnvoy } from './policy.js';
import {
  bootstrapSchema,
  clusterSchema,
  type EnvoyCluster,
  type EnvoyRoute,
  type EnvoyRouteConfiguration,
  nodeSchema,
  routeConfigurationSchema,
} from './schema.js';

const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const ROUTES_TYPE = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';
/** A limit this large (Istio's int32 maximum and above) is the mesh's way of writing "none". */
export const UNBOUNDED = 2_147_483_647;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Is this YAML document an Envoy config (rather than a Kubernetes resource), in either spelling of its fields? */
export function looksLikeEnvoy(value: unknown): boolean {
  return envoyDocKind(value) !== undefined;
}

interface Scope {
  caller: string | null;
  clusters: Map<string, { cluster: EnvoyCluster; path: string }>;
  routes: { config: EnvoyRouteConfiguration; path: string }[];
}

function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: string,
  path: string,
  problems: string[],
): z.output<S> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  problems.push(...issueLines(result.error.issues as never, source, path, (p) => fieldsAt(schema, p)));
  return undefined;
}

/** Route configs inside a listener's HTTP connection managers (listeners.ts); an RDS or SRDS reference is a note. */
function listenerRouteConfigs(
  listener: unknown,
  path: string,
  source: string,
  problems: string[],
  warnings: MeshWarning[],
): Located[] {
  const found = listenerRoutes(listener, path, source, problems);
  warnings.push(...bootstrapRouteNotes(found));
  return found.inline;
}

/** An admin /config_dump (config-dump.ts) as one proxy's scope: its node's service calls through its routes. */
function dumpScope(
  value: Record<string, unknown>,
  at: string,
  source: string,
  hosts: HostMap,
  problems: string[],
  warnings: MeshWarning[],
): Scope | undefined {
  const dump = readConfigDump(value, source, at, problems, warnings);
  if (dump === undefined) return undefined;
  const node = dump.node && parseWith(nodeSchema, dump.node.value, source, dump.node.path, problems);
  const caller = node?.cluster !== undefined ? (hosts.service(node.cluster) ?? null) : null;
  const scope: Scope = { caller, clusters: new Map(), routes: [] };
  for (const c of dump.clusters) {
    const cluster = parseWith(clusterSchema, c.value, source, c.path, problems);
    if (cluster !== undefined) scope.clusters.set(cluster.name as string, { cluster, path: c.path });
  }
  for (const r of dump.routes) {
    const config = parseWith(routeConfigurationSchema, r.value, source, r.path, problems);
    if (config !== undefined) scope.routes.push({ config, path: r.path });
  }
  return scope;
}

function readDoc(
  doc: YamlDoc,
  source: string,
  hosts: HostMap,
  global: Scope,
  problems: string[],
  warnings: MeshWarning[],
): Scope | undefined {
  const at = `document ${doc.index + 1}`;
  const kind = envoyDocKind(doc.value);
  if (kind === undefined) return undefined;
  // camelCase names as snake_case, single values as lists of one (normalize.ts): the rest reads proto names only.
  const value = normalizeEnvoyDoc(doc.value as Record<string, unknown>, kind, source, at, problems);
  if (kind === 'config_dump') return dumpScope(value, at, source, hosts, problems, warnings);
  if ('static_resources' in value || 'node' in value) {
    const boot = parseWith(bootstrapSchema, value, source, at, problems);
    if (boot === undefined) return undefined;
    const caller = boot.node?.cluster !== undefined ? (hosts.service(boot.node.cluster) ?? null) : null;
    const scope: Scope = { caller, clusters: new Map(), routes: [] };
    (boot.static_resources?.clusters ?? []).forEach((cluster, i) => {
      scope.clusters.set(cluster.name as string, { cluster, path: `${at}.static_resources.clusters[${i}]` });
    });
    (boot.static_resources?.listeners ?? []).forEach((listener, i) => {
      for (const rc of listenerRouteConfigs(
        listener,
        `${at}.static_resources.listeners[${i}]`,
        source,
        problems,
        warnings,
      )) {
        const config = parseWith(routeConfigurationSchema, rc.value, source, rc.path, problems);
        if (config !== undefined) scope.routes.push({ config, path: rc.path });
      }
    });
    return scope;
  }
  const items: { value: unknown; path: string }[] =
    'resources' in value
      ? Array.isArray(value.resources)
        ? value.resources.map((r, i) => ({ value: r, path: `${at}.resources[${i}]` }))
        : []
      : [{ value, path: at }];
  if ('resources' in value && !Array.isArray(value.resources))
    problems.push(`${source}: ${at}.resources: must be a list`);
  for (const item of items) {
    const v = item.value;
    const type = isRecord(v) ? v['@type'] : undefined;
    const body =
      isRecord(v) && type !== undefined ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== '@type')) : v;
    if (type === ROUTES_TYPE || (type === undefined && isRecord(v) && 'virtual_hosts' in v)) {
      const config = parseWith(routeConfigurationSchema, body, source, item.path, problems);
      if (config !== undefined) global.routes.push({ config, path: item.path });
    } else if (type === CLUSTER_TYPE || (type === undefined && isRecord(v) && 'name' in v)) {
      const cluster = parseWith(clusterSchema, body, source, item.path, problems);
      if (cluster !== undefined) global.clusters.set(cluster.name as string, { cluster, path: item.path });
    } else {
      problems.push(
        `${source}: ${item.path}: not an Envoy Cluster or RouteConfiguration${typeof type === 'string' ? ` (@type ${type})` : ''}`,
      );
    }
  }
  return undefined;
}

/** The HTTP methods a route matches, from a `:method` header matcher; 'any' without one. */
function routeMethods(route: EnvoyRoute): 'any' | string[] {
  for (const h of route.match?.headers ?? []) {
    if (h.name !== ':method' || h.invert_match === true) continue;
    const exact = h.exact_match ?? h.string_match?.exact;
    if (exact !== undefined) return [exact.toUpperCase()];
    const regex = h.safe_regex_match?.regex ?? h.string_match?.safe_regex?.regex;
    const m = regex !== undefined ? /^\^?\(?([A-Za-z|]+)\)?\$?$/.exec(regex) : null;
    if (m) return (m[1] as string).split('|').map((x) => x.toUpperCase());
  }
  return 'any';
}

/** The clusters a route sends to, each with its share of the route's requests (1 without weighted_clusters). */
function callees(route: EnvoyRoute): { name: string; weight: number }[] {
  const action = route.route;
  if (action === undefined) return [];
  if (action.cluster !== undefined) return [{ name: action.cluster, weight: 1 }];
  const named = (action.weighted_clusters?.clusters ?? []).filter((c) => c.name !== undefined);
  const total = named.reduce((sum, c) => sum + (c.weight ?? 0), 0);
  return named.map((c) => ({
    name: c.name as string,
    weight: total > 0 ? (c.weight ?? 0) / total : 1 / named.length,
  }));
}

/** Fields of a route (or its virtual host) Seawall does not model, said once each: nothing is dropped unsaid. */
function reportUnmodelled(
  route: EnvoyRoute,
  vh: { hedge_policy?: unknown; request_mirror_policies?: unknown },
  where: string,
  warnings: MeshWarning[],
): void {
  const warn = (field: string, message: string) => warnings.push({ kind: 'dropped', where, field, message });
  const action = route.route as
    | { hedge_policy?: unknown; request_mirror_policies?: unknown; idle_timeout?: unknown }
    | undefined;
  // @ko mesh-envoy-reports-hedge-mirror-idle
  if (action?.hedge_policy !== undefined || vh.hedge_policy !== undefined)
    warn('hedging', 'hedge_policy: Seawall sends no hedged requests (one attempt at a time); not mapped');
  if (action?.request_mirror_policies !== undefined || vh.request_mirror_policies !== undefined)
    warn(
      'mirror',
      'request_mirror_policies: Envoy sends a copy of each request and ignores its answer; the extra load at the mirror is not modelled',
    );
  if (action?.idle_timeout !== undefined)
    warn(
      'deadline',
      'idle_timeout (a stream with no activity for that long is reset): Seawall has no idle timer; not mapped',
    );
}

/** The first endpoint's hostname of a cluster's load_assignment, when it is a name rather than an IP address. */
function endpointHost(cluster: EnvoyCluster): string | undefined {
  const la = cluster.load_assignment as
    | { endpoints?: { lb_endpoints?: { endpoint?: { address?: { socket_address?: { address?: unknown } } } }[] }[] }
    | undefined;
  const address = la?.endpoints?.[0]?.lb_endpoints?.[0]?.endpoint?.address?.socket_address?.address;
  return typeof address === 'string' && /[a-z]/i.test(address) && address !== 'localhost' ? address : undefined;
}

/** --map or Istio's outbound|port|subset|host name first, then the cluster's endpoint hostname, then its name. */
function serviceOfCluster(
  name: string,
  found: { cluster: EnvoyCluster } | undefined,
  hosts: HostMap,
): string | undefined {
  const host =
    found !== undefined && !hosts.isExplicit(name) && !name.startsWith('outbound|')
      ? endpointHost(found.cluster)
      : undefined;
  return hosts.service(host ?? name);
}

function inboundService(name: string, caller: string | null, hosts: HostMap): string | null | undefined {
  if (!name.startsWith('inbound|')) return undefined;
  const host = name.split('|')[3] ?? '';
  return host !== '' ? (hosts.service(host) ?? null) : caller;
}

/** Reads every Envoy document of a file into edges (caller-side policy) and service limits (inbound clusters). */
interface RouteUse {
  to: string;
  where: string;
  path: string;
  retry: Record<string, unknown>;
  methods: 'any' | string[];
  found: { cluster: EnvoyCluster } | undefined;
}

/** One edge from every route that leads to the same callee: the first route carrying GET decides the policy. */
function edgeOf(uses: readonly RouteUse[], caller: string | null, source: string, warnings: MeshWarning[]): MeshEdge {
  const primary = uses.find((u) => u.methods === 'any' || u.methods.includes('GET')) ?? (uses[0] as RouteUse);
  for (const other of uses) {
    if (other !== primary && (other.methods === 'any' || other.methods.includes('GET'))) {
      warnings.push({
        kind: 'note',
        where: primary.where,
        field: 'retry',
        message: `several routes carry GET to ${primary.to}; ${primary.path} is used, ${other.path} is not`,
      });
    }
  }
  const retry = { ...primary.retry };
  const rest = primary.found ? clusterToEdgePolicy(primary.found.cluster, primary.where, warnings) : {};
  let unsafeReplay: MeshEdge['unsafeReplay'] = 'none';
  for (const use of uses) {
    const retries = (use.retry.maxAttempts as number) > 1;
    if (!retries || !carriesNonIdempotent(use.methods)) continue;
    if (!hasUnsafeConditions(retryOnSemantics((use.retry.retryOn as unknown[]) ?? []))) continue;
    unsafeReplay = use.methods === 'any' ? 'all-methods' : unsafeReplay === 'all-methods' ? unsafeReplay : 'explicit';
  }
  // Envoy replays any method; so does the imported policy when some route replays a write on an unsafe condition.
  if (unsafeReplay !== 'none') retry.retryNonIdempotent = true;
  return { from: caller, to: primary.to, source: `${source}: ${primary.path}`, retry, ...rest, unsafeReplay };
}

/** Reads every Envoy document of a file into edges (caller-side policy) and service limits (inbound clusters). */
export function readEnvoy(docs: readonly YamlDoc[], source: string, hosts: HostMap, problems: string[]): MeshRead {
  const warnings: MeshWarning[] = [];
  const global: Scope = { caller: null, clusters: new Map(), routes: [] };
  const scopes: Scope[] = [];
  for (const doc of docs) {
    const scope = readDoc(doc, source, hosts, global, problems, warnings);
    if (scope !== undefined) scopes.push(scope);
  }
  scopes.push(global);
  const edges: MeshEdge[] = [];
  const services: MeshServiceLimits[] = [];
  const routedGlobal = new Set<string>();
  for (const scope of scopes) {
    const used = new Set<string>();
    const uses = new Map<string, RouteUse[]>();
    for (const { config, path } of scope.routes) {
      (config.virtual_hosts ?? []).forEach((vh, v) => {
        (vh.routes ?? []).forEach((route, r) => {
          const routePath = `${path}.virtual_hosts[${v}].routes[${r}]`;
          const targets = new Map<string, { weight: number; cluster: string; best: number }>();
          for (const { name, weight } of callees(route)) {
            used.add(name);
            if (!scope.clusters.has(name)) routedGlobal.add(name);
            const to = serviceOfCluster(name, scope.clusters.get(name) ?? global.clusters.get(name), hosts);
            if (to === undefined) continue;
            const t = targets.get(to) ?? { weight: 0, cluster: name, best: -1 };
            t.weight += weight;
            if (weight > t.best) Object.assign(t, { cluster: name, best: weight });
            targets.set(to, t);
          }
          // A weighted split sends each request to one cluster; Seawall's calls go with every request, so the
          // split is modelled as all of the route's traffic to its largest share, and the rest is reported.
          // @ko mesh-envoy-weighted-split-not-sequential
          const ranked = [...targets].sort((x, y) => y[1].weight - x[1].weight);
          const chosen = ranked[0];
          if (chosen === undefined) return;
          const [to, target] = chosen;
          const where = `${scope.caller ?? '*'} -> ${to}`;
          if (ranked.length > 1) {
            const shares = ranked.map(([name, t]) => `${name} ${Math.round(t.weight * 100)} %`).join(', ');
            warnings.push({
              kind: 'changed',
              where,
              field: 'calls',
              message: `${routePath}.route.weighted_clusters splits requests (${shares}); Seawall has no split, so all of them go to ${to}, the largest share; ${ranked
                .slice(1)
                .map(([name]) => name)
                .join(', ')} not mapped from this route`,
            });
          }
          reportUnmodelled(route, vh as never, where, warnings);
          const found = scope.clusters.get(target.cluster) ?? global.clusters.get(target.cluster);
          const policy = route.route?.retry_policy ?? vh.retry_policy;
          const retry = retryFromEnvoy(
            policy,
            route.route?.timeout,
            where,
            `${routePath}.route.retry_policy`,
            warnings,
            problems,
          );
          const list = uses.get(to) ?? [];
          list.push({ to, where, path: routePath, retry, methods: routeMethods(route), found });
          uses.set(to, list);
        });
      });
    }
    for (const list of uses.values()) edges.push(edgeOf(list, scope.caller, source, warnings));
    for (const [name, { cluster, path }] of scope.clusters) {
      const inbound = inboundService(name, scope.caller, hosts);
      if (inbound !== undefined) {
        if (inbound === null) {
          problems.push(`${source}: ${path}: inbound cluster ${name}: no node.cluster says whose it is`);
          continue;
        }
        const t = cluster.circuit_breakers?.thresholds?.find((x) => (x.priority ?? 'DEFAULT') === 'DEFAULT');
        const limits: MeshServiceLimits = { name: inbound, source: `${source}: ${path}` };
        const workers = t?.max_requests ?? t?.max_connections;
        if (workers !== undefined && workers < UNBOUNDED) limits.workers = workers;
        if (t?.max_pending_requests !== undefined && t.max_pending_requests < UNBOUNDED)
          limits.queueLimit = t.max_pending_requests;
        services.push(limits);
        continue;
      }
      if (used.has(name) || (scope === global && routedGlobal.has(name))) continue;
      // A cluster no route leads to: its limits and outlier detection apply to every call to it.
      const to = serviceOfCluster(name, { cluster }, hosts);
      if (to === undefined) continue;
      const where = `${scope.caller ?? '*'} -> ${to}`;
      if (edges.some((e) => e.from === scope.caller && e.to === to)) {
        // Another cluster of the same service (an Istio subset cluster, say) carries the routed calls.
        warnings.push({
          kind: 'dropped',
          where,
          field: 'calls',
          message: `cluster ${name} is ${to} too, but no route in this file leads to it; the routed cluster's settings are used, its own are not mapped`,
        });
        continue;
      }
      const blocks = clusterToEdgePolicy(cluster, where, warnings);
      // Envoy keeps retry policies on routes, not clusters: a request that reaches this cluster without a route
      // that retries is sent once.
      warnings.push({
        kind: 'note',
        where,
        field: 'maxAttempts',
        message: `no route in this file leads to cluster ${name}: one attempt, as Envoy sends a request whose route has no retry_policy (import the routes too if they retry)`,
      });
      edges.push({
        from: scope.caller,
        to,
        source: `${source}: ${path}`,
        retry: { maxAttempts: 1 }, // @ko mesh-envoy-unrouted-cluster-one-attempt
        ...blocks,
        unsafeReplay: 'none',
      });
    }
  }
  return { edges, services, warnings, unmapped: [...hosts.unmapped] };
}
