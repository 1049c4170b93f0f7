// The scenario validator on 10,000 broken files: a ScenarioError naming paths, or a model whose numbers are usable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseScenario, ScenarioError } from './load.js';
import { MAX_INSTANCES } from './schema.js';

/** A valid scenario, every value of which the property may replace with junk. */
const BASE = {
  name: 'prop',
  duration: '20s',
  windows: { before: ['1s', '5s'], after: ['5s', '10s'] },
  traffic: [{ to: 'api', rate: 10, patience: '1s' }],
  network: { latency: '1ms' },
  services: {
    api: { calls: ['db'] },
    db: {
      instances: 4,
      workers: 2,
      queueLimit: 10,
      serviceTime: { dist: 'exponential', mean: '10ms' },
      errors: { rate: 0.01 },
    },
  },
  calls: {
    'api -> db': {
      circuitBreaker: { failureThreshold: 5, breakDuration: '1s' },
      limits: { maxRequests: 10, maxRetries: 2 },
      outlierDetection: { consecutive5xx: 5, interval: '1s', maxEjectionPercent: 50 },
      loadBalancer: { kind: 'p2c', panicThreshold: 50 },
    },
  },
  faults: [
    { service: 'db', at: '5s', for: '2s', workers: 1 },
    { service: 'db', instances: [0, 2], at: '5s', for: '2s', errors: { rate: 1 } },
  ],
  variants: {
    v: { calls: { 'api -> db': { maxAttempts: 3, perTryTimeout: '100ms', deadline: { patience: '1s' } } } },
  },
};

const junk = fc.oneof(
  fc.constantFrom(
    null,
    -1,
    0,
    1,
    1.5,
    3,
    1e9,
    1e308,
    '',
    'x',
    '2s',
    '-5ms',
    'Infinity',
    '.inf',
    true,
    [],
    {},
    ['db'],
    [1, 1],
  ),
  fc.double(),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 100_000 }),
);

/** Every path of BASE that leads to a value (arrays indexed). */
function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([k, v]) => leafPaths(v, [...prefix, k]))];
}
const PATHS = leafPaths(BASE).filter((p) => p.length > 0);

function withValue(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') return copy; // an earlier edit replaced this branch
    node = next as Record<string | number, unknown>;
  }
  node[path[path.length - 1] as string | number] = value;
  return copy;
}

describe('parseScenario on hostile files (10,000 cases)', () => {
  it('throws only ScenarioError, with one "path: message" line per problem, or returns usable numbers', () => {
    let valid = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...PATHS), junk), { minLength: 1, maxLength: 3, size: 'max' }),
        (edits) => {
          let doc: unknown = BASE;
          for (const [path, value] of edits) doc = withValue(doc, path, value);
          let text: string;
          try {
            text = stringify(doc);
          } catch {
            return; // not representable as YAML: nothing to load
          }
          try {
            const scenario = parseScenario(text, 'prop.yaml');
            valid++;
            expect(Number.isFinite(scenario.durationMs)).toBe(true);
            for (const v of scenario.variants) {
              for (const t of v.model.traffic) expect(Number.isFinite(t.ratePerS) && t.ratePerS >= 0).toBe(true);
              // A run builds what it accepts: instance counts within the cap, faults on instances that exist, once.
              const instances = new Map(v.model.services.map((sv) => [sv.name, sv.instances]));
              for (const n of instances.values())
                expect(Number.isInteger(n) && n >= 1 && n <= MAX_INSTANCES).toBe(true);
              for (const f of v.model.faults) {
                const n = f.service === null ? 0 : (instances.get(f.service) ?? 0);
                for (const k of f.instances ?? []) expect(Number.isInteger(k) && k >= 0 && k < n).toBe(true);
                expect(new Set(f.instances ?? []).size).toBe(f.instances?.length ?? 0);
              }
            }
          } catch (error) {
            expect(error).toBeInstanceOf(ScenarioError);
            for (const line of (error as ScenarioError).problems) expect(line).toMatch(/^[^\n]+: [^\n]+$/);
          }
        },
      ),
      { numRuns: 10_000 },
    );
    expect(valid).toBeGreaterThan(100);
    // ~8 s on a quiet 2-core box; a heavily loaded one took 106 s. It cannot hang: each case is one parse.
  }, 300_000);
});
