// Bounded YAML, shared by scenarios and mesh files: a linear duplicate-key check, alias limits as a clear error.

import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type ParsedNode,
  parseAllDocuments,
  parseDocument,
} from 'yaml';

/** Most nodes one alias may expand to when a document becomes plain values (the yaml package's maxAliasCount). */
export const MAX_ALIAS_COUNT = 100;
const DUPLICATE_KEY = 'Map keys must be unique';

/** One problem of a document, where it is: 1-based line and column, or null when the parser gives no place. */
export interface YamlProblem {
  at: { line: number; col: number } | null;
  message: string;
}

/**
 * The yaml package's own duplicate-key check (`uniqueKeys: true`) compares each key with every earlier key of its
 * mapping: 50,000 keys took 17 s. Parsing is done with it off and this walk does the same check with a Set per
 * mapping (a scalar key is its value; any other key is never equal to another), iteratively (no depth limit).
 */
function duplicateKeyOffsets(doc: Document.Parsed): number[] {
  const offsets: number[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key as ParsedNode | null;
        if (isScalar(key) && !Number.isNaN(key.value)) {
          // @ko yaml-duplicate-key-set
          if (seen.has(key.value)) offsets.push(key.range?.[0] ?? 0);
          seen.add(key.value);
        }
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    } else if (isAlias(node) || isScalar(node)) {
      // leaves
    }
  }
  return offsets.sort((a, b) => a - b);
}

/** A document's problems in file order: the parser's own, then (merged by place) its duplicate keys. */
function problemsOf(doc: Document.Parsed, lines: LineCounter): YamlProblem[] {
  const found: { offset: number; problem: YamlProblem }[] = doc.errors.map((e) => {
    const at = e.linePos?.[0];
    const message = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { offset: e.pos[0], problem: { at: at ? { line: at.line, col: at.col } : null, message } };
  });
  const duplicates = duplicateKeyOffsets(doc);
  if (duplicates.length === 0) return found.map((f) => f.problem);
  for (const offset of duplicates) {
    const { line, col } = lines.linePos(offset);
    found.push({ offset, problem: { at: { line, col }, message: DUPLICATE_KEY } });
  }
  // A stable sort: the parser's problems keep their order among themselves.
  return found.sort((a, b) => a.offset - b.offset).map((f) => f.problem);
}

/** One YAML document: its problems (empty when it parsed) and the document itself. */
export interface ParsedYaml {
  doc: Document.Parsed;
  problems: YamlProblem[];
}

/** Parses one document (a second is a problem, as the parser reports it) with the linear duplicate-key check. */
export function parseOneDocument(text: string): ParsedYaml {
  const lines = new LineCounter();
  // @ko yaml-duplicate-keys-linear
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  return { doc, problems: problemsOf(doc, lines) };
}

/** Parses every document of a stream, each with its problems. */
export function parseDocuments(text: string): ParsedYaml[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  const list = Array.isArray(docs) ? docs : [];
  return list.map((doc) => ({ doc, problems: problemsOf(doc, lines) }));
}

/**
 * The document as plain values, or the reason it cannot be: an alias that expands past MAX_ALIAS_COUNT nodes (a
 * "billion laughs" file) is a problem of the file, said as such, never an internal error.
 */
export function toPlain(doc: Document.Parsed): { value: unknown } | { problem: string } {
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
    // @ko yaml-alias-bomb-clear
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? '';
    if (/alias/i.test(message)) {
      return {
        problem:
          `aliases expand too far (an alias may stand for at most ${MAX_ALIAS_COUNT} nodes; ` +
          'a file of nested aliases, a "billion laughs", would grow without bound): write the values out',
      };
    }
    return { problem: `cannot read the YAML: ${message}` };
  }
}
