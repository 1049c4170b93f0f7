// Reads Istio VirtualService / DestinationRule / Sidecar documents into the neutral model.

import type { z } from 'zod';
import { UNBOUNDED } from '../envoy/read.js';
import type { MeshWarning } from '../errors.js';
import { carriesNonIdempotent, type HostMap, type MeshEdge, type MeshRead, type MeshServiceLimits } from '../model.js';
import { hasUnsafeConditions, retryOnSemantics } from '../retry-on.js';
import { fieldsAt, issueLines } from '../schema-kit.js';
import type { YamlDoc } from '../yaml-io.js';
import { ISTIO_KINDS, type IstioKind, istioVersion, validateIstioDocument } from './models.js';
import { blocksFromPolicy, effectivePolicy, retryFromIstio } from './policy.js';
import {
  destinationRuleSpecSchema,
  type IstioConnectionPool,
  type IstioDestinationRuleSpec,
  type IstioHttpRoute,
  sidecarSpecSchema,
  virtualServiceSpecSchema,
} from './schema.js';
import { gatewayOnly, reportIstioRoute, reportTrafficPolicy } from './unmodelled.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function looksLikeKubernetes(value: unknown): boolean {
  return isRecord(value) && ('apiVersion' in value || 'kind' in value);
}

/** The `app` label (or app.kubernetes.io/name) a selector names: the caller or service it stands for. */
function appOf(labels: Record<string, string> | undefined, hosts: HostMap): string | null {
  const app = labels?.app ?? labels?.['app.kubernetes.io/name'];
  return app === undefined ? null : (hosts.service(app) ?? null);
}

interface Parsed {
  kind: IstioKind;
  name: string;
  path: string;
  spec: Record<string, unknown>;
}

/** Said once per file when the optional peer dependency with Istio's published models is absent. */
const MODELS_MISSING =
  "checked against Seawall's schema of the fields it reads only: install @kubernetes-models/istio to also check Istio's published schema";

async function parseDoc(
  doc: YamlDoc,
  source: string,
  problems: string[],
  warnings: MeshWarning[],
): Promise<Parsed | undefined> {
  const value = doc.value as Record<string, unknown>;
  const at = `document ${doc.index + 1}`;
  const version = istioVersion(value.apiVersion);
  const kind = value.kind;
  if (version === undefined) {
    warnings.push({
      kind: 'dropped',
      where: '',
      field: 'document',
      message: `${at}: ${String(value.apiVersion)} ${String(kind)} is not an Istio networking resource; ignored`,
    });
    return undefined;
  }
  if (!(ISTIO_KINDS as readonly unknown[]).includes(kind)) {
    if (
      kind === 'Gateway' ||
      kind === 'ServiceEntry' ||
      kind === 'WorkloadEntry' ||
      kind === 'WorkloadGroup' ||
      kind === 'ProxyConfig'
    ) {
      warnings.push({
        kind: 'dropped',
        where: '',
        field: 'document',
        message: `${at}: ${String(kind)} carries no retry or limit settings; ignored`,
      });
    } else {
      problems.push(
        `${source}: ${at}: kind ${JSON.stringify(kind)} is not a ${value.apiVersion} kind Seawall reads (${ISTIO_KINDS.join(', ')})`,
      );
    }
    return undefined;
  }
  const name = isRecord(value.metadata) && typeof value.metadata.name === 'string' ? value.metadata.name : '(unnamed)';
  const label = `${at} (${kind} ${name})`;
  const modelProblems = await validateIstioDocument(version, kind as IstioKind, value);
  if (modelProblems === null) {
    if (!warnings.some((w) => w.message === MODELS_MISSING)) {
      warnings.push({ kind: 'note', where: '', field: 'validation', message: MODELS_MISSING });
    }
  } else problems.push(...modelProblems.map((line) => `${source}: ${label}: ${line}`));
  const schema =
    kind === 'VirtualService'
      ? virtualServiceSpecSchema
      : kind === 'DestinationRule'
        ? destinationRuleSpecSchema
        : sidecarSpecSchema;
  const result = (schema as z.ZodType).safeParse(value.spec ?? {});
  if (!result.success) {
    problems.push(
      ...issueLines(result.error.issues as never, `${source}: ${label}`, 'spec', (p) => fieldsAt(schema, p)),
    );
    return undefined;
  }
  return modelProblems !== null && modelProblems.length > 0
    ? undefined
    : { kind: kind as IstioKind, name, path: label, spec: result.data as Record<string, unknown> };
}

