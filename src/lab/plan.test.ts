// planOf: the built-in incident's variants are replayable; what the lab cannot run is named, one line each.
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from '../sim/scenario/load.js';
import { planOf, startOrder } from './plan.js';

describe('planOf', () => {
  it('plans every variant of checkout-incident, its DB service being the one whose work takes time', () => {
    for (const v of loadScenario('checkout-incident').variants) {
      const planned = planOf(v.model);
      if (!('plan' in planned)) throw new Error(`${v.name}: ${planned.problems.join('; ')}`);
      expect(planned.plan.services.filter((s) => s.usesDb).map((s) => s.name)).toEqual(['member-api']);
      expect(startOrder(planned.plan).map((s) => s.name)).toEqual(['member-api', 'coupon-api', 'checkout-bff']);
    }
  });

  it('names several instances, outlier detection over them and cancellation: true as what the lab cannot replay', () => {
    const scenario = parseScenario(
      `
name: x
duration: 10s
cancellation: true
traffic: [{ to: a, rate: 10 }]
services:
  a: { calls: [b] }
  b: { instances: 2, workers: 2, serviceTime: 10ms }
calls:
  a -> b: { outlierDetection: { maxEjectionPercent: 50 } }
faults: [{ service: b, instances: [1], at: 1s, for: 1s, workers: 1 }]
`,
      'x.yaml',
    );
    const planned = planOf(scenario.variants[0]?.model as never);
    expect('problems' in planned && planned.problems).toEqual([
      expect.stringContaining('cancellation: true'),
      expect.stringContaining('calls.a -> b.outlierDetection: ejects instances of b'),
      expect.stringContaining('services.b.instances: the lab runs one process per service (got 2)'),
      expect.stringContaining('faults.0.instances'),
    ]);
  });
});
