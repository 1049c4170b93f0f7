// Duration samplers: the ziggurat exponential and the lognormal have the right moments and shape.

import { describe, expect, it } from 'vitest';
import { createRandom } from '../../policy/core/random.js';
import { Sampler, standardExponential } from './distributions.js';

describe('standardExponential (ziggurat)', () => {
  const n = 400_000;
  const random = createRandom(11);
  const draws = Float64Array.from({ length: n }, () => standardExponential(random));

  it('has mean 1 and variance 1 within sampling error (4 standard errors)', () => {
    const mean = draws.reduce((a, b) => a + b, 0) / n;
    const variance = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
    expect(Math.abs(mean - 1)).toBeLessThan(4 / Math.sqrt(n)); // sd of an Exp(1) draw is 1
    expect(Math.abs(variance - 1)).toBeLessThan(4 * Math.sqrt(8 / n)); // Var(s²) ≈ (μ4 − σ⁴)/n, μ4 = 9 for Exp(1)
  });

  it.each([0.1, 0.5, 1, 2, 5, 9])('matches P(X > %s) = e^-x (tail beyond the base layer included)', (x) => {
    const share = draws.reduce((count, d) => count + (d > x ? 1 : 0), 0) / n;
    const expected = Math.exp(-x);
    expect(Math.abs(share - expected)).toBeLessThan(5 * Math.sqrt((expected * (1 - expected)) / n) + 1e-6);
  });
});

describe('Sampler', () => {
  it('draws constants, exponential and lognormal with the configured mean', () => {
    const random = createRandom(3);
    expect(new Sampler({ dist: 'constant', valueMs: 7 }, random).sample()).toBe(7);
    for (const spec of [
      { dist: 'exponential', meanMs: 50 } as const,
      { dist: 'lognormal', meanMs: 50, sigma: 0.5 } as const,
    ]) {
      const sampler = new Sampler(spec, random);
      let sum = 0;
      const n = 200_000;
      for (let i = 0; i < n; i++) sum += sampler.sample();
      expect(Math.abs(sum / n - 50)).toBeLessThan(50 * 0.01);
      expect(sampler.meanMs).toBeCloseTo(50, 9);
    }
  });
});
