// Finds the fenced code blocks of README.md and docs/*.md, with their language and the markers written before them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How a block is checked, from its info string (```ts, ```yaml ...); 'text' is shown output, not code. */
export type Kind = 'ts' | 'js' | 'yaml' | 'json' | 'sh' | 'console' | 'promql' | 'text';

const KINDS: Readonly<Record<string, Kind>> = {
  ts: 'ts',
  typescript: 'ts',
  mts: 'ts',
  js: 'js',
  javascript: 'js',
  mjs: 'js',
  yaml: 'yaml',
  yml: 'yaml',
  json: 'json',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  console: 'console',
  promql: 'promql',
  '': 'text',
  text: 'text',
  txt: 'text',
};

export interface Block {
  /** The file, relative to the repository (README.md, docs/cli.md). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word as written ('' when none). */
  lang: string;
  /** undefined: a language this test has no checker for (the test fails and names it). */
  kind: Kind | undefined;
  /** The content, with the fence's indentation removed. */
  text: string;
  /** `<!-- continues -->`: the block goes on from the previous ts/js block of the same file (one module). */
  continues: boolean;
  /** `<!-- run -->`: a whole program, run after type-checking. */
  run: boolean;
  /** `<!-- skip: reason -->`: not checked; the reason is required. */
  skip: string | undefined;
}

/** README.md and every docs/*.md, in a stable order. */
export function docFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs];
}

const OPEN = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^`]*$/;
const MARKER = /^\s*<!--\s*(continues|run|skip)\s*(?::\s*(.*?))?\s*-->\s*$/;
const COMMENT = /^\s*<!--.*-->\s*$/;

/** The markers on the lines just above a fence (blank lines and other HTML comments may sit between). */
function markersBefore(
  lines: readonly string[],
  fence: number,
  where: string,
): Pick<Block, 'continues' | 'run' | 'skip'> {
  const found: Pick<Block, 'continues' | 'run' | 'skip'> = { continues: false, run: false, skip: undefined };
  for (let i = fence - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    if (!COMMENT.test(line)) break;
    const m = MARKER.exec(line);
    if (m === null) continue;
    if (m[1] === 'continues') found.continues = true;
    else if (m[1] === 'run') found.run = true;
    else {
      const reason = (m[2] ?? '').trim();
      if (reason === '')
        throw new Error(`${where}: <!-- skip --> needs a reason: <!-- skip: why this block is not checked -->`);
      found.skip = reason;
    }
  }
  return found;
}

/** Every fenced block of one Markdown text. */
export function blocksOf(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] as string);
    if (open === null) continue;
    const indent = (open[1] as string).length;
    const fence = open[2] as string;
    const lang = (open[3] as string).toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      const trimmed = line.trim();
      if (trimmed.startsWith(fence[0] as string) && /^(`{3,}|~{3,})$/.test(trimmed) && trimmed.length >= fence.length) {
        break;
      }
      body.push(line.slice(Math.min(indent, line.length - line.trimStart().length)));
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: the code block is never closed`);
    const where = `${file}:${i + 1}`;
    blocks.push({
      file,
      line: i + 1,
      lang,
      kind: KINDS[lang],
      text: body.join('\n'),
      ...markersBefore(lines, i, where),
    });
    i = j;
  }
  return blocks;
}

/** Every block of README.md and docs/*.md. */
export function allBlocks(root = ROOT): Block[] {
  return docFiles(root).flatMap((path) =>
    blocksOf(readFileSync(path, 'utf8'), relative(root, path).split('\\').join('/')),
  );
}

export function where(block: Block): string {
  return `${block.file}:${block.line}`;
}
