// Validation messages echo what was given and name the line of the YAML file the problem is on.
import { describe, expect, it } from 'vitest';
import { ScenarioError } from './errors.js';
import { parseScenario } from './load.js';

function refusal(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 't.yaml');
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error('accepted');
}

const FILE = `name: t
duration: 20s
traffic:
  - { to: api, rate: 10 }
services:
  api:
    workers: "twenty"
    calls: [db]
  db:
    instances: [2]
    wokers: 3
faults:
  - { service: db, at: 5s, for: 2s, workers: -1 }
variants:
  a:
    services:
      db:
        serviceTime: { dist: constant, value: true }
`;

describe('what was given', () => {
  it('echoes a wrong value beside what it must be', () => {
    const { problems } = refusal(FILE);
    expect(problems).toContain('services.api.workers: must be an integer ≥ 1, got the string "twenty"');
    expect(problems).toContain('services.db.instances: must be an integer from 1 to 1000, got a list');
    expect(problems).toContain('faults.0.workers: must be an integer ≥ 1, got -1');
  });

  it('cuts a long string and escapes control characters', () => {
    const { problems } = refusal(FILE.replace('"twenty"', `"${'x'.repeat(100)}\\u001b"`));
    const line = problems.find((p) => p.startsWith('services.api.workers:')) as string;
    expect(line).toBe(`services.api.workers: must be an integer ≥ 1, got the string "${'x'.repeat(40)}…"`);
  });
});

describe('the line of the file', () => {
  it('names the line of each problem: the key, an unknown key, a list item, a key a variant sets', () => {
    const { located } = refusal(FILE);
    expect(located).toEqual(
      expect.arrayContaining([
        'services.api.workers: must be an integer ≥ 1, got the string "twenty" (line 7)',
        'services.db.instances: must be an integer from 1 to 1000, got a list (line 10)',
        'services.db.wokers: unknown key; did you mean workers? (line 11)',
        'faults.0.workers: must be an integer ≥ 1, got -1 (line 13)',
        'variants.a.services.db.serviceTime.value: must be a duration (milliseconds or a string like "2s"), got boolean (line 18)',
      ]),
    );
  });

  it('keeps problems without the line, and lines beside them, for callers that match the text', () => {
    const error = refusal(FILE);
    expect(error.problems).toContain('services.db.wokers: unknown key; did you mean workers?');
    expect(error.lines[error.problems.indexOf('services.db.wokers: unknown key; did you mean workers?')]).toBe(11);
    expect(error.message).toContain('(line 11)');
  });

  it('points a missing key at the mapping that lacks it, and gives the root no line', () => {
    const { located } = refusal('name: t\nduration: 1s\nservices:\n  a: {}\n');
    expect(located).toContain('traffic: is required');
  });
});