function routeMethods(route: IstioHttpRoute): 'any' | string[] {
  const matches = route.match ?? [];
  if (matches.length === 0) return 'any';
  const methods: string[] = [];
  for (const m of matches) {
    const sm = m.method;
    if (sm === undefined) return 'any';
    if (sm.exact !== undefined) methods.push(sm.exact.toUpperCase());
    else {
      const regex = /^\^?\(?([A-Za-z|]+)\)?\$?$/.exec(sm.regex ?? '');
      if (!regex) return 'any';
      methods.push(...(regex[1] as string).split('|').map((x) => x.toUpperCase()));
    }
  }
  return methods;
}

/**
 * Where a route sends its requests: one target per service. A weighted split across services sends each request to
 * one of them, and Seawall's calls go with every request, so the largest share stands for the route and the rest is
 * reported (never modelled as calls one after another). Within one service the heaviest subset's policy applies.
 */
function routeTargets(
  route: IstioHttpRoute,
  specHosts: readonly string[],
  hosts: HostMap,
  caller: string,
  path: string,
  warnings: MeshWarning[],
): { to: string; subset: string | undefined }[] {
  const destinations = (route.route ?? []).filter((d) => d.destination !== undefined);
  if (destinations.length === 0) {
    return specHosts
      .map((h) => ({ to: hosts.service(h), subset: undefined }))
      .filter((t): t is { to: string; subset: undefined } => t.to !== undefined);
  }
  const byService = new Map<string, { weight: number; subset: string | undefined; best: number }>();
  for (const d of destinations) {
    const to = hosts.service(d.destination?.host ?? '');
    if (to === undefined) continue;
    // Istio: a lone destination takes all traffic; otherwise an unset weight is 0.
    const weight = destinations.length === 1 ? 100 : (d.weight ?? 0);
    const t = byService.get(to) ?? { weight: 0, subset: d.destination?.subset, best: -1 };
    t.weight += weight;
    if (weight > t.best) Object.assign(t, { subset: d.destination?.subset, best: weight });
    byService.set(to, t);
  }
  // @ko mesh-istio-weighted-split-not-sequential
  const ranked = [...byService].sort((a, b) => b[1].weight - a[1].weight);
  const first = ranked[0];
  if (first === undefined) return [];
  if (ranked.length > 1) {
    warnings.push({
      kind: 'changed',
      where: `${caller} -> ${first[0]}`,
      field: 'calls',
      message: `${path}.route splits requests by weight (${ranked.map(([n, t]) => `${n} ${t.weight}`).join(', ')}); Seawall has no split, so all of them go to ${first[0]}, the largest share; ${ranked
        .slice(1)
        .map(([n]) => n)
        .join(', ')} not mapped from this route`,
    });
  }
  return [{ to: first[0], subset: first[1].subset }];
}

