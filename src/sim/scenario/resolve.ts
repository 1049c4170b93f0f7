// Turns a schema-checked model into a ModelSpec: defaults, cross-references, the call graph, and policy validation.

import { type LoadShedderConfig, validateLoadShedderConfig } from '../../policy/admission/shed.js';
import type { ConfigIssue } from '../../policy/core/config-error.js';
import type { DistSpec } from '../model/distributions.js';
import { fromConfigIssues, resolveEdgeBlock, resolveEdges } from './edges.js';
import { joinKey, noServiceNamed, type Problem, requiredKeyMessage } from './errors.js';
import { isPlainObject, parseEdgeKey } from './merge.js';
import type { FaultInput, ModelInput, ServiceInput } from './schema.js';
import { SHED_KEYS, serviceSchema } from './schema.js';
import type { CallSpec, ErrorSpec, FaultSpec, ModelSpec, ServiceSpec, TrafficSpec } from './types.js';

/** Services without `workers` but with shed keys get this many (the LoadShedder needs a finite number). */
export const UNLIMITED_WORKERS = Number.MAX_SAFE_INTEGER;
/** Instances of all services together, at most (each has its own LoadShedder, samplers and random streams). */
export const MAX_TOTAL_INSTANCES = 10_000;
/**
 * Caller instance × callee instance pairs over every call edge, at most: each caller instance keeps a balancer, an
 * outlier detector and per-window counters over all its callee's instances (1,000 × 1,000 is ~0.5 GB).
 */
export const MAX_INSTANCE_PAIRS = 1_000_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

type Dist =
  | { dist: 'constant'; value: number }
  | { dist: 'exponential'; mean: number }
  | { dist: 'lognormal'; mean: number; sigma?: number | undefined };

function toDist(input: Dist | undefined): DistSpec {
  if (input === undefined) return { dist: 'constant', valueMs: 0 };
  switch (input.dist) {
    case 'constant':
      return { dist: 'constant', valueMs: input.value };
    case 'exponential':
      return { dist: 'exponential', meanMs: input.mean };
    case 'lognormal':
      return { dist: 'lognormal', meanMs: input.mean, sigma: input.sigma ?? 0.5 };
  }
}

function toErrors(
  input: { rate: number; status?: number | undefined; cost?: number | undefined } | undefined,
): ErrorSpec | null {
  if (input === undefined) return null;
  return { rate: input.rate, status: input.status ?? 503, costMs: input.cost ?? 0 };
}

function resolveService(name: string, input: ServiceInput, problems: Problem[]): ServiceSpec {
  const path = joinKey('services', name);
  if (!NAME.test(name)) problems.push({ path, message: 'a service name must be letters, digits, "_" or "-"' });
  const shedInput: Record<string, unknown> = {};
  let hasShed = input.workers !== undefined;
  for (const key of SHED_KEYS) {
    if (input[key] !== undefined) {
      shedInput[key] = input[key];
      hasShed = true;
    }
  }
  let shed: LoadShedderConfig | null = null;
  if (hasShed) {
    shedInput.workers = input.workers ?? UNLIMITED_WORKERS;
    const issues: ConfigIssue[] = [];
    const resolved = validateLoadShedderConfig(shedInput, path, issues);
    problems.push(...fromConfigIssues(issues));
    if (resolved) {
      shed = {
        workers: resolved.workers,
        queueLimit: resolved.queueLimit,
        retryAfter: resolved.retryAfterMs,
        dropExpired: resolved.dropExpired,
        discipline: resolved.discipline,
        lifoAfter: resolved.lifoAfterMs,
      };
    }
  }
  const calls: CallSpec[] = (input.calls ?? []).map((call) =>
    typeof call === 'string' ? { to: call, optional: false } : { to: call.to, optional: call.optional ?? false },
  );
  return {
    name,
    instances: input.instances ?? 1,
    shed,
    serviceTime: toDist(input.serviceTime as Dist | undefined),
    errors: toErrors(input.errors),
    calls,
    parallel: input.parallel ?? false,
    seawall: input.seawall ?? true,
  };
}

