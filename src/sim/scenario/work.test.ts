// The work a scenario asks for (issue #25 item 6): estimated up front and refused beyond the limit, with the figure.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { listBuiltinScenarios, loadScenario, parseScenario, ScenarioError } from './load.js';
import { DEFAULT_MAX_REQUESTS, estimateRequests, requestsPerArrival } from './work.js';

function problemsOf(text: string): string[] {
  try {
    parseScenario(text, 'work.yaml');
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
  return [];
}

const flood = (rate: string, extra = '') =>
  `name: flood\nduration: 60s\n${extra}traffic: [{ to: api, rate: ${rate} }]\nservices: { api: { calls: [db] }, db: {} }\n`;

describe('the work estimate', () => {
  it('refuses rate 1e9 at once, with the estimate, the limit and the key that raises it (it ran until killed)', () => {
    const started = performance.now();
    const problems = problemsOf(flood('1e9'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(problems).toEqual([
      'traffic: asks for at least 120,000,000,000 service requests over the run (1,000,000,000 requests/s × 60 s, ' +
        '× the services each request reaches, + surges); at most 50,000,000: lower the rates or the duration, or ' +
        'raise the limit with the top-level key `maxRequests` (the run takes about a second per million)',
    ]);
  });

  it('lets `maxRequests` raise the limit, and checks it', () => {
    expect(problemsOf(flood('1e6', 'maxRequests: 200000000\n'))).toEqual([]);
    expect(problemsOf(flood('1e6'))).toEqual([expect.stringMatching(/^traffic: asks for at least 120,000,000 /)]);
    expect(problemsOf(flood('1', 'maxRequests: -1\n'))).toEqual(['maxRequests: must be > 0, got -1']);
  });

  it('counts each service a request reaches, and the extra users of a surge', () => {
    const scenario = parseScenario(
      `name: fan\nduration: 10s\ntraffic: [{ to: a, rate: 100 }]\n` +
        'services: { a: { calls: [b, c] }, b: { calls: [c] }, c: {} }\n' +
        'faults: [{ service: a, at: 2s, for: 4s, surge: 3 }, { at: 8s, for: 10s, surge: 2 }]\n',
      'fan.yaml',
    );
    const model = scenario.variants[0]?.model;
    if (model === undefined) throw new Error('no model');
    expect(Object.fromEntries(requestsPerArrival(model))).toEqual({ c: 1, b: 2, a: 4 });
    // 100/s × (10 s + 2 × 4 s + 1 × 2 s) × 4
    expect(estimateRequests(model, 10_000)).toBe(100 * 20 * 4);
  });

  it('leaves every built-in scenario far inside the limit', () => {
    for (const name of listBuiltinScenarios()) {
      const scenario = loadScenario(name);
      for (const variant of scenario.variants) {
        expect(estimateRequests(variant.model, scenario.durationMs), name).toBeLessThan(DEFAULT_MAX_REQUESTS / 5);
      }
    }
  });
});
