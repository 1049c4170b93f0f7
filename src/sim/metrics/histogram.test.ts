// The bounded latency histogram: quantiles within 1 % of the exact sample, exact for repeated values.

import { describe, expect, it } from 'vitest';
import { createRandom } from '../../policy/core/random.js';
import { LatencyHistogram } from './histogram.js';

function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
}

describe('LatencyHistogram', () => {
  it.each([0.5, 0.9, 0.99, 0.999, 1])('reports q=%s within 1 %% above the exact nearest-rank sample', (q) => {
    const random = createRandom(7);
    const histogram = new LatencyHistogram();
    const samples: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const v = Math.exp(random.next() * 12 - 3); // 0.05 ms .. 8 s, log-uniform
      samples.push(v);
      histogram.record(v);
    }
    samples.sort((a, b) => a - b);
    const exact = exactQuantile(samples, q);
    const reported = histogram.quantile(q);
    expect(reported).toBeGreaterThanOrEqual(exact);
    expect(reported).toBeLessThanOrEqual(exact * 1.01);
  });

  it('is exact when the quantile falls on repeated values (give-ups counted as patience)', () => {
    const histogram = new LatencyHistogram();
    for (let i = 0; i < 98; i++) histogram.record(12.5);
    for (let i = 0; i < 5; i++) histogram.record(2000);
    expect(histogram.quantile(0.99)).toBe(2000);
    expect(histogram.quantile(0.5)).toBe(12.5);
  });

  it('handles zero, tiny and huge values and an empty histogram', () => {
    const histogram = new LatencyHistogram();
    expect(histogram.quantile(0.99)).toBe(0);
    histogram.record(0);
    histogram.record(1e-9);
    histogram.record(1e12);
    expect(histogram.count).toBe(3);
    expect(histogram.quantile(1)).toBe(1e12);
    expect(histogram.quantile(0.3)).toBeLessThan(0.001);
  });
});
