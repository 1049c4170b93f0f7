// The real Envoy and Istio configs in ../shared/mesh-reference/configs: each imports and its scenario simulates, or is refused naming the file and the part.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MeshError } from '../../src/mesh/errors.js';
import { importMesh, readMeshFile } from '../../src/mesh/import.js';
import { parseScenario, runVariant } from '../../src/sim/index.js';
import { referenceConfigs, referencePath } from './mesh-reference.js';

/** What each file does today. A refusal's pattern must name the file and the part (document N, or a path in it). */
type Outcome = { imports: true; why: string } | { refused: RegExp; why: string };

const OUTCOMES: Readonly<Record<string, Outcome>> = {
  'envoy-istioctl-describe-http-config-dump.json': {
    imports: true,
    why: 'an admin config_dump (istioctl describe test data: RDS route config and clusters, proto3 JSON names): the route to productpage and its retries',
  },
  'istio-bookinfo-destination-rule-all.yaml': { imports: true, why: 'four DestinationRules with subsets (v1)' },
  'istio-bookinfo-virtual-service-all-v1.yaml': { imports: true, why: 'four VirtualServices routing to subset v1' },
  'istio-bookinfo-virtual-service-ratings-test-abort.yaml': {
    imports: true,
    why: 'a header match (end-user jason) with fault.abort, then a default route: the fault is not run, and no warning says so',
  },
  'istio-bookinfo-virtual-service-ratings-test-delay.yaml': {
    imports: true,
    why: 'a header match (end-user jason) with fault.delay, then a default route: the fault is not run, and no warning says so',
  },
  'istio-bookinfo-virtual-service-reviews-90-10.yaml': { imports: true, why: 'a weighted split between subsets' },
  'istio-bookinfo-virtual-service-reviews-jason-v2-v3.yaml': { imports: true, why: 'a header match, then a default' },
  'istio-io-circuit-breaking-task-old.yaml': {
    imports: true,
    why: 'connectionPool and outlierDetection with the deprecated consecutiveErrors (v1alpha3)',
  },
  'istio-io-circuit-breaking-task.yaml': {
    imports: true,
    why: 'connectionPool and outlierDetection with consecutive5xxErrors (v1alpha3)',
  },
  'istio-testdata-destination-rule-all.yaml': {
    imports: true,
    why: 'a ServiceEntry and a DestinationRule using (nearly) every field',
  },
  'istio-testdata-destination-rule-locality.yaml': { imports: true, why: 'locality load balancing settings' },
  'istio-testdata-virtual-service-all.yaml': { imports: true, why: 'a VirtualService using many fields' },
};

/** Long enough to pass the imported scenario's window start (5 s) and judge some users; short to keep the test quick. */
const RUN_MS = 8000;

const files = referenceConfigs();

describe('the real configs in ../shared/mesh-reference/configs', () => {
  it('are each in the table of outcomes (a new file needs its expected outcome written down)', () => {
    expect(files).toEqual(Object.keys(OUTCOMES).sort());
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  it.each(files)('%s', async (file) => {
    const path = join(referencePath('configs'), file);
    const expected = OUTCOMES[file] as Outcome;
    let refusal: MeshError | undefined;
    try {
      await readMeshFile(path);
    } catch (error) {
      if (!(error instanceof MeshError)) throw error;
      refusal = error;
    }
    if ('refused' in expected) {
      expect(refusal?.problems, `${file} should be refused: ${expected.why}`).toBeDefined();
      const problems = refusal?.problems ?? [];
      expect(problems).toContainEqual(expect.stringMatching(expected.refused));
      // Every problem names the file and the part of it: a document by number, or a path inside one.
      for (const p of problems) {
        expect(p).toContain(file);
        expect(p).toMatch(/: document \d+[:( ]|: [\w.[\]"-]+(\.[\w[\]"-]+)+: /);
      }
      return;
    }
    expect(refusal?.problems ?? [], `${file} should import: ${expected.why}`).toEqual([]);
    const imported = await importMesh(path);
    const scenario = parseScenario(imported.yaml, `${file} (imported)`);
    expect(scenario.variants.map((v) => v.name)).toEqual(['mesh']);
    const run = runVariant(scenario, 'mesh', 1, { durationMs: RUN_MS });
    const s = run.summary;
    expect(s.userRequests, 'at least one request ran').toBeGreaterThan(0);
    for (const rate of Object.values(s.successRate)) expect(rate).toBeGreaterThanOrEqual(0);
    for (const rate of Object.values(s.successRate)) expect(rate).toBeLessThanOrEqual(1);
    const entries = new Set(scenario.variants[0]?.model.traffic.map((t) => t.to));
    const entryArrivals = run.services.filter((x) => entries.has(x.name)).reduce((n, x) => n + x.arrivals, 0);
    expect(entryArrivals, 'every user request arrives at an entry').toBe(s.userRequests);
    expect(Object.keys(s.edges).length, 'the imported calls ran').toBeGreaterThan(0);
    const sentTo = new Map<string, number>();
    for (const caller of run.services)
      for (const [callee, st] of Object.entries(caller.calls)) {
        const edge = s.edges[`${caller.name} -> ${callee}`];
        const where = `${caller.name} -> ${callee}`;
        expect(edge, `${where} has a summary`).toBeDefined();
        expect(st.calls, `${where}: calls made`).toBeGreaterThan(0);
        const stopped = Object.values(st.stops).reduce((a, b) => a + b, 0);
        expect(stopped + st.active, `${where}: every call ended or is still active`).toBe(st.calls);
        expect(st.attempts, `${where}: attempts are calls plus granted retries at most`).toBeLessThanOrEqual(
          st.calls + st.retries,
        );
        expect(edge?.upstreamRqTotal ?? 0, `${where}: sent attempts are begun attempts at most`).toBeLessThanOrEqual(
          st.attempts,
        );
        expect(edge?.upstreamRqRetry ?? 0).toBeLessThanOrEqual(edge?.upstreamRqTotal ?? 0);
        sentTo.set(callee, (sentTo.get(callee) ?? 0) + (edge?.upstreamRqTotal ?? 0));
      }
    for (const [callee, sent] of sentTo) {
      const arrived = run.services.find((x) => x.name === callee)?.arrivals ?? 0;
      expect(arrived, `${callee}: attempts that arrived`).toBeGreaterThan(0);
      expect(arrived, `${callee}: no more attempts arrive than were sent`).toBeLessThanOrEqual(sent);
    }
  });
});
