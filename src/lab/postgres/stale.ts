// Finding and removing throwaway clusters whose process died without cleaning up (SIGKILL of it and its watchdog).

import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopArgs } from './cleanup.js';
import { type RunAs, run } from './exec.js';
import { isAlive, isPostmasterOf, pidNamespace, readOwner, readPostmasterPid } from './pids.js';

/** The dir prefix: the creating process's pid goes in the name, so a stale dir is known without reading it. */
export const CLUSTER_DIR_PREFIX = 'seawall-lab-pg-';
const NAME = /^seawall-lab-pg-(\d+)-/;
const STALE_STOP_TIMEOUT_MS = 10_000;

/**
 * Whether the cluster in `dir` (named for `parentPid`) is stale: its creator and its watchdog are both dead, seen from
 * the same pid namespace, and the dir is ours to remove. Anything we cannot be sure of is left alone.
 */
function isStale(dir: string, parentPid: number, ownNamespace: string | null): boolean {
  if (parentPid === process.pid || isAlive(parentPid)) return false;
  const owner = readOwner(dir);
  if (owner?.pidNamespace != null && ownNamespace !== null && owner.pidNamespace !== ownNamespace) return false;
  if (owner?.watchdogPid != null && isAlive(owner.watchdogPid)) return false; // it is cleaning up right now
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0) {
    try {
      if (statSync(dir).uid !== uid) return false; // another user's: not ours to remove (and we could not)
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Stops the postmaster of every stale cluster in tmpdir and removes its dir. Returns the dirs removed. A cluster that
 * cannot be removed is reported with process.emitWarning and left as it is: it is not this lab's to fail on.
 */
export async function sweepStaleClusters(pgCtl: string, runAs: RunAs): Promise<string[]> {
  const root = tmpdir();
  const ownNamespace = pidNamespace();
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    const parentPid = Number(NAME.exec(name)?.[1]);
    if (!Number.isInteger(parentPid)) continue;
    const dir = join(root, name);
    if (!isStale(dir, parentPid, ownNamespace)) continue;
    const dataDir = join(dir, 'data');
    const pid = readPostmasterPid(dataDir);
    if (pid !== null && isPostmasterOf(pid, dataDir)) {
      const result = await run(runAs, pgCtl, stopArgs(dataDir, STALE_STOP_TIMEOUT_MS), {
        timeoutMs: STALE_STOP_TIMEOUT_MS + 5000,
        cwd: root,
      });
      if (!result.ok && isPostmasterOf(pid, dataDir)) {
        process.emitWarning(
          `seawall lab: could not stop the stale PostgreSQL (pid ${pid}) of ${dir}: ${result.output}`,
        );
        continue;
      }
    }
    try {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      removed.push(dir);
    } catch (error) {
      process.emitWarning(`seawall lab: could not remove the stale cluster dir ${dir}: ${(error as Error).message}`);
    }
  }
  return removed;
}
