// `seawall simulate` on files that are no scenario (/dev/zero, a FIFO, one through extends:, 5 MB): a clear refusal, fast.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The CLI from source through tsx: nothing is built, and a knock-out in the source is what runs.
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
// The child's own peak RSS (kB on Linux), printed as it exits: no wrapper process that could outlive a kill.
const RSS_PRELOAD = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;
/** A refusal takes 1–7 s here (tsx's start, on a loaded 2-core box); a knocked-out reader hangs until this kills it. */
const LIMIT_MS = 25_000;
/** Far above a refusal (about 150 MB with tsx), far below reading /dev/zero or a 5 MB scenario (GBs, 100s of MB). */
const RSS_LIMIT_KB = 400 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'seawall-simulate-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
  maxRssKb: number | null;
}

function simulate(target: string): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', RSS_PRELOAD, MAIN, 'simulate', target], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 100_000) stderr += String(d);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  timer.unref();
  // A knocked-out reader on /dev/zero grows by GBs a second: it is killed at twice the limit, not left to the OOM killer.
  const watch = setInterval(() => {
    try {
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      if (rss > 2 * RSS_LIMIT_KB) child.kill('SIGKILL');
    } catch {
      // gone, or no /proc
    }
  }, 20);
  watch.unref();
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      const rss = /maxrss=(\d+)/.exec(stderr);
      resolve({
        code,
        signal,
        stderr: stderr.replace(/maxrss=\d+\n/, ''),
        ms: Date.now() - started,
        maxRssKb: rss === null ? null : Number(rss[1]),
      });
    });
  });
}

function expectRefused(run: Run, line: RegExp): void {
  expect(run.signal, `killed after ${LIMIT_MS} ms: ${run.stderr.slice(0, 300)}`).toBeNull();
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(line);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toMatch(/internal error/);
  expect(run.ms).toBeLessThan(LIMIT_MS);
  expect(run.maxRssKb).not.toBeNull();
  expect(run.maxRssKb as number).toBeLessThan(RSS_LIMIT_KB);
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('seawall simulate reads only a regular file of at most 4 MB', () => {
  it('refuses /dev/zero as a character device', async () => {
    const run = await simulate('/dev/zero');
    expectRefused(run, /^\/dev\/zero: \(root\): not a regular file \(a character device\)$/m);
  });

  it('refuses a FIFO without opening it (no writer: the open would block forever)', async () => {
    const path = fifo('pipe.yaml');
    expectRefused(await simulate(path), /: \(root\): not a regular file \(a FIFO\)$/m);
  });

  it('refuses a FIFO named by extends:, naming the parent file', async () => {
    const parent = fifo('parent.yaml');
    const child = join(dir, 'child.yaml');
    writeFileSync(child, `extends: ./parent.yaml\nname: child\n`);
    const run = await simulate(child);
    expectRefused(
      run,
      new RegExp(`child\\.yaml: extends: ${parent.replaceAll('.', '\\.')}: not a regular file \\(a FIFO\\)$`, 'm'),
    );
  });

  it('refuses a 5 MB file by its size, before reading it', async () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(5 * 1024 * 1024 - 3)}\n`);
    expectRefused(await simulate(big), /big\.yaml: \(root\): 5 MB is more than the 4 MB a scenario may be$/m);
  });
});
