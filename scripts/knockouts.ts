// Switches each tested mechanism off in turn (scripts/knockouts-list.ts) and checks that its tests turn red.
// Run: npm run knockouts [-- ID ...] [--no-baseline]   (`--doc` only rewrites the table in docs/testing.md)
// The source is restored after every knock-out, also on Ctrl-C; a knock-out its tests miss fails the run.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { knockoutTable, replaceTable } from './knockouts-doc.js';
import { KNOCKOUTS, type Knockout } from './knockouts-list.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
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
  /** Tests that failed, from test/count-reporter.ts's last line (0 when a file failed to load: no test ran red). */
  failed: number;
  passed: number;
  ms: number;
  /** The last few kilobytes vitest printed. */
  out: string;
}

/** Runs vitest on `files`. */
function runTests(files: string[]): Promise<TestRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const reporters = ['--reporter=dot', '--reporter=./test/count-reporter.ts'];
    const child = spawn(process.execPath, [VITEST, 'run', ...reporters, ...files], {
      cwd: ROOT,
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

let restore: (() => void) | null = null;
process.on('SIGINT', () => {
  restore?.();
  process.exit(130);
});

/** Applies the knock-out, runs its tests, restores the file. */
async function knockOut(k: Knockout): Promise<string | null> {
  const path = `${ROOT}${k.file}`;
  const original = readFileSync(path, 'utf8');
  const count = original.split(k.find).length - 1;
  if (count !== 1) return `"${k.find}" occurs ${count} times in ${k.file} (must be once): update the list`;
  restore = () => writeFileSync(path, original);
  try {
    writeFileSync(path, original.replace(k.find, k.replace));
    const { code, failed, ms } = await runTests(k.tests);
    const seconds = (ms / 1000).toFixed(1);
    if (code === null) return `its tests ran past ${LIMIT_MS / 1000} s (killed): a red that needs a timeout`;
    if (code === 0) return `its tests stayed green (${seconds} s)`;
    // A change that breaks the build also exits non-zero; only a failing test counts as caught.
    if (failed === 0) return `no test failed (exit ${code}): does the changed line still compile?`;
    log(`  caught: ${k.id} (${failed} test${failed === 1 ? '' : 's'} red in ${seconds} s)`);
    return null;
  } finally {
    restore();
    restore = null;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--doc')) {
    writeFileSync(DOC, replaceTable(readFileSync(DOC, 'utf8'), knockoutTable(KNOCKOUTS)));
    log(`wrote the table in ${DOC}`);
    return;
  }
  // --no-baseline: the caller has just run these tests green on this source (.ci/run runs npm test first).
  const skipBaseline = args.includes('--no-baseline');
  const ids = args.filter((a) => a !== '--no-baseline');
  const unknown = ids.filter((id) => !KNOCKOUTS.some((k) => k.id === id));
  if (unknown.length > 0) throw new Error(`no knock-out named ${unknown.join(', ')}`);
  const chosen = ids.length === 0 ? KNOCKOUTS : KNOCKOUTS.filter((k) => ids.includes(k.id));
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
  for (const k of chosen) {
    const problem = await knockOut(k);
    if (problem !== null) {
      missed.push(`${k.id}: ${problem}`);
      log(`  MISSED: ${k.id}: ${problem}`);
    }
  }
  log(`${chosen.length - missed.length} of ${chosen.length} knock-outs caught`);
  if (missed.length > 0) process.exitCode = 1;
}

await main();
