// Facts about a throwaway cluster's processes: who owns its dir (owner.json), its postmaster's pid, and who is alive.

import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written into each cluster's dir so that another process can tell a live cluster from a stale one. */
export interface OwnerRecord {
  parentPid: number;
  watchdogPid: number | null;
  /** `pid:[4026531836]`: pids are only comparable inside one pid namespace (containers may share a tmpdir). */
  pidNamespace: string | null;
}

const OWNER_FILE = 'owner.json';
const HAS_PROC = existsSync('/proc/self/stat');

export function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

export function writeOwner(dir: string, record: OwnerRecord): void {
  writeFileSync(join(dir, OWNER_FILE), `${JSON.stringify(record)}\n`);
}

export function readOwner(dir: string): OwnerRecord | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as Partial<OwnerRecord>;
    if (typeof parsed.parentPid !== 'number') return null;
    return {
      parentPid: parsed.parentPid,
      watchdogPid: typeof parsed.watchdogPid === 'number' ? parsed.watchdogPid : null,
      pidNamespace: typeof parsed.pidNamespace === 'string' ? parsed.pidNamespace : null,
    };
  } catch {
    return null;
  }
}

/** The postmaster's pid: the first line of <dataDir>/postmaster.pid, or null when there is no such file. */
export function readPostmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is a running process. A zombie is not: a daemonized postmaster's parent is pid 1, which in some
 * containers never reaps, so `kill(pid, 0)` alone would call a dead postmaster alive forever.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  if (!HAS_PROC) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.charAt(stat.lastIndexOf(')') + 2); // "pid (comm) S ..."; comm may hold spaces and parens
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // gone between the two looks
  }
}

/** Whether `pid` is the postmaster of `dataDir` (pid files outlive their process; the pid may be another's now). */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  if (!isAlive(pid)) return false;
  if (!HAS_PROC) return true; // no way to look: trust the pid file, as pg_ctl itself does
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dataDir);
  } catch {
    return false;
  }
}
