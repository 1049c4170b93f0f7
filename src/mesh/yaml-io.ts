// YAML in and out for mesh files: bounded multi-document parsing with line/column errors, and stable output.

import { stringify } from 'yaml';
import { type ParsedYaml, parseDocuments, toPlain } from '../sim/scenario/yaml-bounds.js';
import { MAX_DOCUMENTS, MAX_FILE_BYTES } from './bounds.js';
import { MeshError } from './errors.js';

/** One parsed YAML document: its index in the file (0-based) and its plain JS value. */
export interface YamlDoc {
  index: number;
  value: unknown;
}

/** Parses every document of `text`; empty documents are skipped. Throws MeshError naming `source`, line and column. */
export function parseYamlDocuments(text: string, source: string): YamlDoc[] {
  if (text.length > MAX_FILE_BYTES) throw new MeshError([`${source}: larger than the ${MAX_FILE_BYTES}-byte limit`]);
  let docs: ParsedYaml[];
  try {
    docs = parseDocuments(text);
  } catch (error) {
    throw new MeshError([`${source}: cannot parse YAML: ${(error as Error).message.split('\n')[0]}`]);
  }
  if (docs.length > MAX_DOCUMENTS) {
    throw new MeshError([`${source}: ${docs.length} YAML documents is more than the ${MAX_DOCUMENTS} allowed`]);
  }
  const problems: string[] = [];
  const out: YamlDoc[] = [];
  docs.forEach(({ doc, problems: found }, index) => {
    for (const { at, message } of found) {
      problems.push(`${source}: ${at ? `line ${at.line}, column ${at.col}` : `document ${index + 1}`}: ${message}`);
    }
    if (found.length > 0) return;
    const plain = toPlain(doc);
    if ('problem' in plain) {
      problems.push(`${source}: document ${index + 1}: ${plain.problem}`);
      return;
    }
    const value = plain.value;
    if (value === null || value === undefined) return;
    out.push({ index, value });
  });
  if (problems.length > 0) throw new MeshError(problems);
  return out;
}

/** YAML text of `value`: keys in the order the objects were built, no line folding, no anchors. */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false, indentSeq: true });
}

/** Several documents, each with optional comment lines above it, joined by `---`. */
export function toYamlDocuments(docs: readonly { comments?: readonly string[]; value: unknown }[]): string {
  return docs
    .map((d) => {
      const head = (d.comments ?? []).map((c) => `# ${c}`.trimEnd()).join('\n');
      return `${head === '' ? '' : `${head}\n`}${toYaml(d.value)}`;
    })
    .join('---\n');
}
