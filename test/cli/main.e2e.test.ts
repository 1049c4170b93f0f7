// End-to-end: spawns the built `node dist/cli/main.js` on a tiny temporary scenario and checks outputs, exit codes, report.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumStatus, inspectCanvases, launchChromium, openReport } from '../report/chromium.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

// A scenario small enough to simulate in a blink: two services, a 2 s worker cut, two variants.
const TINY_SCENARIO = `name: tiny-e2e
duration: 8s
windows: { before: [1s, 3s], during: [3s, 5s], after: [5s, 8s] }
traffic:
  - { to: front, rate: 40, patience: 1s }
services:
  front: { calls: [back] }
  back: { workers: 4, serviceTime: { dist: exponential, mean: 20ms } }
faults:
  - { service: back, at: 3s, for: 2s, workers: 1 }
variants:
  single:
    calls:
      front -> back: { maxAttempts: 1 }
  retrying:
    calls:
      front -> back: { maxAttempts: 3, perTryTimeout: 300ms, backoff: none }
`;

const BROKEN_SCENARIO = `name: broken
duration: -5s
traffic:
  - { to: front, rate: 40 }
services:
  front: { workers: zero }
`;

/** Newest modification time of the non-test sources under src/. */
function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * A run takes 0.5–4 s. spawnSync blocks the worker, so vitest's own timeout cannot fire during it: a CLI that hung
 * would hang the whole suite. This bound kills it and names the command instead.
 */
const RUN_TIMEOUT_MS = 30_000;