/** Reads Istio documents: VirtualService routes become edges, DestinationRules their limits, Sidecars callee limits. */
export async function readIstio(
  docs: readonly YamlDoc[],
  source: string,
  hosts: HostMap,
  problems: string[],
): Promise<MeshRead> {
  const warnings: MeshWarning[] = [];
  const parsed: Parsed[] = [];
  for (const doc of docs) {
    const p = await parseDoc(doc, source, problems, warnings);
    if (p !== undefined) parsed.push(p);
  }
  const rules = new Map<string, { caller: string | null; spec: IstioDestinationRuleSpec; path: string }[]>();
  const services: MeshServiceLimits[] = [];
  for (const p of parsed) {
    if (p.kind === 'DestinationRule') {
      const spec = p.spec as IstioDestinationRuleSpec;
      const to = hosts.service(spec.host ?? '');
      if (to === undefined) continue;
      const caller = appOf(spec.workloadSelector?.matchLabels, hosts);
      rules.set(to, [...(rules.get(to) ?? []), { caller, spec, path: p.path }]);
    } else if (p.kind === 'Sidecar') {
      const spec = p.spec as {
        workloadSelector?: { labels?: Record<string, string> };
        inboundConnectionPool?: IstioConnectionPool;
      };
      const pool = spec.inboundConnectionPool;
      if (pool === undefined) continue;
      const name = appOf(spec.workloadSelector?.labels, hosts);
      if (name === null) {
        problems.push(
          `${source}: ${p.path}: an inboundConnectionPool needs workloadSelector.labels.app to say whose it is`,
        );
        continue;
      }
      const limits: MeshServiceLimits = { name, source: `${source}: ${p.path}` };
      const workers = pool.http?.http2MaxRequests || pool.tcp?.maxConnections;
      if (workers && workers < UNBOUNDED) limits.workers = workers;
      const queue = pool.http?.http1MaxPendingRequests;
      if (queue && queue < UNBOUNDED) limits.queueLimit = queue;
      services.push(limits);
    }
  }
  const ruleFor = (to: string, caller: string | null) => {
    const list = rules.get(to) ?? [];
    return list.find((r) => r.caller === caller) ?? list.find((r) => r.caller === null);
  };
  const edges: MeshEdge[] = [];
  const seen = new Set<string>();
  const addEdge = (edge: MeshEdge, subset: string | undefined) => {
    const key = `${edge.from ?? ''}\u0000${edge.to}`;
    const existing = edges.find((e) => e.from === edge.from && e.to === edge.to);
    if (seen.has(key) && existing !== undefined) {
      if (edge.unsafeReplay !== 'none') {
        existing.unsafeReplay = existing.unsafeReplay === 'all-methods' ? 'all-methods' : edge.unsafeReplay;
        if (existing.retry !== null && (existing.retry.maxAttempts as number) > 1)
          existing.retry.retryNonIdempotent = true;
      } else {
        warnings.push({
          kind: 'note',
          where: `${edge.from ?? '*'} -> ${edge.to}`,
          field: 'retry',
          message: `${edge.source} is not the first route to ${edge.to}; the first is used`,
        });
      }
      return;
    }
    seen.add(key);
    const rule = ruleFor(edge.to, edge.from);
    const where = `${edge.from ?? '*'} -> ${edge.to}`;
    const policy = rule ? effectivePolicy(rule.spec, subset) : undefined;
    reportTrafficPolicy(policy as Record<string, unknown> | undefined, where, warnings);
    const blocks = blocksFromPolicy(policy, where, warnings);
    edges.push({ ...edge, ...blocks });
  };
  for (const p of parsed) {
    if (p.kind !== 'VirtualService') continue;
    const spec = p.spec as { hosts?: string[]; http?: IstioHttpRoute[]; gateways?: string[] };
    (spec.http ?? []).forEach((route, i) => {
      const path = `${p.path}: spec.http[${i}]`;
      const callers = new Set((route.match ?? []).map((m) => appOf(m.sourceLabels, hosts)));
      const from = callers.size === 1 ? ([...callers][0] as string | null) : null;
      const targets = routeTargets(route, spec.hosts ?? [], hosts, `${from ?? '*'}`, path, warnings);
      const gateways = gatewayOnly(spec.gateways, route as Record<string, unknown>);
      // @ko mesh-istio-gateway-only-not-mesh
      if (gateways !== null) {
        warnings.push({
          kind: 'dropped',
          where: `${from ?? '*'} -> ${targets.map((t) => t.to).join(', ') || '?'}`,
          field: 'gateways',
          message: `${path}: bound to gateway ${gateways.join(', ')} only (no "mesh"): it sets the gateway's retries, not those of callers inside the mesh; not mapped`,
        });
        return;
      }
      for (const t of targets)
        reportIstioRoute(route as Record<string, unknown>, `${from ?? '*'} -> ${t.to}`, warnings);
      for (const target of targets) {
        const to = target.to;
        const where = `${from ?? '*'} -> ${to}`;
        const retry = retryFromIstio(route, where, path, warnings, problems);
        const methods = routeMethods(route);
        const unsafe =
          (retry.maxAttempts as number) > 1 &&
          carriesNonIdempotent(methods) &&
          hasUnsafeConditions(retryOnSemantics((retry.retryOn as unknown[]) ?? []));
        if (unsafe) retry.retryNonIdempotent = true;
        const primary = methods === 'any' || methods.includes('GET');
        if (!primary && !unsafe) continue;
        addEdge(
          {
            from,
            to,
            source: `${source}: ${path}`,
            retry,
            unsafeReplay: unsafe ? (methods === 'any' ? 'all-methods' : 'explicit') : 'none',
          },
          target.subset,
        );
      }
    });
  }
  // A DestinationRule without a VirtualService: Istio still routes to the host, with its default retry policy.
  for (const [to, list] of rules) {
    for (const rule of list) {
      // A VirtualService for the host already carries the rule's settings to its routes.
      if (edges.some((e) => e.to === to && (rule.caller === null || e.from === rule.caller || e.from === null)))
        continue;
      const where = `${rule.caller ?? '*'} -> ${to}`;
      const retry = retryFromIstio({}, where, rule.path, warnings, problems);
      addEdge({ from: rule.caller, to, source: `${source}: ${rule.path}`, retry, unsafeReplay: 'none' }, undefined);
    }
  }
  return { edges, services, warnings, unmapped: [...hosts.unmapped] };
}
