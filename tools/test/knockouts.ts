// Switches each tested mechanism off in turn (tools/test/knockouts/list.ts) and checks that its tests turn red. Each
// knock-out names a mark in the code (tools/test/knockouts/marks.ts), not a file: the line it changes is the marked one.
// Run: npm run knockouts [-- ID ...] [--no-baseline] [--lanes N]   (`--doc` only rewrites the table in docs/testing.md)
// The source is restored after every knock-out, also on Ctrl-C; a knock-out its tests miss fails the run.

import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { knockoutTable, replaceTable } from '../docs/knockouts-doc.js';
import { KNOCKOUTS, type Knockout } from './knockouts/list.js';
import { applyAtMark, type MarkSite, scanMarks, siteOf } from './knockouts/marks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = `${ROOT}docs/testing.md`;
const VITEST = `${ROOT}node_modules/vitest/vitest.mjs`;
/** A knock-out whose tests run longer than this counts as missed: a test that only fails by timing out is no test. */
const LIMIT_MS = 180_000;

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

interface TestRun {
  /** Exit code; null when killed at the limit. */
  code: number | null;
  /** Tests that failed, from test/support/count-reporter.ts's last line (0 when a file failed to load: no test ran red). */
  failed: number;
  passed: number;
  ms: number;
  /** The last few kilobytes vitest printed. */
  out: string;
}

/**
 * Runs vitest on `files` in the tree at `root` (the checkout, or a lane's copy of it). `bail`: stop at the first red
 * test (a knock-out is caught by one; the rest of its files, a property's shrinking among them, is time spent for
 * nothing: ratio-budget-withdrawal took 105 s without it).
 */
function runTests(files: string[], root = ROOT, bail = false): Promise<TestRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const reporters = ['--reporter=dot', '--reporter=./test/support/count-reporter.ts'];
    const child = spawn(process.execPath, [VITEST, 'run', ...reporters, ...(bail ? ['--bail=1'] : []), ...files], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out = (out + chunk).slice(-8192);
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const counts = /vitest: (\d+) passed, (\d+) failed/.exec(out);
      resolve({
        code,
        passed: Number(counts?.[1] ?? 0),
        failed: Number(counts?.[2] ?? 0),
        ms: performance.now() - started,
        out,
      });
    });
  });
}

/** What undoes the knock-outs in progress (one per lane), and the lanes' copies to remove, also on Ctrl-C. */
const restores = new Set<() => void>();
const copies: string[] = [];
process.on('SIGINT', () => {
  for (const restore of restores) restore();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});

/**
 * A copy of the checkout for a second lane: every tracked top-level entry but node_modules (linked) and what runs
 * leave behind (out/, reports/, .git). Knock-outs in different lanes then edit different files.
 */
function laneCopy(): string {
  const base = mkdtempSync(join(tmpdir(), 'seawall-knockouts-'));
  copies.push(base);
  const dir = join(base, 'tree');
  // Tests read the reference material beside the checkout (../shared); the copy keeps that neighbour.
  const shared = join(ROOT, '..', 'shared');
  if (existsSync(shared)) symlinkSync(shared, join(base, 'shared'), 'dir');
  const skip = new Set(['node_modules', '.git', 'out', 'reports']);
  for (const entry of readdirSync(ROOT)) {
    if (skip.has(entry) || entry.startsWith('.stryker-tmp')) continue;
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return `${dir}/`;
}

/**
 * Applies the knock-out in the tree at `root` (at the line its mark guards, found once in the checkout: a lane's copy
 * holds the same files), runs its tests there, restores the file.
 */
async function knockOut(k: Knockout, marks: Map<string, MarkSite[]>, root = ROOT): Promise<string | null> {
  const site = siteOf(marks, k.mark);
  if (typeof site === 'string') return `${site}: update the list or the mark`;
  const path = `${root}${site.file}`;
  const original = readFileSync(path, 'utf8');
  const changed = applyAtMark(original, site, k.find, k.replace);
  if ('problem' in changed) return `${changed.problem}: update the list`;
  const restore = () => writeFileSync(path, original);
  restores.add(restore);
  try {
    writeFileSync(path, changed.text);
    const { code, failed, ms } = await runTests(k.tests, root, true);
    const seconds = (ms / 1000).toFixed(1);
    if (code === null) return `its tests ran past ${LIMIT_MS / 1000} s (killed): a red that needs a timeout`;
    if (code === 0) return `its tests stayed green (${seconds} s)`;
    // A change that breaks the build also exits non-zero; only a failing test counts as caught.
    if (failed === 0) return `no test failed (exit ${code}): does the changed line still compile?`;
    log(`  caught: ${k.id} (${failed} test${failed === 1 ? '' : 's'} red in ${seconds} s)`);
    return null;
  } finally {
    restore();
    restores.delete(restore);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--doc')) {
    writeFileSync(DOC, replaceTable(readFileSync(DOC, 'utf8'), knockoutTable(KNOCKOUTS, scanMarks(ROOT))));
    log(`wrote the table in ${DOC}`);
    return;
  }
  // --no-baseline: the caller has just run these tests green on this source (.ci/run runs npm test first).
  const skipBaseline = args.includes('--no-baseline');
  // --lanes N: N knock-outs at a time, each lane in its own copy of the tree (the first in the checkout itself).
  const lanesAt = args.indexOf('--lanes');
  const lanes = lanesAt < 0 ? 1 : Number(args[lanesAt + 1]);
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > 8) throw new Error('--lanes needs a whole number from 1 to 8');
  const ids = args.filter((a, i) => a !== '--no-baseline' && (lanesAt < 0 || (i !== lanesAt && i !== lanesAt + 1)));
  const unknown = ids.filter((id) => !KNOCKOUTS.some((k) => k.id === id));
  if (unknown.length > 0) throw new Error(`no knock-out named ${unknown.join(', ')}`);
  const chosen = ids.length === 0 ? KNOCKOUTS : KNOCKOUTS.filter((k) => ids.includes(k.id));
  // Each mark is looked up once, in the checkout, before any file is changed.
  const marks = scanMarks(ROOT);
  const unplaced = chosen.map((k) => [k.id, siteOf(marks, k.mark)] as const).filter(([, s]) => typeof s === 'string');
  if (unplaced.length > 0) throw new Error(unplaced.map(([id, problem]) => `${id}: ${problem}`).join('\n'));
  // The tests must pass as they are, or their red under a knock-out proves nothing.
  const files = [...new Set(chosen.flatMap((k) => k.tests))];
  if (skipBaseline) log(`baseline: skipped (--no-baseline: ${files.length} test files passed just before)`);
  else {
    log(`baseline: ${files.length} test files, unchanged source`);
    const baseline = await runTests(files);
    if (baseline.code !== 0 || baseline.passed === 0) {
      log(baseline.out);
      throw new Error('the tests fail without any knock-out: fix them first');
    }
  }
  const missed: string[] = [];
  const queue = [...chosen];
  const lane = async (root: string) => {
    for (let k = queue.shift(); k !== undefined; k = queue.shift()) {
      const problem = await knockOut(k, marks, root);
      if (problem !== null) {
        missed.push(`${k.id}: ${problem}`);
        log(`  MISSED: ${k.id}: ${problem}`);
      }
    }
  };
  try {
    const roots = [ROOT, ...Array.from({ length: Math.min(lanes, chosen.length) - 1 }, laneCopy)];
    await Promise.all(roots.map(lane));
  } finally {
    for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
  log(`${chosen.length - missed.length} of ${chosen.length} knock-outs caught`);
  if (missed.length > 0) process.exitCode = 1;
}

await main();
