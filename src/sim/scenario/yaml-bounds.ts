// Bounded YAML, shared by scenarios and mesh files: a linear duplicate-key check, alias limits as a clear error.

import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  type ParsedNode,
  parseAllDocuments,
  parseDocument,
  type YAMLMap,
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
  /** Offsets -> lines and columns, for lineOfPath. */
  lines: LineCounter;
  /** lineOfPath's index of each mapping's keys, built on first use. */
  keyIndex: WeakMap<YAMLMap, Map<string, Pair>>;
}

/**
 * The 1-based line of the key at a dotted path (`services.api.workers`, `faults.0.for`) in the document, following
 * aliases; with `nearest`, the line of the deepest key that exists when the path does not (a missing key's mapping).
 * A key that itself contains dots is matched whole (the longest match first). Null when nothing is found.
 */
export function lineOfPath(parsed: ParsedYaml, path: string, nearest = false): number | null {
  const keysOf = (map: YAMLMap): Map<string, Pair> => {
    let index = parsed.keyIndex.get(map);
    // Indexed once per mapping: a file with thousands of problems in a mapping of thousands of keys stays linear.
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items as Pair[]) {
        if (isScalar(pair.key) && !index.has(String(pair.key.value))) index.set(String(pair.key.value), pair);
      }
      parsed.keyIndex.set(map, index);
    }
    return index;
  };
  const segments = path === '' ? [] : path.split('.');
  let node: unknown = parsed.doc.contents;
  let offset: number | null = null;
  let i = 0;
  while (i < segments.length) {
    if (isAlias(node)) node = node.resolve(parsed.doc);
    let found = false;
    if (isMap(node)) {
      const keys = keysOf(node as YAMLMap);
      for (let k = segments.length - i; k >= 1 && !found; k--) {
        const pair = keys.get(segments.slice(i, i + k).join('.'));
        if (pair === undefined) continue;
        offset = (pair.key as ParsedNode).range?.[0] ?? offset;
        node = pair.value;
        i += k;
        found = true;
      }
    } else if (isSeq(node) && /^\d+$/.test(segments[i] as string)) {
      const item = node.items[Number(segments[i])] as ParsedNode | undefined;
      if (item !== undefined) {
        offset = item.range?.[0] ?? offset;
        node = item;
        i += 1;
        found = true;
      }
    }
    if (!found) break;
  }
  // @ko scenario-problem-line
  if (offset === null || (i < segments.length && !nearest)) return null;
  return parsed.lines.linePos(offset).line;
}

/** Parses one document (a second is a problem, as the parser reports it) with the linear duplicate-key check. */
export function parseOneDocument(text: string): ParsedYaml {
  const lines = new LineCounter();
  // @ko yaml-duplicate-keys-linear
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  return { doc, problems: problemsOf(doc, lines), lines, keyIndex: new WeakMap() };
}

/** Parses every document of a stream, each with its problems. */
export function parseDocuments(text: string): ParsedYaml[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  const list = Array.isArray(docs) ? docs : [];
  return list.map((doc) => ({ doc, problems: problemsOf(doc, lines), lines, keyIndex: new WeakMap() }));
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