/** The run's memory grows with instances and with caller × callee instance pairs: both are capped. */
function checkInstanceCounts(services: ServiceSpec[], problems: Problem[]): void {
  const byName = new Map(services.map((s) => [s.name, s]));
  let total = 0;
  let pairs = 0;
  for (const service of services) {
    total += service.instances;
    for (const call of service.calls) pairs += service.instances * (byName.get(call.to)?.instances ?? 0);
  }
  const n = (x: number) => x.toLocaleString('en-US');
  if (total > MAX_TOTAL_INSTANCES) {
    problems.push({
      path: 'services',
      message: `${n(total)} instances in all; at most ${n(MAX_TOTAL_INSTANCES)}`,
    });
  }
  if (pairs > MAX_INSTANCE_PAIRS) {
    problems.push({
      path: 'services',
      message:
        `${n(pairs)} caller × callee instance pairs over the calls; at most ${n(MAX_INSTANCE_PAIRS)} ` +
        "(each caller instance keeps a balancer over its callee's instances)",
    });
  }
}

function checkCallGraph(services: ServiceSpec[], problems: Problem[]): void {
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const service of services) {
    const seen = new Set<string>();
    service.calls.forEach((call, index) => {
      const path = joinKey(joinKey(joinKey('services', service.name), 'calls'), index);
      if (!byName.has(call.to)) problems.push({ path, message: noServiceNamed(call.to, byName.keys()) });
      else if (call.to === service.name) problems.push({ path, message: 'a service cannot call itself' });
      if (seen.has(call.to)) problems.push({ path, message: `${call.to} is called twice` });
      seen.add(call.to);
    });
  }
  // A cycle would make every request spawn requests forever. Depth first with its own stack, not recursion: a
  // 9,000-deep call chain overflowed the JavaScript stack.
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const next: number[] = [];
  for (const root of services) {
    if (state.has(root.name)) continue;
    state.set(root.name, 1);
    stack.push(root.name);
    next.push(0);
    while (stack.length > 0) {
      const name = stack[stack.length - 1] as string;
      const calls = byName.get(name)?.calls ?? [];
      const i = next[next.length - 1] as number;
      if (i >= calls.length) {
        stack.pop();
        next.pop();
        state.set(name, 2);
        continue;
      }
      next[next.length - 1] = i + 1;
      const to = (calls[i] as CallSpec).to;
      if (!byName.has(to) || to === name) continue;
      const s = state.get(to);
      if (s === 1) {
        const names = [...stack.slice(stack.indexOf(to)), to];
        // A long cycle is named by its ends (a 9,000-service cycle would be one 60 kB line).
        const cycle =
          names.length <= 12
            ? names.join(' -> ')
            : [...names.slice(0, 6), `... (${names.length - 11} more)`, ...names.slice(-5)].join(' -> ');
        problems.push({ path: joinKey(joinKey('services', name), 'calls'), message: `call cycle ${cycle}` });
        return;
      }
      if (s === undefined) {
        // @ko sim-call-graph-iterative
        state.set(to, 1);
        stack.push(to);
        next.push(0);
      }
    }
  }
}

function resolveFault(input: FaultInput, index: number, names: Set<string>, problems: Problem[]): FaultSpec {
  const path = joinKey('faults', index);
  const service = input.service ?? null;
  if (service !== null && !names.has(service)) {
    problems.push({ path: joinKey(path, 'service'), message: noServiceNamed(service, names) });
  }
  const hasEffect =
    input.workers !== undefined ||
    input.errors !== undefined ||
    input.latency !== undefined ||
    input.surge !== undefined;
  if (!hasEffect) problems.push({ path, message: 'needs an effect: workers, errors, latency or surge' });
  if (service === null && (input.workers !== undefined || input.errors !== undefined || input.latency !== undefined)) {
    problems.push({ path: joinKey(path, 'service'), message: 'is required for workers, errors and latency faults' });
  }
  if (input.instances !== undefined && (input.surge !== undefined || service === null)) {
    problems.push({
      path: joinKey(path, 'instances'),
      message: 'applies to workers, errors and latency faults of one service (a surge hits the traffic, not instances)',
    });
  }
  return {
    service,
    instances: input.instances === undefined ? null : [...input.instances],
    startMs: input.at,
    endMs: input.at + input.for,
    workers: input.workers ?? null,
    errors: toErrors(input.errors),
    latencyMs: input.latency ?? 0,
    surge: input.surge ?? 1,
  };
}

