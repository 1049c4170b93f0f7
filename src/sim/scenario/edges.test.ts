// Scenario keys of issue #12: the attempt guards on a `calls:` block and faults that hit some instances only.

import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from './load.js';

const BASE = `
name: guards
duration: 10s
traffic: [{ to: api, rate: 10, patience: 1s }]
services:
  api: { calls: [db] }
  db: { instances: 4, workers: 2, serviceTime: 10ms }
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

describe('calls: circuitBreaker, limits, outlierDetection, loadBalancer', () => {
  it('reads each guard into the edge as written, and the balancer resolved; an edge without them has none', () => {
    const scenario = parseScenario(
      `${BASE}
calls:
  api -> db:
    maxAttempts: 2
    circuitBreaker: { failureThreshold: 3, breakDuration: 2s }
    limits: { maxRequests: 10, maxRetries: 1 }
    outlierDetection: { consecutive5xx: 3, maxEjectionPercent: 50 }
    loadBalancer: p2c
variants:
  guarded: {}
  bare:
    calls: { api -> db: { circuitBreaker: false, limits: false, outlierDetection: null, loadBalancer: null } }`,
      'test.yaml',
    );
    const [guarded, bare] = scenario.variants.map((v) => v.model.edges[0]);
    expect(guarded).toMatchObject({
      policy: { maxAttempts: 2 },
      circuitBreaker: { failureThreshold: 3, breakDuration: '2s' },
      limits: { maxRequests: 10, maxRetries: 1 },
      outlierDetection: { consecutive5xx: 3, maxEjectionPercent: 50 },
      loadBalancer: { kind: 'p2c', panicThreshold: 50 },
    });
    expect(guarded?.policy).not.toHaveProperty('circuitBreaker');
    expect(bare).toMatchObject({
      circuitBreaker: null,
      limits: null,
      outlierDetection: null,
      loadBalancer: { kind: 'round-robin', panicThreshold: 50 },
    });
    // Plain data: the resolved scenario crosses to worker threads.
    expect(structuredClone(scenario.variants)).toEqual(scenario.variants);
  });

  it("reports every guard's problems at once, each with its full path, from the policies' own validators", () => {
    const problems = problemsOf(`${BASE}
calls:
  api -> db:
    maxAtempts: 2
    circuitBreaker: { failureThreshold: 0, failureTreshold: 3, breakDuration: -1s }
    limits: { maxRequests: -1, retryBudget: { percent: 20 }, maxRetries: 2 }
    outlierDetection: { max_ejection_percent: 50, consecutive5xx: 1.5 }
    loadBalancer: { kind: least-request, panicThreshold: 120 }
variants:
  v:
    calls: { api -> db: { circuitBreaker: yes } }
  w: {}`);
    const at = (prefix: string) => problems.filter((p) => p.startsWith(prefix));
    // The variant that replaced the block names itself; the others point at the top level.
    expect(at('variants.v.calls.api -> db.circuitBreaker: ')).toHaveLength(1);
    expect(at('calls.api -> db.maxAtempts: ')).toHaveLength(1);
    expect(at('calls.api -> db.circuitBreaker.failureThreshold: ')).toHaveLength(1);
    expect(at('calls.api -> db.circuitBreaker.failureTreshold: ')[0]).toContain('failureThreshold');
    expect(at('calls.api -> db.circuitBreaker.breakDuration: ')).toHaveLength(1);
    expect(at('calls.api -> db.limits.maxRequests: ')).toHaveLength(1);
    expect(at('calls.api -> db.limits.maxRetries: ')[0]).toContain('retryBudget');
    expect(at('calls.api -> db.outlierDetection.max_ejection_percent: ')[0]).toContain('maxEjectionPercent');
    expect(at('calls.api -> db.outlierDetection.consecutive5xx: ')).toHaveLength(1);
    expect(at('calls.api -> db.loadBalancer.kind: ')).toHaveLength(1);
    expect(at('calls.api -> db.loadBalancer.panicThreshold: ')).toHaveLength(1);
    for (const line of problems) expect(line).not.toMatch(/Error|at .*\.ts/);
  });
});

describe('calls: a misspelt guard key', () => {
  it('is an unknown key that points at the guard it resembles', () => {
    const problems = problemsOf(`${BASE}
