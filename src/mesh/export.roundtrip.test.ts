// Round trips: a scenario variant -> Envoy / Istio YAML -> import gives back the same policy (or exactly the reported changes).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { edgeKey } from '../sim/scenario/merge.js';
import { canonicalCall, canonicalService, diffPaths } from './canonical.js';
import type { MeshWarning } from './errors.js';
import { exportScenario } from './export.js';
import { importRead, readMeshText } from './import.js';
import { readScenarioView, type ScenarioVariantView } from './scenario-read.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const EXACT = join(HERE, 'fixtures', 'exact.yaml');

/** Every call's and service's meaning, keyed by `calls.a -> b` and `services.s`. */
function meaning(variant: ScenarioVariantView, effective: (from: string, to: string) => number | undefined) {
  const out: Record<string, unknown> = {};
  for (const e of variant.edges) {
    const block = {
      ...e.retry,
      seawall: e.seawall,
      limits: e.limits,
      outlierDetection: e.outlierDetection,
      loadBalancer: e.loadBalancer,
      circuitBreaker: e.circuitBreaker,
    };
    out[`calls.${edgeKey(e.from, e.to)}`] = canonicalCall(block as Record<string, unknown>, effective(e.from, e.to));
  }
  for (const s of variant.services) out[`services.${s.name}`] = canonicalService(s);
  return out;
}

/** Exports `variant` as `format`, imports it back over the same scenario, and re-reads the written scenario file. */
async function roundTrip(scenario: string, variant: string, format: 'envoy' | 'istio') {
  const exported = await exportScenario(scenario, { variant, format });
  const text = exported.files.map((f) => f.text).join('---\n');
  const read = await readMeshText(text, `${format}.yaml`);
  const dir = mkdtempSync(join(tmpdir(), 'seawall-rt-'));
  const out = join(dir, 'imported.yaml');
  const imported = importRead(read, `${format}.yaml`, { scenario, variant: 'mesh', outPath: out });
  writeFileSync(out, imported.yaml);
  const before = readScenarioView(scenario).variants.find((v) => v.name === variant) as ScenarioVariantView;
  const after = readScenarioView(out).variants.find((v) => v.name === 'mesh') as ScenarioVariantView;
  // What the mesh is asked to do: a call under the one-layer rule makes one attempt (export writes exactly that).
  const effective = (from: string, to: string) => {
    const note = exported.warnings.find(
      (w) => w.where === edgeKey(from, to) && w.field === 'oneLayer' && w.kind === 'note',
    );
    return note ? 1 : undefined;
  };
  const diffs = diffPaths(
    meaning(before, effective),
    meaning(after, () => undefined),
  );
  return { exported, diffs, read };
}

/** A diff path is covered by a warning about the same setting (`calls.a -> b.budget.percent` by `budget` on a -> b). */
function covered(diff: string, w: MeshWarning): boolean {
  const prefix = w.field.startsWith('services.') ? w.field : `calls.${w.where}.${w.field}`;
  return diff === prefix || diff.startsWith(`${prefix}.`) || prefix.startsWith(`${diff}.`);
}

describe('round trip of a variant the mesh can say exactly', () => {
  it.each(['envoy', 'istio'] as const)(
    '%s: export then import gives back the same policy, with no change reported',
    async (format) => {
      const { exported, diffs } = await roundTrip(EXACT, 'exact', format);
      expect(exported.warnings.filter((w) => w.kind !== 'note')).toEqual([]);
      expect(diffs).toEqual([]);
    },
  );

  it('is byte-for-byte deterministic', async () => {
    const a = await exportScenario(EXACT, { variant: 'exact' });
    const b = await exportScenario(EXACT, { variant: 'exact' });
    expect(a.files).toEqual(b.files);
  });
});

describe("round trip of checkout-incident's good (token bucket, deadline propagation, one layer)", () => {
  it.each(['envoy', 'istio'] as const)('%s: the differences are exactly the reported changes', async (format) => {
    const { exported, diffs } = await roundTrip('checkout-incident', 'good', format);
    const reported = exported.warnings.filter((w) => w.kind !== 'note');
    expect(diffs.length).toBeGreaterThan(0);
    for (const d of diffs)
      expect(
        reported.some((w) => covered(d, w)),
        `difference ${d} is not reported`,
      ).toBe(true);
    for (const w of reported)
      expect(
        diffs.some((d) => covered(d, w)),
        `warning ${w.where} ${w.field} changes nothing`,
      ).toBe(true);
    const fields = new Set(reported.map((w) => w.field));
    for (const f of ['budget', 'backoff', 'retryOn', 'propagateDeadline', 'services.member-api.retryAfter'])
      expect(fields).toContain(f);
    if (format === 'istio') expect(fields).toContain('honorRetryAfter');
  });
});

describe('round trip of a percent budget beside a cap on retries at once', () => {
  // In Seawall both run (the policy's budget and limits.maxRetries, 3 by default); in Envoy the budget replaces it.
  const dir = mkdtempSync(join(tmpdir(), 'seawall-rt-cap-'));
  const file = join(dir, 'cap.yaml');
  writeFileSync(
    file,
    `name: cap\nextends: checkout-incident\nvariants:\n  cap:\n    calls:\n      checkout-bff -> coupon-api:\n        maxAttempts: 3\n        budget: { kind: percent, percent: 20, minConcurrency: 3 }\n        limits: { maxRequests: 100 }\n`,
  );

  it.each(['envoy', 'istio'] as const)(
    '%s: the dropped max_retries is the one reported change of that call',
    async (format) => {
      const { exported, diffs } = await roundTrip(file, 'cap', format);
      const mine = diffs.filter((d) => d.startsWith('calls.checkout-bff -> coupon-api.limits'));
      expect(mine).toEqual(['calls.checkout-bff -> coupon-api.limits.maxRetries']);
      const warning = exported.warnings.find((w) => w.field === 'limits.maxRetries');
      expect(warning?.message).toMatch(/replaces max_retries.*cap of 3 retries at once/);
      expect(mine.every((d) => covered(d, warning as MeshWarning))).toBe(true);
    },
  );
});
