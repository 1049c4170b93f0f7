// scaleModel: rates and pools shrink together, times and ratios stay, nothing rounds to zero.
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../sim/scenario/load.js';
import { scaleModel } from './scale.js';

const model = (variant: string) => {
  const v = loadScenario('checkout-incident').variants.find((x) => x.name === variant);
  if (v === undefined) throw new Error(variant);
  return v.model;
};

describe('scaleModel', () => {
  it('shrinks user rates, workers, queue limits and the failover pool by the scale, keeping utilisation', () => {
    const good = model('good');
    const scaled = scaleModel(good, 0.2);
    expect(scaled.traffic[0]?.ratePerS).toBeCloseTo(140, 9);
    const member = scaled.services.find((s) => s.name === 'member-api');
    expect(member?.shed).toMatchObject({ workers: 10, queueLimit: 40 });
    expect(scaled.faults[0]?.workers).toBe(3);
    // 700/s over 50 workers and 140/s over 10: the same load per worker, so the same utilisation.
    const perWorker = (m: typeof good) =>
      (m.traffic[0]?.ratePerS ?? 0) / (m.services.find((s) => s.name === 'member-api')?.shed?.workers ?? 1);
    expect(perWorker(scaled)).toBeCloseTo(perWorker(good), 9);
  });

  it('keeps times, error rates and policies as they are', () => {
    const good = model('good');
    const scaled = scaleModel(good, 0.1);
    expect(scaled.traffic[0]?.patienceMs).toBe(good.traffic[0]?.patienceMs);
    const member = (m: typeof good) => m.services.find((s) => s.name === 'member-api');
    expect(member(scaled)?.serviceTime).toEqual(member(good)?.serviceTime);
    expect(member(scaled)?.errors).toEqual(member(good)?.errors);
    expect(scaled.edges.map((e) => e.policy)).toEqual(good.edges.map((e) => e.policy));
  });

  it('never rounds a pool or a concurrency limit down to 0, and leaves unbounded queues unbounded', () => {
    const bad = model('bad');
    const tiny = scaleModel(bad, 0.001);
    const member = tiny.services.find((s) => s.name === 'member-api');
    expect(member?.shed?.workers).toBe(1);
    expect(member?.shed?.queueLimit ?? Number.POSITIVE_INFINITY).toBe(Number.POSITIVE_INFINITY);
    expect(tiny.faults[0]?.workers).toBe(1);
    const limited = { ...bad, edges: bad.edges.map((e) => ({ ...e, limits: { maxRequests: 100, maxRetries: 3 } })) };
    expect(scaleModel(limited, 0.1).edges[0]?.limits).toEqual({ maxRequests: 10, maxRetries: 1 });
  });

  it('returns the model itself at scale 1 and refuses a scale outside (0, 1]', () => {
    const bad = model('bad');
    expect(scaleModel(bad, 1)).toBe(bad);
    for (const s of [0, -0.5, 1.5, Number.NaN]) expect(() => scaleModel(bad, s)).toThrow(RangeError);
  });
});
