// The one latency histogram (latency-histogram.ts): count, sum, max and cumulative counts, as the HTTP telemetry reads them.

import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-histogram.js';

describe('LatencyHistogram: what a cumulative histogram needs', () => {
  it('keeps count, sum and max, and counts values at most a bound (a value exactly at it included)', () => {
    const h = new LatencyHistogram();
    for (const v of [0, 0.5, 1, 20, 20, 300, 5000, 12_000]) h.record(v);
    expect(h.count).toBe(8);
    expect(h.sumMs).toBe(17_341.5);
    expect(h.maxMs).toBe(12_000);
    expect([1, 2, 20, 200, 500, 5000, 10_000, Infinity].map((le) => h.countAtMost(le))).toEqual([
      3, 3, 5, 5, 6, 7, 7, 8,
    ]);
  });

  it('counts a NaN, negative or infinite value once without poisoning the sum or the maximum', () => {
    const h = new LatencyHistogram();
    for (const v of [10, Number.NaN, -5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) h.record(v);
    expect(h.count).toBe(5);
    expect(Number.isFinite(h.sumMs)).toBe(true);
    expect(Number.isFinite(h.maxMs)).toBe(true);
    expect(h.maxMs).toBeGreaterThan(10);
    expect(h.countAtMost(10)).toBe(4); // 10, and the three read as 0
    expect(h.countAtMost(Infinity)).toBe(5);
  });
});
