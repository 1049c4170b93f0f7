// `seawall simulate` on a flood into an unbounded queue (issue #25 item 6): stopped at maxLive, in seconds, in bounded RSS.
import { spawn } from 'node:child_process';
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
/** The stop takes about 9 s here (tsx's start and a million arrivals, on a loaded 2-core box); unbounded, 76 s. */
const LIMIT_MS = 60_000;
/** The stop peaks at about 380 MB; unbounded, the same run peaked at 1.6 GB (killed here at twice this bound). */
const RSS_LIMIT_KB = 600 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'seawall-simulate-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  maxRssKb: number | null;
}

function simulate(target: string): Promise<Run> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', RSS_PRELOAD, MAIN, 'simulate', target, '--json'],
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    if (stdout.length < 100_000) stdout += String(d);
  });
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 100_000) stderr += String(d);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  timer.unref();
  // Without the bound the run grows by hundreds of MB a second: killed at twice the limit, not left to the OOM killer.
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
        stdout,
        stderr: stderr.replace(/maxrss=\d+\n/, ''),
        ms: Date.now() - started,
        maxRssKb: rss === null ? null : Number(rss[1]),
      });
    });
  });
}

describe('seawall simulate holds at most maxLive requests and events at once', () => {
  it(
    'stops 1,000,000 requests/s into one worker with an unbounded queue at 1,000,000, with the figure and the fix',
    async () => {
      const file = join(dir, 'flood.yaml');
      writeFileSync(
        file,
        'name: flood\nduration: 6s\ntraffic: [{ to: server, rate: 1000000 }]\n' +
          'services:\n  server: { workers: 1, serviceTime: { dist: constant, value: 10ms } }\n',
      );
      const run = await simulate(file);
      expect(run.signal, `killed after ${run.ms} ms: ${run.stderr.slice(0, 300)}`).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^${file.replaceAll('.', '\\.')}: variant default, seed 1: stopped at 1(\\.\\d+)? s of 6 s: 1,000,00\\d requests and events held at once .*more than maxLive 1,000,000 \\(about 250 MB\\); server held 99\\d,\\d{3} requests \\(99\\d,\\d{3} queued for 1 worker, queueLimit unbounded\\)\\. To run it: give services\\.server a queueLimit, lower the traffic rate, or raise the top-level maxLive$`,
          'm',
        ),
      );
      expect(run.stderr).toMatch(/^seawall: the run was stopped; nothing was written$/m);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).not.toMatch(/internal error/);
      expect(run.ms).toBeLessThan(LIMIT_MS);
      expect(run.maxRssKb).not.toBeNull();
      expect(run.maxRssKb as number).toBeLessThan(RSS_LIMIT_KB);
    },
    LIMIT_MS + 10_000,
  );
});
