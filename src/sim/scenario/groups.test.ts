// A variant's `group` (how the report lists variants): read as written, the variant's own, checked as a string.

import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, ScenarioError } from './load.js';

const BASE = `
name: grouped
duration: 10s
traffic: [{ to: api, rate: 10, patience: 1s }]
services: { api: {} }
`;

describe('variant groups', () => {
  it('reads each variant its own group; extends does not pass it on, and no group is null', () => {
    const scenario = parseScenario(
      `${BASE}variants:\n  a: { group: seed }\n  b: { extends: a }\n  c: { group: fix, extends: a }\n`,
      'g.yaml',
    );
    expect(scenario.variants.map((v) => [v.name, v.group])).toEqual([
      ['a', 'seed'],
      ['b', null],
      ['c', 'fix'],
    ]);
  });

  it('has no group for the default variant of a file without variants', () => {
    expect(parseScenario(BASE, 'g.yaml').variants.map((v) => v.group)).toEqual([null]);
  });

  it('refuses a group that is not a non-empty string, naming its path', () => {
    const problems = (yaml: string) => {
      try {
        parseScenario(yaml, 'g.yaml');
      } catch (error) {
        if (error instanceof ScenarioError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems(`${BASE}variants:\n  a: { group: 3 }\n`)).toEqual(['variants.a.group: must be a string, got 3']);
    expect(problems(`${BASE}variants:\n  a: { group: '' }\n`)).toEqual([
      'variants.a.group: must not be empty, got the string ""',
    ]);
  });

  it('groups every variant of checkout-incident: the seed, the proposals, the fix and the ablations', () => {
    const groups = new Map<string, string[]>();
    for (const v of loadScenario('checkout-incident').variants) {
      groups.set(v.group ?? '', [...(groups.get(v.group ?? '') ?? []), v.name]);
    }
    expect(Object.fromEntries(groups)).toEqual({
      seed: ['bad'],
      proposals: ['a-jitter', 'b-bff-only', 'c-circuit-breaker'],
      fix: ['good'],
      ablations: ['good-no-budget', 'good-no-queue-limit', 'good-no-deadline-drop', 'good-no-jitter'],
      'layers alone': ['one-layer-jitter-deadline-header', 'budget-only', 'callee-protection-only'],
    });
  });
});