calls: { api -> db: { circuitBreker: {}, outlierdetection: {}, limit: {} } }`);
    expect(problems).toEqual([
      'calls.api -> db.circuitBreker: unknown key; did you mean circuitBreaker?',
      'calls.api -> db.outlierdetection: unknown key; did you mean outlierDetection?',
      'calls.api -> db.limit: unknown key; did you mean limits?',
    ]);
  });
});

describe('faults: instances', () => {
  it('keeps the listed instances, or null for all', () => {
    const scenario = parseScenario(
      `${BASE}
faults:
  - { service: db, instances: [0, 2], at: 1s, for: 1s, errors: { rate: 1 } }
  - { service: db, at: 1s, for: 1s, latency: 5ms }`,
      'test.yaml',
    );
    expect(scenario.variants[0]?.model.faults.map((f) => f.instances)).toEqual([[0, 2], null]);
  });

  it('refuses an instance the service does not have, and instances on a surge, with their paths', () => {
    const problems = problemsOf(`${BASE}
faults:
  - { service: db, instances: [1, 4, 7], at: 1s, for: 1s, errors: { rate: 1 } }
  - { service: api, instances: [0], at: 1s, for: 1s, surge: 2 }`);
    expect(problems).toContain('faults.0.instances.1: no instance 4: db has 4 (0-3)');
    expect(problems).toContain('faults.0.instances.2: no instance 7: db has 4 (0-3)');
    expect(problems.filter((p) => p.startsWith('faults.1.instances: '))).toHaveLength(1);
  });

  it('refuses an empty list and anything but integer indices', () => {
    const problems = problemsOf(`${BASE}
faults:
  - { service: db, instances: [], at: 1s, for: 1s, latency: 5ms }
  - { service: db, instances: [-1, 0.5], at: 1s, for: 1s, latency: 5ms }
  - { service: db, instances: 2, at: 1s, for: 1s, latency: 5ms }`);
    expect(problems.filter((p) => p.startsWith('faults.0.instances: '))).toHaveLength(1);
    expect(problems.filter((p) => p.startsWith('faults.1.instances.0: '))).toHaveLength(1);
    expect(problems.filter((p) => p.startsWith('faults.1.instances.1: '))).toHaveLength(1);
    expect(problems.filter((p) => p.startsWith('faults.2.instances: '))).toHaveLength(1);
  });
});

describe('hostile instance counts, fault instances and detector pools', () => {
  const system = (dbLine: string, rest = '') => `
name: hostile
duration: 10s
traffic: [{ to: api, rate: 10, patience: 1s }]
services:
  api: { calls: [db] }
  db: { ${dbLine} }
${rest}`;

  it.each([
    ['1e9', '1000000000'],
    ['1001', '1001'],
    ['1e300', '1e+300'],
    ['-1', '-1'],
    ['0', '0'],
    ['2.5', '2.5'],
    ['.nan', 'NaN'],
    ['.inf', 'Infinity'],
    ['"4"', 'the string "4"'],
    ['[2]', 'a list'],
  ])('instances: %s is one line naming the key and what was given, found before anything is built', (text, got) => {
    expect(problemsOf(system(`instances: ${text}`))).toEqual([
      `services.db.instances: must be an integer from 1 to 1000, got ${got}`,
    ]);
  });

  it('caps the instances of all services together and the caller × callee pairs (each one a balancer entry)', () => {
    const many = Array.from({ length: 11 }, (_, i) => `  s${i}: { instances: 1000 }`).join('\n');
    expect(problemsOf(`name: many\nduration: 1s\ntraffic: [{ to: s0, rate: 1 }]\nservices:\n${many}\n`)).toEqual([
      'services: 11,000 instances in all; at most 10,000',
    ]);
    const chain = system('instances: 1000, calls: [cache]', '  cache: { instances: 1000 }').replace(
      'api: { calls',
      'api: { instances: 1000, calls',
    );
    expect(problemsOf(chain)).toEqual([
      "services: 2,000,000 caller × callee instance pairs over the calls; at most 1,000,000 (each caller instance keeps a balancer over its callee's instances)",
    ]);
    // At the caps a file loads.
    expect(() => parseScenario(system('instances: 1000'), 'ok.yaml')).not.toThrow();
  });

  it('refuses an instance listed twice, and one a single-instance service does not have', () => {
    const problems = problemsOf(
      system(
        'instances: 4',
        `  one: {}