function seawall(args: string[]) {
  const child = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '' },
    timeout: RUN_TIMEOUT_MS,
  });
  if ((child.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
    throw new Error(`seawall ${args.join(' ')} did not finish within ${RUN_TIMEOUT_MS} ms`);
  }
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

const STACK_LINE = /^\s+at /m;

describe('seawall (built CLI, end to end)', () => {
  let dir: string;
  let tiny: string;
  let broken: string;

  beforeAll(() => {
    // `npm test` builds before vitest; when run alone, build (again) if dist/ is missing or older than src/.
    if (!existsSync(MAIN) || statSync(MAIN).mtimeMs < newestSourceMs(join(ROOT, 'src'))) {
      const build = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
        // Blocking, like every spawnSync here: bounded below the 60 s hook timeout, which cannot fire meanwhile.
        { cwd: ROOT, encoding: 'utf8', timeout: 55_000 },
      );
      if (build.status !== 0) {
        throw new Error(
          `npm run build failed (${build.error?.message ?? build.status}):\n${build.stdout}${build.stderr}`,
        );
      }
    }
    dir = mkdtempSync(join(tmpdir(), 'seawall-e2e-'));
    tiny = join(dir, 'tiny.yaml');
    broken = join(dir, 'broken.yaml');
    writeFileSync(tiny, TINY_SCENARIO);
    writeFileSync(broken, BROKEN_SCENARIO);
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts with a shebang so npm can link it as the bin', () => {
    expect(readFileSync(MAIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('--help prints usage with exit 0', () => {
    const run = seawall(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: seawall simulate <file.yaml | built-in> [options]');
    expect(run.stderr).toBe('');
  });

  it('--version prints the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(seawall(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [['simulate', 'x', '--bogus'], 'seawall: unknown option --bogus'],
    [['simulate'], 'seawall: simulate needs a scenario: a YAML file or a built-in name'],
    [['simulate', 'x', '--seed', 'abc'], "seawall: --seed: 'abc' is not a non-negative integer"],
    [['simulate', 'no-such-scenario'], "seawall: no scenario file or built-in named 'no-such-scenario'"],
  ])('bad arguments %j exit 2 with a one-line error and no stack trace', (args, message) => {
    const run = seawall(args);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toContain(message);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stdout).toBe('');
  });

  it('an unknown variant exits 2 and lists the known ones', () => {
    const run = seawall(['simulate', tiny, '--variant', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`seawall: unknown variant 'nope' in ${tiny}; known: single, retrying`);
  });

  it('a broken scenario file exits 1 with one line per problem naming its path, no stack trace', () => {
    const run = seawall(['simulate', broken]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.some((l) => l.startsWith(`${broken}: duration: `))).toBe(true);
    expect(lines.some((l) => l.startsWith(`${broken}: services.front.workers: `))).toBe(true);
    expect(lines.at(-1)).toMatch(/^seawall: .*broken\.yaml is not a valid scenario \(\d+ problems\)$/);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stdout).toBe('');
  });

  it('prints a summary table with a row per variant', () => {
    const run = seawall(['simulate', tiny]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^tiny-e2e: 8 s simulated/);
    expect(run.stdout).toMatch(/\nsingle\s+\d/);
    expect(run.stdout).toMatch(/\nretrying\s+\d/);
  });

  it('fits 80 columns (a pipe) on the checkout incident with 3 seeds, and prints the load after the trigger', () => {
    const run = seawall([
      'simulate',
      'checkout-incident',
      '--variant',
      'bad,one-layer-jitter-deadline-header',
      '--seeds',
      '1,2,3',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    // The README's figure: 15.81 attempts at member-api per user request after the trigger (the whole run: 9.28).
    expect(lines.find((l) => /^bad\s+1\s/.test(l))?.split(/\s+/)).toContain('15.81');
    expect(lines.filter((l) => l.startsWith('bad')).join('\n')).not.toContain('9.28');
    expect(lines.filter((l) => /\smean\s/.test(l))).toHaveLength(2);
    const wide = seawall(['simulate', 'checkout-incident', '--variant', 'bad', '--wide']);
    expect(wide.stdout).toContain('9.28');
    expect(Math.max(...wide.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(100);
  });

  it('--json emits exactly one parseable document, the same for the same seed', () => {
    const run = seawall(['simulate', tiny, '--json', '--seeds', '1,2']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(Object.keys(doc)).toEqual(['scenario', 'description', 'durationS', 'windows', 'variants', 'engine', 'runs']);
    expect(doc.runs.map((r: { variant: string; seed: number }) => `${r.variant}/${r.seed}`)).toEqual([
      'single/1',
      'single/2',
      'retrying/1',
      'retrying/2',
    ]);
    const again = JSON.parse(seawall(['simulate', tiny, '--json', '--seeds', '1,2']).stdout);
    doc.engine.wallMs = again.engine.wallMs = 0;
    expect(again).toEqual(doc);
  });

  describe('--out DIR', () => {
    let out: string;
    let run: ReturnType<typeof seawall>;

    beforeAll(() => {
      out = join(dir, 'report');
      run = seawall(['simulate', tiny, '--out', out, '--variant', 'single,retrying']);
    });

    it('writes summary.json (same as --json), timeseries.csv and report.html', () => {
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      const json = JSON.parse(seawall(['simulate', tiny, '--json']).stdout);
      summary.engine.wallMs = json.engine.wallMs = 0;
      expect(summary).toEqual(json);
      const csv = readFileSync(join(out, 'timeseries.csv'), 'utf8').trimEnd().split('\n');
      expect(csv[0]).toBe(
        'variant,seed,t,service,arrivals,successRate,goodput,queueLength,inFlight,wasted,budgetTokens',
      );
      expect(csv).toHaveLength(1 + 2 * 8 * 2); // 2 variants × 8 bins × 2 services
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toContain('Chart.js v4');
      expect(html).toContain(`--variant single --variant retrying --out ${out}`);
      expect(run.stderr).toContain(`wrote ${join(out, 'summary.json')}`);
    });

    const chromium = chromiumStatus();
    const skip = !chromium.present && !chromium.required;
    it.skipIf(skip)(
      `report.html renders its charts in headless Chromium${skip ? ` (SKIPPED: ${chromium.reason})` : ''}`,
      async () => {
        if (!chromium.present) throw new Error(`Chromium is required under CI: ${chromium.reason}`);
        const browser = await launchChromium();
        try {
          const { page, consoleErrors, foreignRequests } = await openReport(browser, join(out, 'report.html'));
          const canvases = await inspectCanvases(page);
          expect(canvases.length).toBeGreaterThanOrEqual(3); // success + arrivals at each of 2 services
          for (const canvas of canvases) {
            expect(canvas.width * canvas.height, canvas.id).toBeGreaterThan(0);
            expect(canvas.painted, canvas.id).toBeGreaterThan(1000);
            expect(canvas.triggerAlpha, canvas.id).toBeGreaterThan(0);
          }
          expect(consoleErrors).toEqual([]);
          expect(foreignRequests).toEqual([]);
        } finally {
          await browser.close();
        }
      },
    );
  });
});
