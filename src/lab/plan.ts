// What each lab process runs, read off a variant's resolved model, and the parts of a model the lab cannot replay.

import type { LoadShedderConfig } from '../policy/admission/shed.js';
import type { DistSpec, EdgeSpec, ErrorSpec, FaultSpec, ModelSpec, TrafficSpec } from '../sim/scenario/types.js';

/** One outbound call of a service, in the model's order. */
export interface CallPlan {
  to: string;
  optional: boolean;
  edge: EdgeSpec;
}

/** One service: one process, one HTTP server. */
export interface ServicePlan {
  index: number;
  name: string;
  /** Runs Seawall's middleware (seawallHandler) and sends Seawall's hop headers on its calls. */
  seawall: boolean;
  /** The worker pool and queue in front of its work (LoadShedder); null = unlimited. */
  shed: LoadShedderConfig | null;
  serviceTime: DistSpec;
  /** Its work is a database query of `serviceTime` (pg_sleep); false for a service whose work takes no time. */
  usesDb: boolean;
  errors: ErrorSpec | null;
  calls: CallPlan[];
  parallel: boolean;
}

export interface LabPlan {
  services: ServicePlan[];
  traffic: TrafficSpec[];
  faults: FaultSpec[];
}

/** A service's work takes time only when its service time is not a constant 0. */
function takesTime(d: DistSpec): boolean {
  return d.dist !== 'constant' || d.valueMs > 0;
}

/**
 * The plan of `model`, or the list of what the lab cannot replay (one line each, naming the part): several instances
 * of a service (one process each is not built yet), fault instance subsets on them, and cancellation: true (the lab's
 * callers cancel as the real code does: see docs/lab.md).
 */
export function planOf(model: ModelSpec): { plan: LabPlan } | { problems: string[] } {
  const problems: string[] = [];
  if (model.cancellation) {
    problems.push(
      'cancellation: true: the lab runs the real code, whose Seawall services cancel on their own; remove it',
    );
  }
  const services = model.services.map((s, index): ServicePlan => {
    if (s.instances !== 1)
      problems.push(`services.${s.name}.instances: the lab runs one process per service (got ${s.instances})`);
    const calls = s.calls.map((c) => {
      const edge = model.edges.find((e) => e.from === s.name && e.to === c.to);
      if (edge === undefined) throw new Error(`lab plan: no edge ${s.name} -> ${c.to} in the resolved model`);
      return { to: c.to, optional: c.optional, edge };
    });
    for (const c of calls) {
      if (c.edge.outlierDetection !== null) {
        problems.push(
          `calls.${s.name} -> ${c.to}.outlierDetection: ejects instances of ${c.to}; the lab runs one process per service`,
        );
      }
    }
    return {
      index,
      name: s.name,
      seawall: s.seawall,
      shed: s.shed,
      serviceTime: s.serviceTime,
      usesDb: takesTime(s.serviceTime),
      errors: s.errors,
      calls,
      parallel: s.parallel,
    };
  });
  for (const [i, f] of model.faults.entries()) {
    if (f.instances?.some((n) => n !== 0)) problems.push(`faults.${i}.instances: one instance per service in the lab`);
  }
  if (problems.length > 0) return { problems };
  return { plan: { services, traffic: model.traffic, faults: model.faults } };
}

/** Services in an order where every callee starts before its callers (the model has no call cycles). */
export function startOrder(plan: LabPlan): ServicePlan[] {
  const byName = new Map(plan.services.map((s) => [s.name, s]));
  const done = new Set<string>();
  const order: ServicePlan[] = [];
  const visit = (s: ServicePlan) => {
    if (done.has(s.name)) return;
    done.add(s.name);
    for (const c of s.calls) visit(byName.get(c.to) as ServicePlan);
    order.push(s);
  };
  for (const s of plan.services) visit(s);
  return order;
}
