// Every Istio file `mesh export` writes, for every built-in variant, validates strictly against the CRDs (../shared/mesh-reference) of the Istio floor it states, CEL rules included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseYamlDocuments } from '../../src/mesh/yaml-io.js';
import { listBuiltinScenarios } from '../../src/sim/scenario/load.js';
import { istioCrds, toCel } from './istio-crd.js';
import {
  builtinVariants,
  type CrdRelease,
  crdReleaseForFloor,
  type ExportCase,
  exportEveryBuiltin,
  referenceConfigs,
  referencePath,
  statedFloor,
  valueAt,
  withValue,
} from './mesh-reference.js';

const RELEASES: readonly CrdRelease[] = ['v1.26.0', 'v1.29.2', 'master'];

let cases: ExportCase[] = [];
beforeAll(async () => {
  cases = await exportEveryBuiltin('istio');
}, 60_000);

/** Each document of a file against one release's CRDs: one line per problem, naming scenario, variant, file, document, kind. */
function problems(c: ExportCase, release: CrdRelease, floor = ''): string[] {
  const label = `${c.scenario} [${c.variant}] ${c.file.path}${floor}`;
  return parseYamlDocuments(c.file.text, label).flatMap((d) =>
    istioCrds(release)
      .validate(d.value)
      .map((e) => `${label}: document ${d.index + 1} (${String(valueAt(d.value, ['kind']))}): ${e} [Istio ${release}]`),
  );
}

describe('every Istio file mesh export writes validates against the CRDs of the Istio floor it states', () => {
  it('covers every variant of every built-in scenario, one istio/<variant>.yaml each', () => {
    expect(cases.map((c) => `${c.scenario} [${c.variant}]`)).toEqual(builtinVariants());
    expect(cases.every((c) => c.file.path === `istio/${c.variant}.yaml`)).toBe(true);
  });

  it.each(listBuiltinScenarios())('scenario %s: every variant, at its stated floor', (scenario) => {
    const mine = cases.filter((c) => c.scenario === scenario);
    expect(mine.length).toBeGreaterThan(0);
    const found = mine.flatMap((c) => {
      const { floor, from } = statedFloor(c.result, c.file.text);
      const said =
        from === 'default' ? `floor ${floor} assumed: the export states none` : `floor ${floor} from ${from}`;
      return problems(c, crdReleaseForFloor(floor), ` (${said})`);
    });
    expect(found).toEqual([]);
  });

  it('is valid Istio of some release: every file validates against the newest CRDs (master)', () => {
    expect(cases.flatMap((c) => problems(c, 'master'))).toEqual([]);
  });
});

