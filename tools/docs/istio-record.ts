// Records what Istio's published models (@kubernetes-models/istio) say about every field Seawall's Istio export writes,
// into src/mesh/fixtures/istio-published-schema.json; src/mesh/istio/schema.published.test.ts checks exports against it.
//
// Needs the models, which are not a dev dependency (3.x declares Node >= 22):
//   npm install --no-save @kubernetes-models/istio@3.0.1 && npx tsx tools/docs/istio-record.ts
// Each field is probed: the document as written must be accepted; the same document with a value of the wrong JSON
// type at that field must be rejected at that path (so the published schema knows and types the field: the models
// accept unknown fields, so acceptance alone proves nothing); a string field is also given "SEAWALL_PROBE" (enums,
// patterns, formats).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type IstioKind, validateIstioDocument } from '../../src/mesh/istio/models.js';
import {
  BAD_STRING,
  dotted,
  type FieldRecord,
  fieldUses,
  firstUses,
  type PublishedRecord,
  RECORD_FILE,
  withValueAt,
  writtenDocuments,
  wrongTypeFor,
} from '../../test/mesh/istio-fields.js';

const VERSION = 'v1';

async function modelSays(kind: string, doc: Record<string, unknown>, at: readonly (string | number)[]) {
  const lines = await validateIstioDocument(VERSION, kind as IstioKind, doc);
  if (lines === null) throw new Error('the models are not installed: npm install --no-save @kubernetes-models/istio@3');
  const prefix = `${dotted(at)}: `;
  const line = lines.find((l) => l.startsWith(prefix));
  return line === undefined ? null : line.slice(prefix.length);
}

async function main(): Promise<void> {
  const docs = await writtenDocuments();
  for (const d of docs) {
    const lines = await validateIstioDocument(VERSION, d.kind as IstioKind, d.value);
    if (lines === null)
      throw new Error('the models are not installed: npm install --no-save @kubernetes-models/istio@3');
    if (lines.length > 0) throw new Error(`${d.source}: the published models refuse it: ${lines.join('; ')}`);
  }
  const fields: Record<string, FieldRecord> = {};
  for (const [key, use] of firstUses(fieldUses(docs))) {
    const wrongType = await modelSays(use.doc.kind, withValueAt(use.doc.value, use.at, wrongTypeFor(use.type)), use.at);
    const badString =
      use.type === 'string'
        ? await modelSays(use.doc.kind, withValueAt(use.doc.value, use.at, BAD_STRING), use.at)
        : null;
    fields[key] = { type: use.type, wrongType, badString };
  }
  const require = createRequire(import.meta.url);
  const models = JSON.parse(readFileSync(require.resolve('@kubernetes-models/istio/package.json'), 'utf8')) as {
    version: string;
    'crd-generate'?: { input?: string[] };
  };
  const crds = (models['crd-generate']?.input ?? []).map((u) => /istio\/([0-9.]+)\//.exec(u)?.[1]).filter(Boolean);
  const record: PublishedRecord = {
    source: `@kubernetes-models/istio ${models.version} (generated from Istio ${[...new Set(crds)].join(', ')} CRDs), networking.istio.io/${VERSION}; ${docs.length} documents`,
    fields,
  };
  writeFileSync(RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);
  const typed = Object.values(fields).filter((f) => f.wrongType !== null).length;
  console.log(`wrote ${RECORD_FILE}: ${Object.keys(fields).length} fields, ${typed} typed by the published schema`);
}

await main();
