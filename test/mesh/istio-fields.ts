// The Istio fields Seawall writes: every field path of every document `mesh export` writes (and of the example), with
// its JSON type, and the probes that ask a validator whether it knows and types a field. Shared by
// tools/docs/istio-record.ts (asks Istio's published models) and src/mesh/istio/schema.published.test.ts (checks the record).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportScenario } from '../../src/mesh/export.js';
import { readScenarioView } from '../../src/mesh/scenario-read.js';
import { parseYamlDocuments } from '../../src/mesh/yaml-io.js';
import { listBuiltinScenarios } from '../../src/sim/scenario/load.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RECORD_FILE = join(ROOT, 'src', 'mesh', 'fixtures', 'istio-published-schema.json');
const EXAMPLE = join(ROOT, 'examples', 'mesh', 'istio-checkout.yaml');

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array';
type Step = string | number;

export interface IstioDoc {
  source: string;
  kind: string;
  value: Record<string, unknown>;
}

/** One field as a document uses it: `key` is "<Kind> <path>" with list items as `[]`; `at` is where, in `doc`. */
export interface FieldUse {
  key: string;
  type: JsonType;
  doc: IstioDoc;
  at: Step[];
}

/** What the published models said about one field (the record's entries). */
export interface FieldRecord {
  type: JsonType;
  /** The models' message for a value of the wrong JSON type at this path; null = they accepted it (field not typed). */
  wrongType: string | null;
  /** For string fields: the models' message for the string "SEAWALL_PROBE"; null = any string is accepted. */
  badString: string | null;
}

export interface PublishedRecord {
  source: string;
  fields: Record<string, FieldRecord>;
}

export const BAD_STRING = 'SEAWALL_PROBE';

function jsonType(value: unknown): JsonType | null {
  if (Array.isArray(value)) return 'array';
  if (value === null) return null;
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'object' ? t : null;
}

/** A value of another JSON type than `type`, for the wrong-type probe. */
export function wrongTypeFor(type: JsonType): unknown {
  return type === 'string' ? 12345 : 'seawall-probe';
}

/** "spec.http[0].retries.attempts", as validators' messages spell a path. */
export function dotted(at: readonly Step[]): string {
  let out = '';
  for (const s of at) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** A deep copy of `doc` with `value` at `at`. */
export function withValueAt(
  doc: Record<string, unknown>,
  at: readonly Step[],
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(doc);
  let node: Record<string | number, unknown> = copy;
  for (const s of at.slice(0, -1)) node = node[s] as Record<string | number, unknown>;
  node[at[at.length - 1] as Step] = value;
  return copy;
}

/** Every field under `spec` of every document, containers included. */
export function fieldUses(docs: readonly IstioDoc[]): FieldUse[] {
  const uses: FieldUse[] = [];
  const walk = (doc: IstioDoc, value: unknown, at: Step[], pattern: string) => {
    const type = jsonType(value);
    if (type === null) return;
    if (at.length > 1) uses.push({ key: `${doc.kind} ${pattern}`, type, doc, at });
    if (type === 'array') {
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) walk(doc, items[i], [...at, i], `${pattern}[]`);
    } else if (type === 'object')
      for (const [k, v] of Object.entries(value as Record<string, unknown>))
        walk(doc, v, [...at, k], `${pattern}.${k}`);
  };
  for (const doc of docs) walk(doc, doc.value.spec, ['spec'], 'spec');
  return uses;
}

/** The first use of each field key, in a fixed order. */
export function firstUses(uses: readonly FieldUse[]): Map<string, FieldUse> {
  const first = new Map<string, FieldUse>();
  for (const u of uses) if (!first.has(u.key)) first.set(u.key, u);
  return new Map([...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The Istio documents `mesh export` writes for every variant of every built-in scenario, and the shipped example. */
export async function writtenDocuments(): Promise<IstioDoc[]> {
  const docs: IstioDoc[] = [];
  const add = (text: string, source: string) => {
    for (const d of parseYamlDocuments(text, source)) {
      const value = d.value as Record<string, unknown>;
      docs.push({ source: `${source}#${d.index + 1}`, kind: String(value.kind), value });
    }
  };
  for (const scenario of listBuiltinScenarios()) {
    for (const variant of readScenarioView(scenario).variants) {
      const result = await exportScenario(scenario, { variant: variant.name, format: 'istio' });
      for (const f of result.files) add(f.text, `${scenario}/${variant.name}`);
    }
  }
  add(readFileSync(EXAMPLE, 'utf8'), 'examples/mesh/istio-checkout.yaml');
  return docs;
}