describe('the floor picks the CRDs', () => {
  it('maps a floor to the release checked: <= 1.26 -> 1.26.0, 1.27 to 1.29 -> 1.29.2, later -> master', () => {
    const picks = ['1.22', '1.24', '1.26', '1.27', '1.29', '1.30', '2.0'].map(crdReleaseForFloor);
    expect(picks).toEqual(['v1.26.0', 'v1.26.0', 'v1.26.0', 'v1.29.2', 'v1.29.2', 'master', 'master']);
    expect(() => crdReleaseForFloor('1.x')).toThrow(/MAJOR\.MINOR/);
  });

  it('reads the floor from ExportResult.istioFloor, else from the header line, else assumes 1.24', () => {
    expect(statedFloor({ istioFloor: '1.27' }, '# Needs Istio 1.26 or later: x')).toEqual({
      floor: '1.27',
      from: 'istioFloor',
    });
    expect(statedFloor({}, '# Istio resources\n# Needs Istio 1.26 or later: retries.backoff\n')).toEqual({
      floor: '1.26',
      from: 'header',
    });
    expect(statedFloor({}, '# Istio resources\n')).toEqual({ floor: '1.24', from: 'default' });
  });

  const rule = {
    apiVersion: 'networking.istio.io/v1',
    kind: 'DestinationRule',
    metadata: { name: 'coupon-api', namespace: 'default' },
    spec: { host: 'coupon-api.default.svc.cluster.local', trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' } } },
  };
  const budget = withValue(rule, ['spec', 'trafficPolicy', 'retryBudget'], { percent: 10, minRetryConcurrency: 3 });

  it('trafficPolicy.retryBudget is refused by Istio 1.26.0 (an unknown field) and accepted by 1.29.2 and master', () => {
    for (const r of RELEASES) expect(istioCrds(r).validate(rule), r).toEqual([]);
    expect(istioCrds('v1.26.0').validate(budget)).toEqual(['/spec/trafficPolicy/retryBudget: unknown field']);
    expect(istioCrds('v1.29.2').validate(budget)).toEqual([]);
    expect(istioCrds('master').validate(budget)).toEqual([]);
  });

  it('retries.backoff is in all three releases checked (1.26.0 included): it raises no floor above 1.26', () => {
    const vs = {
      apiVersion: 'networking.istio.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'coupon-api' },
      spec: {
        hosts: ['coupon-api'],
        http: [{ route: [{ destination: { host: 'coupon-api' } }], retries: { attempts: 2, backoff: '50ms' } }],
      },
    };
    for (const r of RELEASES) {
      const retries = valueAt(istioCrds(r).schemas.get('VirtualService')?.get('v1'), [
        ...['properties', 'spec', 'properties', 'http', 'items', 'properties', 'retries', 'properties'],
      ]) as Record<string, unknown>;
      expect(Object.keys(retries), r).toContain('backoff');
      expect(istioCrds(r).validate(vs), r).toEqual([]);
    }
  });
});

describe('the validator bites', () => {
  const crds = istioCrds('v1.29.2');
  const vs = {
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: { name: 'coupon-api-seawall', namespace: 'default' },
    spec: {
      hosts: ['coupon-api.default.svc.cluster.local'],
      http: [
        {
          route: [{ destination: { host: 'coupon-api.default.svc.cluster.local' } }],
          retries: { attempts: 2, retryOn: 'gateway-error', perTryTimeout: '800ms' },
          timeout: '1900ms',
        },
      ],
    },
  };
  const retries = ['spec', 'http', 0, 'retries'];
  const dr = {
    apiVersion: 'networking.istio.io/v1',
    kind: 'DestinationRule',
    metadata: { name: 'coupon-api' },
    spec: { host: 'coupon-api', trafficPolicy: { retryBudget: { percent: 10 } } },
  };

  it('accepts a correct resource', () => {
    expect(crds.validate(vs)).toEqual([]);
    expect(crds.validate(dr)).toEqual([]);
  });

  it('refuses unknown fields, at any depth, in metadata too', () => {
    expect(crds.validate(withValue(vs, [...retries, 'attemps'], 2))).toEqual([
      '/spec/http/0/retries/attemps: unknown field',
    ]);
    expect(crds.validate(withValue(vs, ['spec', 'extra'], true))).toEqual(['/spec/extra: unknown field']);
    expect(crds.validate(withValue(vs, ['metadata', 'labelz'], {}))).toEqual(['/metadata/labelz: unknown field']);
  });

  it('refuses wrong types, enums, formats and bounds', () => {
    expect(crds.validate(withValue(vs, [...retries, 'attempts'], 'two'))).toEqual([
      '/spec/http/0/retries/attempts: must be integer',
    ]);
    expect(crds.validate(withValue(vs, [...retries, 'attempts'], 2 ** 31))).toEqual([
      '/spec/http/0/retries/attempts: must match format "int32"',
    ]);
    expect(crds.validate(withValue(vs, ['spec', 'hosts'], 'coupon-api'))).toEqual(['/spec/hosts: must be array']);
    const lb = withValue(dr, ['spec', 'trafficPolicy', 'loadBalancer'], { simple: 'ROUND_ROBINN' });
    expect(crds.validate(lb)).toEqual([
      expect.stringMatching(
        /^\/spec\/trafficPolicy\/loadBalancer\/simple: must be equal to one of the allowed values \[.*"ROUND_ROBIN"/,
      ),
    ]);
    expect(crds.validate(withValue(dr, ['spec', 'trafficPolicy', 'retryBudget', 'percent'], 150))).toEqual([
      '/spec/trafficPolicy/retryBudget/percent: must be <= 100',
    ]);
    expect(crds.validate(withValue(vs, ['metadata', 'name'], 'Coupon_API'))).toEqual([
      expect.stringMatching(/^\/metadata\/name: must match pattern/),
    ]);
    expect(crds.validate(withValue(vs, ['apiVersion'], 'networking.istio.io/v2'))).toEqual([
      expect.stringMatching(/^\/apiVersion: "networking\.istio\.io\/v2" is not a served version of VirtualService/),
    ]);
  });

  it("runs the CEL rules: a duration below 1ms, or one that is no duration, breaks duration(self) >= duration('1ms')", () => {
    const low = crds.validate(withValue(vs, [...retries, 'perTryTimeout'], '500us'));
    expect(low).toEqual([
      "/spec/http/0/retries/perTryTimeout: must be a valid duration greater than 1ms (rule duration(self) >= duration('1ms'): false)",
    ]);
    const bogus = crds.validate(withValue(vs, ['spec', 'http', 0, 'timeout'], '2 seconds'));
    expect(bogus).toEqual([
      expect.stringMatching(/^\/spec\/http\/0\/timeout: must be a valid duration .*rule evaluation error/),
    ]);
    expect(crds.validate(withValue(vs, [...retries, 'perTryTimeout'], '1ms'))).toEqual([]);
  });

  it('every CEL rule of the three releases parses, and each gives true on a value its schema allows (none left unevaluated)', () => {
    const sample = (schema: Record<string, unknown>): unknown => {
      if (schema.type === 'string') return '1s';
      if (schema.type === 'array') return [sample((schema.items ?? {}) as Record<string, unknown>)];
      if (typeof schema.additionalProperties === 'object')
        return { a: sample(schema.additionalProperties as Record<string, unknown>) };
      return {};
    };
    const failing: string[] = [];
    for (const r of RELEASES) {
      const c = istioCrds(r);
      for (const [rule, why] of c.unparsed) failing.push(`${r}: cannot parse ${rule}: ${why}`);
      for (const [rule, site] of c.rules) {
        const outcome = c.evaluate(rule, toCel(sample(site.schema), site.schema));
        if (!outcome.ok) failing.push(`${r}: ${rule} (first at ${site.where}): ${outcome.why}`);
      }
      expect(c.rules.size, r).toBeGreaterThanOrEqual(7);
    }
    expect(failing).toEqual([]);
  });
});

describe('the validator is not stricter than Istio: the Istio configs others wrote (../shared/mesh-reference/configs) pass it', () => {
  const files = referenceConfigs().filter((f) => f.endsWith('.yaml'));
  it.each(files)('%s', (file) => {
    const text = readFileSync(join(referencePath('configs'), file), 'utf8');
    const found: string[] = [];
    for (const d of parseYamlDocuments(text, file)) {
      const kind = String(valueAt(d.value, ['kind']));
      if (kind === 'ServiceEntry') continue; // not a CRD of the reference set (VirtualService, DestinationRule, Sidecar)
      for (const r of RELEASES)
        found.push(
          ...istioCrds(r)
            .validate(d.value)
            .map((e) => `${r} document ${d.index + 1}: ${e}`),
        );
    }
    expect(found).toEqual([]);
  });
});