faults:
  - { service: db, instances: [1, 3, 1], at: 1s, for: 1s, latency: 5ms }
  - { service: one, instances: [1], at: 1s, for: 1s, latency: 5ms }`,
      ),
    );
    expect(problems).toEqual([
      'faults.0.instances.2: instance 1 is listed twice',
      'faults.1.instances.0: no instance 1: one has 1 (0)',
    ]);
  });

  it('names the variants whose changes break a top-level fault (the fault itself is fine elsewhere)', () => {
    const problems = problemsOf(
      system(
        'instances: 4',
        `faults: [{ service: db, instances: [3], at: 1s, for: 1s, latency: 5ms }]
variants:
  four: {}
  two: { services: { db: { instances: 2 } } }
  one: { services: { db: { instances: null } } }`,
      ),
    );
    expect(problems).toEqual([
      'faults.0.instances.0: no instance 3: db has 2 (0-1), in variant two',
      'faults.0.instances.0: no instance 3: db has 1 (0), in variant one',
    ]);
    // A problem every variant has is the top level's own: no variant named.
    expect(
      problemsOf(
        system(
          'instances: 2',
          'faults: [{ service: db, instances: [3], at: 1s, for: 1s, latency: 5ms }]\nvariants: { a: {}, b: {} }',
        ),
      ),
    ).toEqual(['faults.0.instances.0: no instance 3: db has 2 (0-1)']);
    // A variant the schema already refused is not checked further: it does not make the others' problem theirs alone.
    expect(
      problemsOf(
        system(
          'instances: 2',
          'faults: [{ service: db, instances: [3], at: 1s, for: 1s, latency: 5ms }]\nvariants: { a: { services: { db: { workers: -1 } } }, b: {} }',
        ),
      ),
    ).toEqual([
      'variants.a.services.db.workers: must be an integer ≥ 1, got -1',
      'faults.0.instances.0: no instance 3: db has 2 (0-1)',
    ]);
  });

  it("refuses an outlier detector whose maxHosts is below the callee's instances: it would forget its own pool", () => {
    expect(problemsOf(system('instances: 4', 'calls: { api -> db: { outlierDetection: { maxHosts: 3 } } }'))).toEqual([
      "calls.api -> db.outlierDetection.maxHosts: must be at least 4 (db has 4 instances, all in the detector's pool), got 3",
    ]);
    expect(() =>
      parseScenario(system('instances: 4', 'calls: { api -> db: { outlierDetection: { maxHosts: 4 } } }'), 't.yaml'),
    ).not.toThrow();
  });

  it('refuses a sweep interval that would make the run billions of events (a hang), naming the key', () => {
    const yaml = system('instances: 4', 'calls: { api -> db: { outlierDetection: { interval: 1us } } }').replace(
      'duration: 10s',
      'duration: 1h',
    );
    expect(problemsOf(yaml)).toEqual([
      'calls.api -> db.outlierDetection.interval: 3,600,000,000 sweeps over the run (1 caller instance × 3,600,000 ms / 0.001 ms); at most 10,000,000: lengthen the interval',
    ]);
    expect(() => parseScenario(yaml.replace('1us', '1ms').replace('1h', '2h'), 't.yaml')).not.toThrow();
  });
});
