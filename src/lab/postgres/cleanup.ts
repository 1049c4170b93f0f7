// Stopping throwaway clusters and removing their dirs: on stop(), on process exit and signals, and after a SIGKILL.

import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { LabError } from '../errors.js';
import { type RunAs, run, runSync } from './exec.js';
import { killGroupSync } from './group.js';
import { isPostmasterOf, readPostmasterPid } from './pids.js';

/*
 * What ends a cluster, by how its process ends (each line has a test in postgres.test.ts):
 * - stop(): pg_ctl stop -m immediate, then the dir is removed; idempotent.
 * - a normal end, process.exit(), an uncaught exception or unhandled rejection: the 'exit' hook, synchronously.
 * - SIGINT, SIGTERM, SIGHUP: the same cleanup, then the signal is raised again so the process dies of it (130, 143,
 *   129) — unless the application listens for it too, which then decides. The hooks are in place before the dir is
 *   made (holdHooks), and a running initdb's process group is SIGKILLed and waited for before the dir is removed.
 * - SIGKILL (or a crash of node itself): the watchdog, a detached shell that sees our pipe close.
 * - SIGKILL of both (kill -9 -1, the OOM killer, a container stop): the next startThrowawayCluster() in this tmpdir and
 *   pid namespace removes clusters whose creator and watchdog are dead (postgres-stale.ts).
 * - If a dir is removed while its server still runs (a failed stop), PostgreSQL rechecks its lock file every minute
 *   and shuts itself down when it is gone (measured: gone within 70 s).
 * Not covered: a machine that loses power or reboots with a tmpdir that survives it, until the next lab start (only
 * then are the dead processes' clusters found); a reused pid (a stale cluster whose creator's pid now belongs to
 * another live process is left alone, conservatively); a lab that never starts again after a double SIGKILL.
 */

/** What it takes to tear one cluster down. */
export interface ClusterResources {
  dir: string;
  dataDir: string;
  pgCtl: string;
  runAs: RunAs;
  watchdog: ChildProcess | null;
  /** The process group of a tool running in the dir (initdb), ended before the dir is removed; null when none. */
  toolPgid: number | null;
}

const SYNC_STOP_TIMEOUT_MS = 15_000;

/** `pg_ctl ... stop` in immediate mode: the postmaster SIGQUITs its backends and exits; nothing is flushed. */
export function stopArgs(dataDir: string, timeoutMs: number): string[] {
  return ['-D', dataDir, '-m', 'immediate', '-w', '-t', String(Math.max(1, Math.ceil(timeoutMs / 1000))), 'stop'];
}

/**
 * The watchdog: a detached shell that blocks reading a pipe from us. The kernel closes the pipe when we die in any way,
 * SIGKILL included; on that end-of-file it stops the cluster and removes the dir. stop() writes "disarm" first.
 * Detached (its own session), it does not get the terminal's Ctrl-C meant for us; it ignores SIGINT and SIGHUP too.
 */
const WATCHDOG_SCRIPT = [
  "trap '' INT HUP",
  'IFS= read -r line',
  '[ "$line" = disarm ] && exit 0',
  'dir=$1; shift',
  '[ -f "$dir/data/postmaster.pid" ] && "$@" >/dev/null 2>&1',
  'rm -rf "$dir"',
].join('\n');

