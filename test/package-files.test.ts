// What the npm package holds, from `npm pack --dry-run`: no stray logs or tarballs, PNGs within a bound, and every
// file the shipped docs and `seawall mesh --help` point a user at is in it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { helpText } from '../src/cli/help.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The docs' pictures: one PNG at most this large, all of them together at most the total (the package is ~2 MB). */
const MAX_PNG_BYTES = 256 * 1024;
const MAX_PNG_TOTAL_BYTES = 512 * 1024;

let sizes: Map<string, number>;
let files: string[];

beforeAll(() => {
  // --ignore-scripts: a listing needs no build (prepack would run one). dist/ is listed when built; nothing here needs it.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [info] = JSON.parse(out) as [{ files: { path: string; size: number }[] }];
  sizes = new Map(info.files.map((f) => [f.path, f.size]));
  files = [...sizes.keys()];
}, 60_000);

/**
 * The docs' pictures stay in the repository (package.json `files`: "!docs/images"; 650 KB against a 185 kB package):
 * a shipped page may show one if it is there. Everything else a page names must ship.
 */
function repositoryPicture(path: string): boolean {
  const p = normalize(path);
  return p.startsWith('docs/images/') && /\.(png|jpe?g|svg)$/.test(p) && existsSync(join(ROOT, p)) && !sizes.has(p);
}

/** Whether `path` (relative to the package root) is a shipped file, or a folder or file prefix of one. */
function shipped(path: string): boolean {
  const p = normalize(path).replace(/\/$/, '');
  return sizes.has(p) || files.some((f) => f.startsWith(`${p}/`) || f.startsWith(`${p}-`));
}

/** The Markdown files the package ships, with their text. */
function shippedDocs(): { path: string; text: string }[] {
  return files.filter((f) => f.endsWith('.md')).map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

describe('the package contents', () => {
  it("runs no script in a consumer's install: the build runs at pack time (prepack), not as prepare", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const installTime = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
    expect(Object.keys(scripts).filter((s) => installTime.includes(s))).toEqual([]);
    expect(scripts.prepack).toBe('npm run build');
  });

  it('holds no node trace log, no log and no packed tarball', () => {
    expect(files.filter((f) => /(^|\/)node_trace\.\d+\.log$|\.log$|\.tgz$/.test(f))).toEqual([]);
  });

  it(`holds no PNG over ${MAX_PNG_BYTES / 1024} KiB, and ${MAX_PNG_TOTAL_BYTES / 1024} KiB of PNGs at most`, () => {
    const pngs = files.filter((f) => f.endsWith('.png'));
    expect(pngs.filter((f) => (sizes.get(f) as number) > MAX_PNG_BYTES)).toEqual([]);
    expect(pngs.reduce((sum, f) => sum + (sizes.get(f) as number), 0)).toBeLessThanOrEqual(MAX_PNG_TOTAL_BYTES);
  });

  it('ships every file a relative link of its Markdown points to (pictures: in the repository)', () => {
    const missing: string[] = [];
    for (const { path, text } of shippedDocs()) {
      for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const resolved = normalize(join(dirname(path), target));
        if (!shipped(resolved) && !repositoryPicture(resolved)) missing.push(`${path}: ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("ships every examples/, scenarios/ and docs/ file its Markdown names (the package's own folders)", () => {
    const missing: string[] = [];
    for (const { path, text } of shippedDocs()) {
      // Not a folder of the same name elsewhere (tools/docs/..., test/examples/...): the name starts the path.
      for (const m of text.matchAll(/(?<![\w./-])((?:examples|scenarios|docs)\/[\w./-]*[\w/])/g)) {
        const named = m[1] as string;
        // The pictures' folder and the screenshot tool's prefixes there (docs/images/report) are the repository's.
        if (!shipped(named) && !/^docs\/images(\/|$)/.test(named)) missing.push(`${path}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships the files the help texts name, at the path they give from a project that installed seawall', () => {
    const topics = ['main', 'simulate', 'mesh', 'mesh import', 'mesh export', 'lint', 'lab'] as const;
    const named = topics.flatMap((t) =>
      [...helpText(t, '0.0.0').matchAll(/\S+\.(?:ya?ml|json|ts|md)\b/g)].map((m) => m[0]),
    );
    // Placeholders (<file.yaml>, DIR/summary.json) and the outputs a command writes are no files to ship.
    const files = named.filter((w) => !/[<>|]|^[A-Z]+\/|^out\/|^envoy\//.test(w) && w.includes('/'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(file, 'a shipped file is reached through node_modules/seawall/').toMatch(/^node_modules\/seawall\//);
      expect(shipped(file.replace(/^node_modules\/seawall\//, '')), file).toBe(true);
    }
  });
});
