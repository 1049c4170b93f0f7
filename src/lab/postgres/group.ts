// A tool run in its own process group (initdb, and runuser's child under it), so a signal handler can end all of it.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { OUTPUT_LIMIT_BYTES, type RunAs, type RunResult, TOOL_ENV } from './exec.js';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * run() (exec.ts), but the tool leads a process group of its own: `onStart(pgid)` when it is running, `onEnd()` when
 * it has exited. A timeout SIGKILLs the whole group. As root the tool is runuser (or su) with initdb under it: killing
 * the group ends initdb too, where killing runuser alone would leave it writing into a dir being removed.
 */
export function runInGroup(
  runAs: RunAs,
  file: string,
  args: readonly string[],
  options: { timeoutMs: number; cwd: string; onStart(pgid: number): void; onEnd(): void },
): Promise<RunResult> {
  const cmd = runAs.wrap(file, args);
  return new Promise((resolve) => {
    const child = spawn(cmd.file, cmd.args, {
      cwd: options.cwd,
      env: TOOL_ENV,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_LIMIT_BYTES) stdout += String(d);
    });
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_LIMIT_BYTES) stderr += String(d);
    });
    let timedOut = false;
    const pgid = child.pid;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pgid !== undefined) killGroupSync(pgid, 0);
    }, options.timeoutMs);
    timer.unref();
    if (pgid !== undefined) options.onStart(pgid);
    const end = (result: RunResult) => {
      clearTimeout(timer);
      options.onEnd();
      resolve(result);
    };
    child.once('error', (error) => end({ ok: false, timedOut: false, output: error.message }));
    child.once('close', (code, signal) => {
      const output = `${stderr}\n${stdout}`.trim();
      const ok = code === 0;
      end({ ok, timedOut, output: !ok && output === '' ? `${cmd.file} ended with ${code ?? signal}` : output });
    });
  });
}

/** Whether any process of group `pgid` is still running (zombies are not: they can write nothing). */
function groupRunning(pgid: number): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * SIGKILLs process group `pgid` and waits (synchronously, for signal and exit handlers) up to `waitMs` until none of
 * it runs, so that nothing writes into a dir removed next. Never throws.
 */
export function killGroupSync(pgid: number, waitMs = 3000): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    return; // no such group: it has ended
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && groupRunning(pgid)) Atomics.wait(sleeper, 0, 0, 10);
}
