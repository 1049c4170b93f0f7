// The layout's rules, checked (issue #23): floors import only floors below them, no import cycle, no source file over
// 400 lines. `npx tsx tools/check-layout.ts [root]` prints one `file:line: problem` per violation and exits 1 on any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One unit of the layout: every src/ file under `dir` (the longest matching dir wins) sits on `floor`. */
export interface Unit {
  readonly dir: string;
  readonly floor: number;
}

/**
 * THE floor table (docs/architecture.md). A file may import a file of its own unit, or of a unit on a lower floor;
 * never sideways (another unit of the same floor) nor up. policy's sub-floors: core lowest, then hop, retry and
 * admission, upstream; policy's own index.ts (seawall/policy) on top of them. The package root (src/index.ts) is the top.
 */
export const FLOORS: readonly Unit[] = [
  { dir: 'src/policy/core', floor: 1.0 },
  { dir: 'src/policy/hop', floor: 1.1 },
  { dir: 'src/policy/retry', floor: 1.2 },
  { dir: 'src/policy/admission', floor: 1.2 },
  { dir: 'src/policy/upstream', floor: 1.3 },
  { dir: 'src/policy', floor: 1.9 },
  { dir: 'src/driver', floor: 2 },
  { dir: 'src/sim', floor: 2 },
  { dir: 'src/http', floor: 3 },
  { dir: 'src/execute', floor: 3 },
  { dir: 'src/report', floor: 3 },
  { dir: 'src/mesh', floor: 3 },
  { dir: 'src/lab', floor: 4 },
  { dir: 'src/cli', floor: 5 },
  { dir: 'src', floor: 6 },
];

/** Longest a source file (tests excluded) may be. */
export const MAX_LINES = 400;

export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

const isTest = (file: string): boolean => /\.test\.m?ts$/.test(file);

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const abs = join(root, dir);
  if (!existsSync(abs)) return out;
  for (const name of readdirSync(abs).sort()) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...sourceFiles(root, rel));
    else if (/\.m?ts$/.test(name) && !name.endsWith('.d.ts') && !isTest(name)) out.push(rel);
  }
  return out;
}

/** The src/ file a relative specifier names ('./x.js' is x.ts), or null (a package, or a file outside src/). */
function resolveSpecifier(root: string, from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = relative(root, resolve(root, dirname(from), spec))
    .split(sep)
    .join('/');
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}/index.ts`];
  for (const c of candidates)
    if (c.startsWith('src/') && existsSync(join(root, c)) && statSync(join(root, c)).isFile()) return c;
  return null;
}

const lineAt = (text: string, pos: number): number => text.slice(0, pos).split('\n').length;

/** Every import, export-from, import type and literal import() of the src/ source files, with its line. */
export function importEdges(root: string): { files: string[]; edges: Edge[] } {
  const files = sourceFiles(root, 'src');
  const edges: Edge[] = [];
  for (const from of files) {
    const text = readFileSync(join(root, from), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      const to = resolveSpecifier(root, from, ref.fileName);
      if (to === null || isTest(to)) continue;
      edges.push({ from, to, line: lineAt(text, ref.pos) });
    }
  }
  return { files, edges };
}

/** The unit a file belongs to, or undefined when no row of the table holds it. */
export function unitOf(file: string, floors: readonly Unit[] = FLOORS): Unit | undefined {
  let best: Unit | undefined;
  for (const u of floors) {
    if (file.startsWith(`${u.dir}/`) && (best === undefined || u.dir.length > best.dir.length)) best = u;
  }
  return best;
}

/** Strongly connected components with more than one file (Tarjan): each is an import cycle. */
export function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

export interface CheckOptions {
  readonly floors?: readonly Unit[];
  readonly maxLines?: number;
}

/** Every violation of the layout's rules under `root`, sorted by file and line. */
export function checkLayout(root: string, options: CheckOptions = {}): Violation[] {
  const floors = options.floors ?? FLOORS;
  const maxLines = options.maxLines ?? MAX_LINES;
  const { files, edges } = importEdges(root);
  const out: Violation[] = [];
  for (const file of files) {
    if (unitOf(file, floors) === undefined) out.push({ file, line: 1, message: 'sits in no floor of the table' });
    const lines = readFileSync(join(root, file), 'utf8').split('\n').length - 1;
    if (lines > maxLines)
      out.push({ file, line: maxLines + 1, message: `${lines} lines: over ${maxLines} (split it)` });
  }
  for (const e of edges) {
    const a = unitOf(e.from, floors);
    const b = unitOf(e.to, floors);
    if (a === undefined || b === undefined || a === b || b.floor < a.floor) continue;
    const how = b.floor === a.floor ? 'sideways' : 'up';
    out.push({
      file: e.from,
      line: e.line,
      message: `imports ${e.to}: runs ${how} a floor (${a.dir} is floor ${a.floor}, ${b.dir} is floor ${b.floor})`,
    });
  }
  for (const scc of cycles(files, edges)) {
    const inside = new Set(scc);
    for (const e of edges) {
      if (inside.has(e.from) && inside.has(e.to)) {
        out.push({ file: e.from, line: e.line, message: `imports ${e.to}: an import cycle of ${scc.join(' -> ')}` });
      }
    }
  }
  return out.sort((x, y) => x.file.localeCompare(y.file) || x.line - y.line);
}

export function formatViolations(list: readonly Violation[]): string {
  return list.map((v) => `${v.file}:${v.line}: ${v.message}`).join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? '.');
  const found = checkLayout(root);
  if (found.length > 0) {
    console.error(formatViolations(found));
    console.error(`${found.length} layout violation(s) (floors in tools/check-layout.ts)`);
    process.exit(1);
  }
  console.log('layout: floors, cycles and file lengths are clean');
}
