// Knock-outs are keyed by a mark in the code, not by a file path: a comment tag on the guarded line, or alone on the
// line directly above it. A mark is `@ko` and a name (lower-case words joined by `-`) in the file's comment syntax:
//   .ts .js (and .mts, .cts, .mjs, .cjs, .tsx, .jsx)   a `//` comment: `@ko` after two slashes
//   .yaml .yml .sh                                      a `#` comment
//   .md                                                 an HTML comment, closed on the same line
//   .json (no comments)                                 a member of its own, `"//<word>": "@ko <name>"`, npm's
//                                                       convention for comments in package.json
// The comment holds the mark and nothing else, so a sentence that mentions the syntax is never a mark. The same
// syntax with `@eq` marks a line whose surviving mutants are equivalent (tools/docs/mutation-doc.ts). Moving the
// guarded line with its mark to another file keeps the knock-out; tools/test/knockouts.ts and test/tools/knockouts.test.ts
// find the one file holding each mark among the tracked files (git ls-files, or a bounded walk without git).

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

/** A mark's name: lower-case letters and digits, words joined by single dashes. */
export const MARK_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The tags: `@ko` marks a knock-out's line (tools/test/knockouts/list.ts), `@eq` a line whose surviving mutants are
 * equivalent (tools/docs/mutation-doc.ts says why). Marks of both kinds may stand stacked above one line.
 */
export type MarkTag = 'ko' | 'eq';
const NAME = '([a-z0-9]+(?:-[a-z0-9]+)*)';
const TAG = '@(ko|eq)';
const SLASHES = new RegExp(`^(.*?)//[ \\t]*${TAG}[ \\t]+${NAME}[ \\t]*$`);
const HASH = new RegExp(`^(.*?)#[ \\t]*${TAG}[ \\t]+${NAME}[ \\t]*$`);
const HTML = new RegExp(`^(.*?)<!--[ \\t]*${TAG}[ \\t]+${NAME}[ \\t]*-->[ \\t]*$`);
const JSON_MEMBER = new RegExp(`^([ \\t]*)"//[\\w-]*"[ \\t]*:[ \\t]*"${TAG}[ \\t]+${NAME}"[ \\t]*,?[ \\t]*$`);

const SYNTAX: Record<string, RegExp> = {
  '.ts': SLASHES,
  '.tsx': SLASHES,
  '.mts': SLASHES,
  '.cts': SLASHES,
  '.js': SLASHES,
  '.jsx': SLASHES,
  '.mjs': SLASHES,
  '.cjs': SLASHES,
  '.yaml': HASH,
  '.yml': HASH,
  '.sh': HASH,
  '.md': HTML,
  '.json': JSON_MEMBER,
};

/** Where a mark is: its file (relative to the tree's root) and lines, 0-based. */
export interface MarkSite {
  tag: MarkTag;
  mark: string;
  file: string;
  /** The line holding the mark. */
  markLine: number;
  /** The guarded line: the mark's own line when code precedes the comment, else the line after it. */
  line: number;
}

/** The comment syntax of marks in `file`, or null for a file that cannot hold one. */
export function markSyntax(file: string): RegExp | null {
  return SYNTAX[extname(file)] ?? null;
}

/**
 * Every mark with `tag` in one file's text. A mark alone on its line guards the next line that is not itself a
 * stand-alone mark (a knock-out's and a mutant's mark may be stacked above one line).
 */
export function marksIn(file: string, text: string, tag: MarkTag = 'ko'): MarkSite[] {
  const syntax = markSyntax(file);
  if (syntax === null || !text.includes(`@${tag}`)) return [];
  const lines = text.split('\n');
  const found = lines.map((line) => {
    const m = syntax.exec(line.replace(/\r$/, ''));
    return m === null ? null : { tag: m[2] as MarkTag, mark: m[3] as string, alone: (m[1] as string).trim() === '' };
  });
  const sites: MarkSite[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = found[i];
    if (m === null || m === undefined || m.tag !== tag) continue;
    let line = i;
    if (m.alone) for (line = i + 1; found[line]?.alone === true; line++);
    sites.push({ tag, mark: m.mark, file, markLine: i, line });
  }
  return sites;
}

const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'reports', 'coverage', '.git']);
const WALK_DIRS = ['src', 'tools', 'test', 'docs', 'scenarios', 'bench', 'examples'];
const MAX_BYTES = 2_000_000;

/** The files a mark may be in: tracked and untracked-not-ignored (git), else a walk of the source folders. */
export function markFiles(root: string): string[] {
  let files: string[];
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    files = out.split('\0').filter((f) => f !== '');
  } catch {
    files = [];
    const walk = (dir: string, depth: number): void => {
      if (depth > 12 || !existsSync(join(root, dir))) return;
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.stryker-tmp')) walk(path, depth + 1);
        } else if (entry.isFile()) files.push(path);
      }
    };
    for (const dir of WALK_DIRS) walk(dir, 0);
    for (const entry of readdirSync(root, { withFileTypes: true })) if (entry.isFile()) files.push(entry.name);
  }
  return files
    .filter((f) => markSyntax(f) !== null && !f.split('/').some((part) => SKIP_DIRS.has(part)))
    .filter((f) => {
      const path = join(root, f);
      return existsSync(path) && statSync(path).size <= MAX_BYTES;
    })
    .sort();
}

/** Every mark with `tag` in the tree at `root`, by name (a knock-out's mark held twice has two sites: an error). */
export function scanMarks(root: string, tag: MarkTag = 'ko'): Map<string, MarkSite[]> {
  const marks = new Map<string, MarkSite[]>();
  for (const file of markFiles(root)) {
    for (const site of marksIn(file, readFileSync(join(root, file), 'utf8'), tag)) {
      marks.set(site.mark, [...(marks.get(site.mark) ?? []), site]);
    }
  }
  return marks;
}

/** The one site of `mark`, or why there is none. */
export function siteOf(marks: Map<string, MarkSite[]>, mark: string): MarkSite | string {
  if (!MARK_NAME.test(mark)) return `the mark "${mark}" is not a mark name (lower-case words joined by -)`;
  const sites = marks.get(mark) ?? [];
  if (sites.length === 1) return sites[0] as MarkSite;
  if (sites.length === 0) return `no mark "@ko ${mark}" in any tracked file: put it on (or directly above) the line`;
  const where = sites.map((s) => `${s.file}:${s.markLine + 1}`).join(', ');
  return `the mark "@ko ${mark}" is in ${sites.length} places (${where}): it must be in exactly one`;
}

/**
 * `text` (the marked file) with `find` replaced by `replace` at the site: `find` must start on the guarded line and
 * occur there exactly once (a find of n lines is looked for in the n lines from the guarded one). Returns the new
 * text, or why the change does not apply.
 */
export function applyAtMark(
  text: string,
  site: MarkSite,
  find: string,
  replace: string,
): { text: string } | { problem: string } {
  const lines = text.split('\n');
  if (site.line >= lines.length)
    return { problem: `the mark "@ko ${site.mark}" ends ${site.file}: no line follows it` };
  const span = find.split('\n').length;
  const start = lines.slice(0, site.line).reduce((n, l) => n + l.length + 1, 0);
  const window = lines.slice(site.line, site.line + span).join('\n');
  const count = window.split(find).length - 1;
  if (count !== 1) {
    const at = `${site.file}:${site.line + 1}`;
    return { problem: `"${find}" occurs ${count} times at the mark "@ko ${site.mark}" (${at}; must be once)` };
  }
  const end = start + window.length;
  return { text: text.slice(0, start) + window.replace(find, () => replace) + text.slice(end) };
}