/**
 * Resolves a model; problems and warnings carry paths relative to the model's top level. `durationMs` is the run's
 * (Infinity when unknown): what some settings cost depends on it.
 */
export function resolveModel(
  input: ModelInput,
  problems: Problem[],
  warnings: Problem[],
  durationMs = Number.POSITIVE_INFINITY,
): ModelSpec {
  const services = Object.entries(input.services).map(([name, s]) => resolveService(name, s, problems));
  const names = new Set(services.map((s) => s.name));
  checkCallGraph(services, problems);
  checkInstanceCounts(services, problems);
  const traffic: TrafficSpec[] = input.traffic.map((t, index) => {
    if (!names.has(t.to)) problems.push({ path: `traffic.${index}.to`, message: noServiceNamed(t.to, names) });
    return { to: t.to, ratePerS: t.rate, patienceMs: t.patience ?? null };
  });
  if (services.length === 0) problems.push({ path: 'services', message: 'must define at least one service' });
  const edges = resolveEdges(services, input.calls ?? {}, input.ownership, problems, warnings, durationMs);
  const faults = (input.faults ?? []).map((f, index) => resolveFault(f, index, names, problems));
  const byName = new Map(services.map((s) => [s.name, s]));
  faults.forEach((fault, index) => {
    const target = fault.service === null ? undefined : byName.get(fault.service);
    // A Set per fault, not indexOf per instance: 3,000 faults listing 1,000 instances each stay linear.
    const listed = new Set<number>();
    fault.instances?.forEach((k, i) => {
      if (listed.has(k)) {
        problems.push({ path: `faults.${index}.instances.${i}`, message: `instance ${k} is listed twice` });
        return;
      }
      listed.add(k);
      if (target !== undefined && k >= target.instances) {
        const count = target.instances;
        problems.push({
          path: `faults.${index}.instances.${i}`,
          message: `no instance ${k}: ${target.name} has ${count} (${count === 1 ? '0' : `0-${count - 1}`})`,
        });
      }
    });
    if (fault.workers !== null && target !== undefined && target.shed === null) {
      problems.push({
        path: `faults.${index}.workers`,
        message: `services.${target.name} has no workers limit to change (give it workers)`,
      });
    }
  });
  faults.forEach((fault, index) => {
    if (Number.isFinite(durationMs) && fault.startMs >= durationMs) {
      warnings.push({
        path: `faults.${index}.at`,
        message: `starts at ${fault.startMs / 1000} s, at or after the end of the run (${durationMs / 1000} s): it never happens`,
      });
    }
  });
  const entries = new Set(traffic.map((t) => t.to));
  faults.forEach((fault, index) => {
    if (fault.surge !== 1 && fault.service !== null && !entries.has(fault.service)) {
      problems.push({ path: `faults.${index}.service`, message: `a surge needs traffic into ${fault.service}` });
    }
  });
  return {
    traffic,
    networkLatency: toDist(input.network?.latency as Dist | undefined),
    services,
    edges,
    faults,
    cancellation: input.cancellation ?? false,
  };
}

/**
 * For a model the schema refused: the policy blocks it can still read, checked by the policies' own validators, so
 * a file's schema problems and policy problems come in one pass (docs: every problem at once). A service whose own
 * block passes the schema gets its load-shedding config checked; every `caller -> callee` block its RetryPolicy
 * config and guards. The cross-references (no service named ..., call cycles) need the whole model: they wait.
 */
export function checkPolicyBlocks(merged: unknown, problems: Problem[]): void {
  if (!isPlainObject(merged)) return;
  const services = isPlainObject(merged.services) ? merged.services : {};
  for (const [name, raw] of Object.entries(services)) {
    const parsed = serviceSchema.safeParse(raw, { error: requiredKeyMessage });
    if (parsed.success) resolveService(name, parsed.data, problems);
  }
  if (!isPlainObject(merged.calls)) return;
  const ownership = typeof merged.ownership === 'boolean' ? merged.ownership : undefined;
  for (const [key, block] of Object.entries(merged.calls)) {
    const edge = parseEdgeKey(key);
    if (edge === undefined) continue;
    const caller = services[edge.from];
    const callerSeawall = !(isPlainObject(caller) && caller.seawall === false);
    resolveEdgeBlock(block, joinKey('calls', key), callerSeawall, ownership, problems, []);
  }
}
