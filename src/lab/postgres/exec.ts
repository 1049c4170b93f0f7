// Running PostgreSQL's tools with a time limit, as the `postgres` system user when we are root (PostgreSQL refuses root).

import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LabError } from '../errors.js';
import { findExecutable } from './find.js';

const SBIN_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];
export const OUTPUT_LIMIT_BYTES = 4 * 1024 * 1024;

/** Who the tools run as: ourselves, or (as root) the `postgres` system user through runuser or su. */
export interface RunAs {
  /** The user the tools run as when it is not us; the cluster's files must be theirs. */
  user: { name: string; uid: number; gid: number } | null;
  /** `file args`, rewritten to run as that user. */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] };
}

export interface RunResult {
  ok: boolean;
  timedOut: boolean;
  /** stderr then stdout, trimmed. */
  output: string;
}

/** Messages in C so that what we look for in them ("Address already in use") reads the same everywhere. */
export const TOOL_ENV = { ...process.env, LC_ALL: 'C', LANG: 'C', LC_MESSAGES: 'C' };

/** POSIX shell single-quoting, for su's `-c` string. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function idOf(user: string, flag: '-u' | '-g'): number | null {
  try {
    const out = execFileSync('id', [flag, user], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const id = Number(out.trim());
    return Number.isInteger(id) ? id : null;
  } catch {
    return null;
  }
}

/** uid and gid from /etc/passwd, for a system without `id`. */
function passwdEntry(user: string): { uid: number; gid: number } | null {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name === user && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no /etc/passwd: the user is missing as far as we can tell
  }
  return null;
}

export function lookupUser(user: string): { uid: number; gid: number } | null {
  const uid = idOf(user, '-u');
  const gid = idOf(user, '-g');
  return uid !== null && gid !== null ? { uid, gid } : passwdEntry(user);
}

type Wrap = RunAs['wrap'];

/** `runuser -u NAME -- file args` (util-linux; no PAM password prompt for root). */
export function viaRunuser(runuser: string, name: string): Wrap {
  return (file, args) => ({ file: runuser, args: ['-u', name, '--', file, ...args] });
}

/** `su NAME -s /bin/sh -c 'file args'`, for systems without runuser: one shell-quoted string. */
export function viaSu(su: string, name: string): Wrap {
  return (file, args) => ({ file: su, args: [name, '-s', '/bin/sh', '-c', [file, ...args].map(shellQuote).join(' ')] });
}

/** As ourselves; as root, as `name` (`postgres`) through runuser, or su when there is no runuser. */
export function resolveRunAs(name = 'postgres'): RunAs {
  if (process.getuid?.() !== 0) return { user: null, wrap: (file, args) => ({ file, args: [...args] }) };
  const ids = lookupUser(name);
  if (ids === null) {
    throw new LabError(
      'postgres-user-missing',
      `PostgreSQL refuses to run as root and there is no '${name}' system user to run it as: install the ` +
        'postgresql package (it creates the user), create one (useradd --system postgres), run the lab as a ' +
        'non-root user, or pass --db URL',
    );
  }
  const user = { name, ...ids };
  const runuser = findExecutable('runuser', SBIN_DIRS);
  if (runuser !== null) return { user, wrap: viaRunuser(runuser, name) };
  const su = findExecutable('su', SBIN_DIRS);
  if (su !== null) return { user, wrap: viaSu(su, name) };
  throw new LabError(
    'postgres-user-missing',
    `PostgreSQL refuses to run as root, and neither runuser nor su is there to run it as '${name}': install ` +
      'util-linux (runuser), run the lab as a non-root user, or pass --db URL',
  );
}

/** Runs `file args` as `runAs` says, killed (SIGKILL) after `timeoutMs`. Never rejects: the result says how it went. */
export function run(
  runAs: RunAs,
  file: string,
  args: readonly string[],
  options: { timeoutMs: number; cwd: string },
): Promise<RunResult> {
  const cmd = runAs.wrap(file, args);
  return new Promise((resolve) => {
    execFile(
      cmd.file,
      cmd.args,
      {
        cwd: options.cwd,
        env: TOOL_ENV,
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: OUTPUT_LIMIT_BYTES,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const output = `${stderr}\n${stdout}`.trim();
        const timedOut = error !== null && (error as { killed?: boolean }).killed === true;
        resolve({ ok: error === null, timedOut, output: error !== null && output === '' ? error.message : output });
      },
    );
  });
}

/** run(), synchronously, for process 'exit' handlers (which cannot wait for anything). */
export function runSync(
  runAs: RunAs,
  file: string,
  args: readonly string[],
  options: { timeoutMs: number; cwd: string },
): boolean {
  const cmd = runAs.wrap(file, args);
  const result = spawnSync(cmd.file, cmd.args, {
    cwd: options.cwd,
    env: TOOL_ENV,
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    stdio: 'ignore',
  });
  return result.status === 0;
}
