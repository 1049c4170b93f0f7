// Ctrl-C while initdb runs: the throwaway cluster's temp dir is gone and no initdb is left, every time (5 runs).

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { holdHooks } from './cleanup.js';
import { findPostgres } from './cluster.js';

const CLUSTER_TS = fileURLToPath(new URL('./cluster.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUNS = 5;
const skip = findPostgres() === null && !process.env.CI;

// A tmpdir of our own (TMPDIR for the children): what is left in it is theirs. As root, initdb runs as postgres,
// who must be able to reach it.
const base = mkdtempSync(join(tmpdir(), 'seawall-int-'));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const dirsOf = (pid: number): string[] => readdirSync(base).filter((n) => n.startsWith(`seawall-lab-pg-${pid}-`));

/** Pids of running processes whose command line names a path under `base` (initdb -D <base>/...). */
function toolsInBase(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`${base}/seawall-lab-pg-`)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** One run: a child starts a cluster (no watchdog: our own handlers must do it), and gets SIGINT during initdb. */
async function interruptDuringInitdb(): Promise<{
  signal: string | null;
  code: number | null;
  left: string[];
  initdbAtSignal: boolean;
}> {
  const script = `
    const { startThrowawayCluster } = await import(${JSON.stringify(CLUSTER_TS)});
    await startThrowawayCluster({ watchdog: false });
    process.stdout.write('started\\n');
    process.exit(3);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: base },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += String(d)));
  child.stderr?.on('data', (d: Buffer) => (output += String(d)));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const pid = child.pid as number;
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  killer.unref();
  try {
    // initdb has begun once the data dir exists (it makes it first; the server is started only after initdb ends).
    await waitFor(
      () => dirsOf(pid).some((d) => existsSync(join(base, d, 'data', 'PG_VERSION'))),
      20_000,
      `initdb to begin in ${base}: ${output}`,
    );
    const initdbAtSignal = toolsInBase().length > 0;
    child.kill('SIGINT');
    const end = await exited;
    // Whatever is left now, or reappears a moment later (an initdb still writing), is a leftover.
    const left = dirsOf(pid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    left.push(...dirsOf(pid).filter((d) => !left.includes(d)));
    return { ...end, left, initdbAtSignal };
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
  }
}

describe.skipIf(skip)('Ctrl-C during initdb', () => {
  it(`removes the temp dir and leaves no initdb running (${RUNS} runs)`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      const result = await interruptDuringInitdb();
      const tools = toolsInBase();
      for (const pid of tools) process.kill(pid, 'SIGKILL');
      const clean = { run, signal: 'SIGINT', code: null, left: [], tools: [], initdbAtSignal: true };
      expect({ run, ...result, tools }).toEqual(clean);
    }
  }, 120_000);
});

describe('the exit and signal hooks', () => {
  it('are installed before a cluster dir is made (holdHooks), and go when nothing holds them', () => {
    const before = process.listenerCount('SIGINT');
    const letGo = holdHooks();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    letGo();
    letGo(); // once only
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
