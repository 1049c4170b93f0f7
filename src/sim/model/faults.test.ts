// Applying faults as they start and end (issue #25 item 6): the same states and drains as recomputing everything,
// at a cost that grows with what the fault hits, not with instances × faults.

import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../scenario/types.js';
import { FaultsInForce, faultStateFor, surgeFor } from './fault-state.js';
import { applyFault, type FaultTarget } from './faults.js';
import type { Instance, ServiceRuntime, TrafficSource } from './records.js';

/** A seeded stream in [0, 1) (tests in src/sim use no Math.random either). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

interface Fake extends FaultTarget {
  log: string[];
}

function target(faults: readonly FaultSpec[], services: { name: string; instances: number }[]): Fake {
  const log: string[] = [];
  const runtimes = services.map((s, index) => {
    const service = { index, spec: { name: s.name }, workers: 10, instances: [] as Instance[] };
    for (let k = 0; k < s.instances; k++) {
      const instance = {
        service,
        index: k,
        workers: 10,
        faultErrors: [],
        extraLatencyMs: 0,
        shedder: { update: () => {} },
      };
      service.instances.push(instance as unknown as Instance);
    }
    return service as unknown as ServiceRuntime;
  });
  const sources = services.map((s, i) => ({
    spec: { to: s.name },
    service: runtimes[i],
    multiplier: 1,
    generation: 0,
  })) as unknown as TrafficSource[];
  return {
    services: runtimes,
    sources,
    faults,
    faultActive: faults.map(() => false),
    faultsInForce: new FaultsInForce(),
    log,
    drain: (instance) => log.push(`drain ${instance.service.spec.name}/${instance.index} ${instance.workers}`),
    scheduleArrival: (source) => log.push(`arrival ${source.spec.to} x${source.multiplier}`),
  };
}

/** The rule as it was: every instance and every source recomputed over every fault. */
function applyAll(t: Fake): void {
  for (const service of t.services) {
    for (const instance of service.instances) {
      const state = faultStateFor(t.faults, t.faultActive, service.spec.name, instance.index);
      const workers = state.workers ?? service.workers;
      instance.faultErrors = state.errors;
      instance.extraLatencyMs = state.extraLatencyMs;
      if (workers !== null && workers !== instance.workers) {
        instance.workers = workers;
        t.drain(instance);
      }
    }
  }
  for (const source of t.sources) {
    const multiplier = surgeFor(t.faults, t.faultActive, source.spec.to);
    if (multiplier !== source.multiplier) {
      source.multiplier = multiplier;
      t.scheduleArrival(source);
    }
  }
}

const states = (t: Fake) =>
  t.services.flatMap((s) =>
    s.instances.map((i) => [s.spec.name, i.index, i.workers, i.extraLatencyMs, i.faultErrors.map((e) => e.status)]),
  );

describe('applyFault', () => {
  it('gives the states, drains and arrivals of recomputing everything, fault by fault', () => {
    const random = lcg(25);
    const services = [
      { name: 'api', instances: 3 },
      { name: 'db', instances: 5 },
      { name: 'cache', instances: 2 },
    ];
    for (let round = 0; round < 50; round++) {
      const faults: FaultSpec[] = Array.from({ length: 12 }, () => {
        const s = services[Math.floor(random() * services.length)] as { name: string; instances: number };
        const some = random() < 0.5;
        return {
          service: random() < 0.1 ? null : s.name,
          instances: some ? Array.from({ length: s.instances }, (_, k) => k).filter(() => random() < 0.5) : null,
          startMs: 0,
          endMs: 0,
          workers: random() < 0.5 ? 1 + Math.floor(random() * 20) : null,
          errors: random() < 0.4 ? { rate: 0.5, status: 500 + Math.floor(random() * 5), costMs: 0 } : null,
          latencyMs: random() < 0.5 ? Math.floor(random() * 100) : 0,
          surge: random() < 0.3 ? 1 + Math.floor(random() * 4) : 1,
        };
      });
      for (const f of faults) {
        if (f.service === null)
          Object.assign(f, { instances: null, workers: null, errors: null, latencyMs: 0, surge: 2 });
      }
      const ours = target(faults, services);
      const theirs = target(faults, services);
      for (let step = 0; step < 40; step++) {
        const i = Math.floor(random() * faults.length);
        const on = !ours.faultActive[i];
        ours.faultActive[i] = on;
        theirs.faultActive[i] = on;
        applyFault(ours, i);
        applyAll(theirs);
        expect(states(ours)).toEqual(states(theirs));
        expect(ours.log).toEqual(theirs.log);
        expect(ours.sources.map((s) => s.multiplier)).toEqual(theirs.sources.map((s) => s.multiplier));
      }
    }
  });

  it('reads the faults a number of times that grows with what each one hits, not with all the faults', () => {
    let reads = 0;
    const plain: FaultSpec[] = Array.from({ length: 300 }, (_, i) => ({
      service: 'db',
      instances: null,
      startMs: i,
      endMs: i + 1,
      workers: null,
      errors: null,
      latencyMs: 5,
      surge: 1,
    }));
    // Every read of a fault through the list is counted.
    const faults = new Proxy(plain, {
      get(list, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(list, key, receiver);
      },
    });
    const instances = 100;
    const t = target(faults, [{ name: 'db', instances }]);
    reads = 0;
    for (let i = 0; i < plain.length; i++) {
      for (const on of [true, false]) {
        t.faultActive[i] = on;
        applyFault(t, i);
      }
    }
    // Each start and end reads its own fault a few times, and the one fault in force once per instance it hits.
    // Recomputing every instance over every fault read 300 × 100 per start and end: 18 million.
    const events = plain.length * 2;
    expect(reads).toBeLessThanOrEqual(events * (instances + 10));
    expect(states(t).every(([, , , latency]) => latency === 0)).toBe(true);
  });
});
