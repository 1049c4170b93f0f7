// Seawall's Istio output against what Istio's published schema says about each field it writes, as recorded from the
// published models (src/mesh/fixtures/istio-published-schema.json, by tools/docs/istio-record.ts): no install needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BAD_STRING,
  dotted,
  type FieldUse,
  fieldUses,
  firstUses,
  type PublishedRecord,
  RECORD_FILE,
  withValueAt,
  writtenDocuments,
  wrongTypeFor,
} from '../../../test/mesh/istio-fields.js';
import { destinationRuleSpecSchema, sidecarSpecSchema, virtualServiceSpecSchema } from './schema.js';

const record = JSON.parse(readFileSync(RECORD_FILE, 'utf8')) as PublishedRecord;
const RERECORD =
  "not in the record of Istio's published schema: re-record it (npm install --no-save @kubernetes-models/istio@3.0.1 && npx tsx tools/docs/istio-record.ts) and review the diff";

const SPEC_SCHEMAS: Record<string, z.ZodType> = {
  VirtualService: virtualServiceSpecSchema,
  DestinationRule: destinationRuleSpecSchema,
  Sidecar: sidecarSpecSchema,
};

/** The paths at which Seawall's own strict schema refuses `doc` (dotted, from the document's root). */
function seawallRefuses(kind: string, doc: Record<string, unknown>): string[] {
  const result = (SPEC_SCHEMAS[kind] as z.ZodType).safeParse(doc.spec);
  return result.success ? [] : result.error.issues.map((i) => dotted(['spec', ...(i.path as (string | number)[])]));
}

// Built inside the tests, not in a hook: an export that throws is a red test, not a skipped file.
let written: Promise<FieldUse[]> | undefined;
const writtenUses = (): Promise<FieldUse[]> => {
  written ??= writtenDocuments().then(fieldUses);
  return written;
};

describe("Istio's published schema, as recorded from its models", () => {
  it('comes from the models of networking.istio.io/v1, the API version Seawall writes', () => {
    expect(record.source).toMatch(/^@kubernetes-models\/istio 3\.\d+\.\d+ .*networking\.istio\.io\/v1;/);
    expect(Object.keys(record.fields).length).toBeGreaterThan(40);
  });

  it('knows and types every field the export writes (every variant of every built-in scenario, and the example)', async () => {
    const uses = await writtenUses();
    expect(uses.length).toBeGreaterThan(1000);
    const missing: string[] = [];
    for (const use of uses) {
      const field = record.fields[use.key];
      if (field === undefined) missing.push(`${use.key} (${use.doc.source}): ${RERECORD}`);
      else if (field.type !== use.type) missing.push(`${use.key}: written as ${use.type}, recorded as ${field.type}`);
      else if (field.wrongType === null) missing.push(`${use.key}: the published schema does not type this field`);
    }
    expect([...new Set(missing)]).toEqual([]);
    // DestinationRule's retryBudget (Istio >= 1.28) is the field an older model set would lack.
    expect(record.fields['DestinationRule spec.trafficPolicy.retryBudget.percent']?.wrongType).toBe('must be number');
  });

  it("refuses, with Seawall's own schema, every wrong value the published schema refuses, at the same path", async () => {
    const uses = await writtenUses();
    const lenient: string[] = [];
    for (const [key, use] of firstUses(uses)) {
      const field = record.fields[key];
      if (field === undefined) continue; // reported by the test above
      const path = dotted(use.at);
      const probes: [string, unknown][] = [];
      if (field.wrongType !== null) probes.push([`wrong type (published: ${field.wrongType})`, wrongTypeFor(use.type)]);
      if (field.badString !== null) probes.push([`"${BAD_STRING}" (published: ${field.badString})`, BAD_STRING]);
      for (const [what, value] of probes) {
        const refused = seawallRefuses(use.doc.kind, withValueAt(use.doc.value, use.at, value));
        if (!refused.includes(path)) lenient.push(`${key}: ${what} passes Seawall's schema`);
      }
    }
    expect(lenient).toEqual([]);
  });
});
