// Scenario files: built-ins load, variants merge, and every bad file gets one "path: message" line per problem.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listBuiltinScenarios, loadScenario, parseScenario, ScenarioError } from './load.js';

const MINIMAL = `
name: mini
duration: 10s
traffic: [{ to: api, rate: 10, patience: 1s }]
services:
  api: { calls: [db] }
  db: { workers: 2, serviceTime: { dist: exponential, mean: 10ms } }
`;

function problemsOf(yaml: string): string[] {
  try {
    parseScenario(yaml, 'test.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).problems;
  }
  throw new Error('expected a ScenarioError');
}

describe('built-in scenarios', () => {
  it('lists every scenarios/*.yaml and each one loads and validates', () => {
    const names = listBuiltinScenarios();
    expect(names).toEqual(
      expect.arrayContaining([
        'checkout-incident',
        'checkout-total-failure',
        'checkout-normal',
        'checkout-fast-errors',
        'checkout-many-clients',
        'mmc-erlang',
        'mmck-blocking',
      ]),
    );
    for (const name of names) expect(loadScenario(name).variants.length).toBeGreaterThan(0);
  });

  it('gives checkout-incident the seed variants in file order and the shared windows', () => {
    const scenario = loadScenario('checkout-incident');
    expect(scenario.variants.map((v) => v.name)).toEqual([
      'bad',
      'a-jitter',
      'b-bff-only',
      'good',
      'good-no-budget',
      'good-no-queue-limit',
      'good-no-deadline-drop',
      'good-no-jitter',
      'one-layer-jitter-deadline-header',
      'budget-only',
      'callee-protection-only',
      'c-circuit-breaker',
    ]);
    for (const name of listBuiltinScenarios().filter((n) => n.startsWith('checkout-'))) {
      expect(loadScenario(name).windows).toEqual({
        before: [40_000, 50_000],
        during: [50_000, 65_000],
        after: [65_000, 80_000],
      });
    }
  });

  it('runs checkout-total-failure and checkout-normal with exactly checkout-incident variants', () => {
    const incident = loadScenario('checkout-incident');
    for (const name of ['checkout-total-failure', 'checkout-normal']) {
      const other = loadScenario(name);
      expect(other.variants.map((v) => v.name)).toEqual(incident.variants.map((v) => v.name));
      other.variants.forEach((v, i) => {
        expect(v.model.edges).toEqual(incident.variants[i]?.model.edges);
      });
      expect(other.variants[0]?.model.faults).toEqual([]);
    }
  });

  it('merges variants: extends chains, null removes a key, a changed kind replaces the object', () => {
    const scenario = loadScenario('checkout-incident');
    const model = (name: string) => scenario.variants.find((v) => v.name === name)?.model;
    const bff = (name: string) => model(name)?.edges.find((e) => e.from === 'checkout-bff')?.policy;
    const memberShed = (name: string) => model(name)?.services.find((s) => s.name === 'member-api')?.shed;
    expect(bff('good-no-budget')?.budget).toBe(false);
    expect(bff('good-no-budget')?.maxAttempts).toBe(3);
    expect(memberShed('good-no-queue-limit')?.queueLimit).toBe(Number.POSITIVE_INFINITY);
    expect(memberShed('good-no-queue-limit')?.dropExpired).toBe(true);
    expect(memberShed('one-layer-jitter-deadline-header')?.dropExpired).toBe(false);
    expect(bff('budget-only')?.budget).toEqual({ kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 });
    const many = loadScenario('checkout-many-clients');
    const percent = many.variants.find((v) => v.name === 'percent-budget-only')?.model.edges[0]?.policy.budget;
    expect(percent).toEqual({ kind: 'percent', percent: 20, minConcurrency: 3 });
  });

  it("says a scenario is one YAML document when a file holds several (not the YAML library's advice)", () => {
    const problems = problemsOf('name: a\nduration: 10s\n---\nname: b\n');
    expect(problems).toEqual([
      'line 3, column 1: a scenario is one YAML document; this file has more (a second starts at this `---`): split it',
    ]);
  });

  it('refuses a bare number where a time is meant: duration, windows and patience need a unit (0 needs none)', () => {
    const bare = MINIMAL.replace('duration: 10s', 'duration: 10\nwindows: { before: [0, 5000] }').replace(
      'patience: 1s',
      'patience: 2',
    );
    expect(problemsOf(bare)).toEqual([
      'duration: 10 has no unit: write 10ms or 10s',
      'windows.before.1: 5000 has no unit: write 5000ms or 5000s',
      'traffic.0.patience: 2 has no unit: write 2ms or 2s',
    ]);
    expect(() =>
      parseScenario(MINIMAL.replace('duration: 10s', 'duration: 10s\nwindows: { all: [0, 10s] }'), 'x'),
    ).not.toThrow();
  });

  it('warns of a fault that starts at or after the end of the run: it would silently never happen', () => {
    const late = parseScenario(
      `${MINIMAL.replace('duration: 10s', 'duration: 60s')}faults:\n  - { service: db, at: 60s, for: 5s, workers: 1 }\n  - { service: db, at: 10s, for: 5s, workers: 1 }\n`,
      'late.yaml',
    );
    expect(late.warnings.filter((w) => w.includes('never happens'))).toEqual([
      'faults.0.at: starts at 60 s, at or after the end of the run (60 s): it never happens',
    ]);
  });

  it('accepts a file without variants as one variant named default', () => {
    const scenario = parseScenario(MINIMAL, 'mini.yaml');
    expect(scenario.variants.map((v) => v.name)).toEqual(['default']);
    expect(scenario.windows).toEqual({ all: [0, 10_000] });
    expect(scenario.variants[0]?.model.services[1]?.shed?.workers).toBe(2);
  });
});

describe('scenario validation', () => {
  // Found by load.property.test.ts: a variant that is not a mapping crashed the loader with a TypeError.
  it('reports a variant that is not a mapping instead of crashing', () => {
    const problems = problemsOf(`${MINIMAL}variants: { v: "" }\n`);
    expect(problems.some((p) => p.startsWith('variants.v'))).toBe(true);
  });

  it.each([
    ['a non-integer worker count', 'db: { workers: 2.5 }', 'services.db.workers: must be an integer ≥ 1, got 2.5'],
    ['zero workers', 'db: { workers: 0 }', 'services.db.workers: must be an integer ≥ 1, got 0'],
    ['a misspelt key', 'db: { wokers: 2 }', 'services.db.wokers: unknown key; did you mean workers?'],
    [
      'an unknown distribution',
      'db: { serviceTime: { dist: gamma } }',
      'services.db.serviceTime.dist: must be a duration, or { dist: constant | exponential | lognormal, ... }',
    ],
    [
      'a bad duration',
      'db: { serviceTime: { dist: exponential, mean: 10 parsecs } }',
      'services.db.serviceTime.mean: must be a duration like 800ms or 2s, got "10 parsecs"',
    ],
    [
      'an error rate above 1',
      'db: { errors: { rate: 2 } }',
      'services.db.errors.rate: must be a probability from 0 to 1, got 2',
    ],
    ['a call to nowhere', 'db: { calls: [cache] }', 'services.db.calls.0: no service named cache'],
    [
      'a negative queue limit',
      'db: { workers: 2, queueLimit: -1 }',
      'services.db.queueLimit: must be an integer >= 0 or Infinity',
    ],
  ])('names the path of %s', (_what, serviceLine, expected) => {
    const yaml = MINIMAL.replace(/ {2}db: .*\n/, `  ${serviceLine}\n`);
    expect(problemsOf(yaml)).toContain(expected);
  });

  it('reports every problem at once, one line each', () => {
    const problems = problemsOf(`
name: broken
duration: -5s
traffic: [{ to: nowhere, rate: 0 }]
services: { api: { instances: 0 } }
colour: blue
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'duration: must be a duration like 800ms or 2s, got "-5s"',
        'colour: unknown key',
        'traffic.0.rate: must be > 0, got 0',
        'services.api.instances: must be an integer from 1 to 1000, got 0',
      ]),
    );
    for (const line of problems) expect(line).toMatch(/^[\w.\- >()]+: \S/);
  });

  it('names required keys', () => {
    expect(problemsOf('name: x\nduration: 1s\nservices: { a: {} }\n')).toContain('traffic: is required');
  });

  it('checks policy blocks with the RetryPolicy validator, under the variant that sets them', () => {
    const problems = problemsOf(`${MINIMAL}
variants:
  v:
    calls:
      api -> db: { maxAttempts: 0, budget: { kind: token-bucket, maxTokens: 2000, tokenRatio: 0.1 } }
`);
    expect(problems).toContain('variants.v.calls.api -> db.maxAttempts: must be an integer ≥ 1');
    expect(problems).toContain('variants.v.calls.api -> db.budget.maxTokens: must be a number in (0, 1000]');
  });

  it('checks what the top level sets even when every variant overrides it (the top level alone never runs)', () => {
    const problems = problemsOf(`${MINIMAL}
calls:
  api -> db: { maxAttempts: 0, budget: { kind: token-bucket } }
variants:
  a: { calls: { api -> db: { maxAttempts: 2, budget: { kind: token-bucket, maxTokens: 10, tokenRatio: 0.1 } } } }
  b: { calls: { api -> db: { maxAttempts: 3, budget: { kind: token-bucket, maxTokens: 10, tokenRatio: 0.1 } } } }
`);
    // Once, as the top level's own, not once per variant.
    expect(problems).toEqual(['calls.api -> db.maxAttempts: must be an integer ≥ 1']);
    // The budget's missing keys are left for the variants to fill in: both do, so that is no problem.
    expect(() =>
      parseScenario(
        `${MINIMAL}
calls:
  api -> db: { maxAttempts: 2, budget: { kind: token-bucket } }
variants:
  a: { calls: { api -> db: { budget: { maxTokens: 10, tokenRatio: 0.1 } } } }
`,
        'test.yaml',
      ),
    ).not.toThrow();
  });

  it('checks edges, faults, windows and extends', () => {
    const problems = problemsOf(`${MINIMAL}
windows: { late: [5s, 20s], backwards: [3s, 2s] }
calls:
  db -> api: { maxAttempts: 2 }
  api to db: {}
faults:
  - { service: api, at: 1s, for: 1s, workers: 3 }
  - { service: db, at: 1s, for: 1s }
variants:
  a: { extends: b }
  b: { extends: a }
  c: { extends: zzz }
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'windows.late: must end within duration',
        'windows.backwards: start must be before end',
        'calls.db -> api: db does not call api (add it to services.db.calls)',
        'calls.api to db: must be written "caller -> callee"',
        'faults.0.workers: services.api has no workers limit to change (give it workers)',
        'faults.1: needs an effect: workers, errors, latency or surge',
        'variants.a.extends: extends cycle a -> b -> a',
        'variants.b.extends: extends cycle b -> a -> b',
        'variants.c.extends: no variant named zzz',
      ]),
    );
  });

  it('reports schema problems and policy problems of one file in the same pass', () => {
    const problems = problemsOf(`
name: both
duration: 10s
traffic: [{ to: api, rate: 10 }]
services:
  api: { calls: [db], instances: many }
  db: { workers: 4, discipline: random }
calls:
  api -> db: { maxAttempts: 0, budget: { kind: token-bucket, maxTokens: 5000, tokenRatio: 0.1 } }
variants:
  a: {}
  b:
    calls:
      api -> db: { circuitBreaker: { failureThreshold: -1 } }
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'services.api.instances: must be an integer from 1 to 1000, got the string "many"',
        'services.db.discipline: must be "fifo" or "adaptive-lifo"',
        'calls.api -> db.maxAttempts: must be an integer ≥ 1',
        'calls.api -> db.budget.maxTokens: must be a number in (0, 1000]',
        'variants.b.calls.api -> db.circuitBreaker.failureThreshold: must be an integer ≥ 1, or false',
      ]),
    );
    // A top-level problem found in every variant is the top level's own: no "in variants a, b" on it.
    expect(problems.filter((p) => p.startsWith('calls.api -> db.maxAttempts'))).toEqual([
      'calls.api -> db.maxAttempts: must be an integer ≥ 1',
    ]);
  });

  it('names no variant on a top-level policy problem when only some variants failed the schema', () => {
    const problems = problemsOf(`${MINIMAL}
calls:
  api -> db: { maxAttempts: 0 }
variants:
  fine: {}
  broken: { services: { db: { workers: -1 } } }
`);
    expect(problems).toEqual([
      'calls.api -> db.maxAttempts: must be an integer ≥ 1',
      'variants.broken.services.db.workers: must be an integer ≥ 1, got -1',
    ]);
  });

  it('refuses a variant that names a service the top level does not have, suggesting the closest', () => {
    const problems = problemsOf(`${MINIMAL}
variants:
  ok: {}
  typo:
    services:
      dbb: { queueLimit: 5 }
    calls:
      api -> dbx: { maxAttempts: 2 }
      apj -> db: { maxAttempts: 2 }
`);
    expect(problems).toEqual([
      'variants.typo.services.dbb: no service named dbb; did you mean db? (a variant cannot add a service: declare new ones at the top level)',
      'variants.typo.calls.api -> dbx: no service named dbx; did you mean db?',
      'variants.typo.calls.apj -> db: no service named apj; did you mean api?',
    ]);
  });

  it('suggests the closest service for a misspelt call, traffic target or fault service', () => {
    const problems = problemsOf(
      MINIMAL.replace('to: api', 'to: apii').replace('calls: [db]', 'calls: [dv]') +
        'faults: [{ service: dbb, at: 1s, for: 1s, latency: 5ms }]\n',
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'traffic.0.to: no service named apii; did you mean api?',
        'services.api.calls.0: no service named dv; did you mean db?',
        'faults.0.service: no service named dbb; did you mean db?',
      ]),
    );
  });

  it('rejects call cycles', () => {
    const yaml = MINIMAL.replace('db: { workers: 2,', 'db: { calls: [api], workers: 2,');
    expect(problemsOf(yaml).join('\n')).toMatch(/call cycle/);
  });

  it('refuses more windows than a run can measure with one line, not an Error from the metrics at run time', () => {
    const windows = Array.from({ length: 31 }, (_, i) => `w${i}: [0s, 5s]`).join(', ');
    expect(problemsOf(`${MINIMAL}windows: { ${windows} }\n`)).toEqual(['windows: at most 30 windows (got 31)']);
    expect(() =>
      parseScenario(`${MINIMAL}windows: { ${windows.replace(/, w30: \[0s, 5s\]$/, '')} }\n`, 't'),
    ).not.toThrow();
  });

  it('reports YAML syntax errors with their line, without a stack trace', () => {
    const problems = problemsOf('name: x\nservices: { a: [\n');
    expect(problems[0]).toMatch(/^line \d+, column \d+: /);
    expect(problems.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('extends another file: its keys merged under this one, its variants kept unless this file lists its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-scenario-'));
    writeFileSync(
      join(dir, 'base.yaml'),
      `${MINIMAL}variants: { one: {}, two: { services: { db: { workers: 3 } } } }\n`,
    );
    writeFileSync(join(dir, 'child.yaml'), 'extends: ./base.yaml\nname: child\nservices: { db: { workers: 4 } }\n');
    writeFileSync(join(dir, 'own.yaml'), 'extends: ./base.yaml\nname: own\nvariants: { three: {} }\n');
    const child = loadScenario(join(dir, 'child.yaml'));
    expect(child.name).toBe('child');
    expect(child.variants.map((v) => [v.name, v.model.services[1]?.shed?.workers])).toEqual([
      ['one', 4],
      ['two', 3],
    ]);
    expect(loadScenario(join(dir, 'own.yaml')).variants.map((v) => v.name)).toEqual(['three']);
    writeFileSync(join(dir, 'orphan.yaml'), 'extends: ./missing.yaml\nname: orphan\n');
    expect(() => loadScenario(join(dir, 'orphan.yaml'))).toThrow(/extends: no scenario file or built-in named/);
  });

  it('loads files by path and explains unknown names', () => {
    expect(() => loadScenario('no-such-scenario')).toThrow(/no scenario file or built-in named 'no-such-scenario'/);
  });
});