export function armWatchdog(resources: ClusterResources): ChildProcess {
  const stop = resources.runAs.wrap(resources.pgCtl, stopArgs(resources.dataDir, SYNC_STOP_TIMEOUT_MS));
  const child = spawn(
    '/bin/sh',
    ['-c', WATCHDOG_SCRIPT, 'seawall-lab-watchdog', resources.dir, stop.file, ...stop.args],
    {
      cwd: tmpdir(),
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  child.on('error', (error) => {
    process.emitWarning(
      `seawall lab: the cleanup watchdog of ${resources.dir} did not start (${error.message}); a ` +
        'SIGKILL of this process would leave the cluster running until the next lab start removes it',
    );
  });
  child.stdin?.on('error', () => {}); // EPIPE when it is already gone: nothing left for it to do
  // Neither the process nor its pipe keep us alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

function disarmWatchdog(resources: ClusterResources): void {
  const watchdog = resources.watchdog;
  resources.watchdog = null;
  if (watchdog?.stdin !== null && watchdog?.stdin !== undefined && !watchdog.stdin.destroyed)
    watchdog.stdin.end('disarm\n');
}

// --- clusters alive in this process, and the hooks that stop them when it ends --------------------------------------

const live = new Set<ClusterResources>();
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function stopAllSync(): void {
  for (const resources of [...live]) releaseClusterSync(resources);
}

/**
 * After cleaning up, the signal is raised again with its default action, so that the process dies of it (exit status
 * 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP) — unless the application listens for it too, in which case what
 * happens next is the application's to decide.
 */
function onSignal(signal: NodeJS.Signals): void {
  stopAllSync();
  uninstall();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', stopAllSync); // also runs after an uncaught exception or unhandled rejection, and process.exit()
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', stopAllSync);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** Covers the cluster by the exit and signal hooks until it is released (hooks exist only while a cluster does). */
export function track(resources: ClusterResources): void {
  live.add(resources);
  install();
}

function untrack(resources: ClusterResources): void {
  live.delete(resources);
  if (live.size === 0 && holds === 0) uninstall();
}

let holds = 0;

/**
 * Installs the hooks before a cluster's dir exists (call the returned function once it is tracked): a signal during
 * the creation then waits for the JavaScript that tracks the dir, instead of killing us between mkdir and track().
 */
export function holdHooks(): () => void {
  holds++;
  // @ko lab-cluster-hooks-before-dir
  install();
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holds--;
    if (live.size === 0 && holds === 0) uninstall();
  };
}

/** Ends the tool running in the cluster's dir (initdb) and waits until none of its processes runs. */
function endTool(resources: ClusterResources): void {
  const pgid = resources.toolPgid;
  resources.toolPgid = null;
  // @ko lab-initdb-killed-on-signal
  if (pgid !== null) killGroupSync(pgid);
}

/** Stops the postmaster (when one runs), removes the dir, disarms the watchdog. Throws when the postmaster survives. */
export async function releaseCluster(resources: ClusterResources, timeoutMs: number): Promise<void> {
  endTool(resources);
  const pid = readPostmasterPid(resources.dataDir);
  let failure: string | null = null;
  if (pid !== null && isPostmasterOf(pid, resources.dataDir)) {
    const result = await run(resources.runAs, resources.pgCtl, stopArgs(resources.dataDir, timeoutMs), {
      timeoutMs: timeoutMs + 5000,
      cwd: tmpdir(),
    });
    if (!result.ok && isPostmasterOf(pid, resources.dataDir)) failure = result.output;
  }
  await rm(resources.dir, { recursive: true, force: true, maxRetries: 3 });
  disarmWatchdog(resources);
  untrack(resources);
  if (failure !== null) {
    throw new LabError(
      'postgres-failed',
      `pg_ctl could not stop the throwaway PostgreSQL (pid ${pid}): ${failure}\nIts dir is removed, so the server ` +
        `shuts itself down within a minute (it rechecks its lock file); to end it now: kill -QUIT ${pid}`,
      { step: 'stop', logTail: failure },
    );
  }
}

/** releaseCluster() for 'exit' and signal handlers: synchronous, and it never throws (there is no one to tell). */
export function releaseClusterSync(resources: ClusterResources): void {
  // initdb still writing would race the removal below (a file made after rm read its dir: ENOTEMPTY, dir left).
  endTool(resources);
  const pid = readPostmasterPid(resources.dataDir);
  if (pid !== null && isPostmasterOf(pid, resources.dataDir)) {
    runSync(resources.runAs, resources.pgCtl, stopArgs(resources.dataDir, SYNC_STOP_TIMEOUT_MS), {
      timeoutMs: SYNC_STOP_TIMEOUT_MS + 5000,
      cwd: tmpdir(),
    });
  }
  try {
    rmSync(resources.dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // the watchdog tries again once we are gone, and the next lab start after it
  }
  // The watchdog stays armed: a write now may not reach it before we exit, and its end-of-file run finds nothing to do.
  untrack(resources);
}
