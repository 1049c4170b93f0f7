// The rule for faults in force, shared by the simulator (faults.ts) and the lab (lab/run.ts).
import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../scenario/types.js';
import { faultStateFor, surgeFor } from './fault-state.js';

const fault = (f: Partial<FaultSpec>): FaultSpec => ({
  service: 'db',
  instances: null,
  startMs: 0,
  endMs: 1000,
  workers: null,
  errors: null,
  latencyMs: 0,
  surge: 1,
  ...f,
});

describe('faultStateFor', () => {
  const faults = [
    fault({ workers: 15 }),
    fault({ errors: { rate: 0.5, status: 500, costMs: 0 }, latencyMs: 20 }),
    fault({ workers: 5, latencyMs: 30, instances: [1] }),
    fault({ service: 'api', workers: 1 }),
  ];

  it('combines the active faults of the service: the last workers win, errors in order, latencies add up', () => {
    expect(faultStateFor(faults, [true, true, true, true], 'db', 1)).toEqual({
      workers: 5,
      errors: [{ rate: 0.5, status: 500, costMs: 0 }],
      extraLatencyMs: 50,
    });
    // instance 0 is not listed by the third fault
    expect(faultStateFor(faults, [true, true, true, true], 'db', 0)).toEqual({
      workers: 15,
      errors: [{ rate: 0.5, status: 500, costMs: 0 }],
      extraLatencyMs: 20,
    });
  });

  it('leaves out faults not in force and faults of other services', () => {
    expect(faultStateFor(faults, [false, false, true, true], 'db', 0)).toEqual({
      workers: null,
      errors: [],
      extraLatencyMs: 0,
    });
    expect(faultStateFor(faults, [false, false, false, true], 'api', 0).workers).toBe(1);
  });
});

describe('surgeFor', () => {
  it('multiplies the surges in force aimed at the source or at all traffic', () => {
    const surges = [
      fault({ service: 'bff', surge: 3 }),
      fault({ service: null, surge: 2 }),
      fault({ service: 'x', surge: 5 }),
    ];
    expect(surgeFor(surges, [true, true, true], 'bff')).toBe(6);
    expect(surgeFor(surges, [false, true, true], 'bff')).toBe(2);
    expect(surgeFor(surges, [false, false, false], 'bff')).toBe(1);
  });
});
