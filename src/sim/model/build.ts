// Builds a run's runtime objects from a ModelSpec: instances with their LoadShedders, edges with their RetryPolicies.

import { LoadShedder } from '../../policy/admission/shed.js';
import type { Random } from '../../policy/core/random.js';
import type { RequestTraits } from '../../policy/core/types.js';
import { RetryPolicy } from '../../policy/retry/retry.js';
import type { ModelSpec } from '../scenario/types.js';
import { Sampler } from './distributions.js';
import { buildGuards } from './guards.js';
import { EdgeRuntime, Instance, type Request, ServiceRuntime, TrafficSource } from './records.js';

/** Simulated calls are idempotent reads (GET): a timeout or a 5xx may be replayed, as retryOn allows. */
const GET: RequestTraits = Object.freeze({ idempotent: true });
/** The same, for an edge with `oneLayer: false` (it retries even inside a request from a Seawall hop). */
const GET_EVERY_LAYER: RequestTraits = Object.freeze({ idempotent: true, oneLayer: false });

/**
 * Every random stream is forked by a stable name (service, instance, edge, source), so adding a service or
 * changing one variant's policy never shifts the draws of another component.
 */
export function buildServices(model: ModelSpec, root: Random, windowCount: number): ServiceRuntime[] {
  const services = model.services.map((spec, index) => new ServiceRuntime(index, spec));
  const byName = new Map(services.map((s) => [s.spec.name, s]));
  for (const service of services) {
    const { spec } = service;
    for (let k = 0; k < spec.instances; k++) {
      const id = `${spec.name}#${k}`;
      const shedder = spec.shed === null ? null : new LoadShedder<Request>(spec.shed);
      const time = new Sampler(spec.serviceTime, root.fork(`service:${id}:time`));
      service.instances.push(new Instance(service, k, shedder, time, root.fork(`service:${id}:errors`)));
    }
  }
  for (const service of services) {
    for (const instance of service.instances) {
      for (const call of service.spec.calls) {
        const edgeIndex = model.edges.findIndex((e) => e.from === service.spec.name && e.to === call.to);
        const edge = model.edges[edgeIndex];
        const callee = byName.get(call.to) as ServiceRuntime;
        const id = `${service.spec.name}#${instance.index}->${call.to}`;
        // One policy per caller instance and edge: its budget sees only this instance's calls, as in production.
        const policy = new RetryPolicy(edge?.policy ?? {}, { random: root.fork(`policy:${id}`) });
        const seawall = edge?.seawall ?? true;
        const propagate = seawall && policy.config.propagateDeadline;
        const traits = edge === undefined || edge.oneLayer ? GET : GET_EVERY_LAYER;
        const guards = buildGuards(edge, callee, instance.index, windowCount, (name) => root.fork(`${name}:${id}`));
        instance.edges.push(
          new EdgeRuntime(edgeIndex, callee, policy, call.optional, propagate, seawall, traits, guards),
        );
      }
    }
  }
  return services;
}

export function buildSources(model: ModelSpec, services: ServiceRuntime[], root: Random): TrafficSource[] {
  return model.traffic.map((t, i) => {
    const service = services.find((s) => s.spec.name === t.to) as ServiceRuntime;
    return new TrafficSource(t, service, root.fork(`traffic:${i}:${t.to}`));
  });
}
