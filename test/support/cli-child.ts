// The seawall CLI from source in a child process, bounded: killed past a time limit or twice an RSS bound, its own
// peak RSS read as it exits (no wrapper process that could outlive a kill).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Through tsx: nothing is built, and a knock-out in the source is what runs.
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const RSS_PRELOAD = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;
/** Most of each stream kept. */
const MAX_OUTPUT = 100_000;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The child's peak RSS in kB (Linux), or null when it was killed before it could say. */
  maxRssKb: number | null;
}

/** Runs `seawall ...args` from the checkout; SIGKILLed after `limitMs` or above twice `rssLimitKb` of RSS. */
export function runCli(args: string[], limitMs: number, rssLimitKb: number): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', RSS_PRELOAD, MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    if (stdout.length < MAX_OUTPUT) stdout += String(d);
  });
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < MAX_OUTPUT) stderr += String(d);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  timer.unref();
  // A run that grows by GBs a second is killed at twice the bound, not left to the OOM killer.
  const watch = setInterval(() => {
    try {
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      if (rss > 2 * rssLimitKb) child.kill('SIGKILL');
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
