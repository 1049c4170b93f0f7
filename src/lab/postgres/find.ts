// Locating PostgreSQL's server tools (initdb, pg_ctl), which Debian keeps off PATH in /usr/lib/postgresql/<major>/bin.

import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { LabError } from '../errors.js';

export interface PostgresInstall {
  /** The directory holding `initdb` and `pg_ctl`. */
  binDir: string;
  /** The server version `pg_ctl --version` reports, e.g. `15.18`. */
  version: string;
}

export const INSTALL_HINT = 'install it (Debian: apt-get install postgresql) or pass --db URL';

const PROBE_TIMEOUT_MS = 5000;
const DEBIAN_ROOT = '/usr/lib/postgresql';

export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The version `<binDir>/pg_ctl --version` prints, or null when both tools are not there or pg_ctl does not run. */
function probe(binDir: string): PostgresInstall | null {
  if (!isExecutableFile(join(binDir, 'initdb')) || !isExecutableFile(join(binDir, 'pg_ctl'))) return null;
  try {
    const out = execFileSync(join(binDir, 'pg_ctl'), ['--version'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    // "pg_ctl (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    const version = /\(PostgreSQL\)\s+(\S+)/.exec(out)?.[1];
    return version === undefined ? null : { binDir, version };
  } catch {
    return null;
  }
}

function pgConfigBinDir(): string | null {
  try {
    const out = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      timeout: PROBE_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return out === '' ? null : out;
  } catch {
    return null; // no pg_config: the other places are still worth a look
  }
}

/** /usr/lib/postgresql/<major>/bin, newest major first (Debian lets several majors live side by side). */
function debianBinDirs(): string[] {
  let entries: string[];
  try {
    entries = readdirSync(DEBIAN_ROOT);
  } catch {
    return [];
  }
  return entries
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .map((name) => join(DEBIAN_ROOT, name, 'bin'));
}

function pathDirs(): string[] {
  return (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
}

/**
 * Finds `initdb` and `pg_ctl`: the directory `pg_config --bindir` names, then Debian's /usr/lib/postgresql/<newest>/bin,
 * then PATH (Fedora, Homebrew). Both must exist and be executable. Null when none has them.
 */
export function findPostgres(): PostgresInstall | null {
  const candidates = [pgConfigBinDir(), ...debianBinDirs(), ...pathDirs()];
  const seen = new Set<string>();
  for (const dir of candidates) {
    if (dir === null || seen.has(dir)) continue;
    seen.add(dir);
    const found = probe(dir);
    if (found !== null) return found;
  }
  return null;
}

/** The install in `binDir` when given (checked, never replaced by another), else the one findPostgres() finds. */
export function requirePostgres(binDir?: string): PostgresInstall {
  if (binDir !== undefined) {
    const found = probe(binDir);
    if (found === null) {
      throw new LabError(
        'postgres-missing',
        `PostgreSQL not found in ${binDir} (no executable initdb and pg_ctl there): pass the directory that ` +
          `\`pg_config --bindir\` prints, or ${INSTALL_HINT}`,
        { step: 'find' },
      );
    }
    return found;
  }
  const found = findPostgres();
  if (found === null) {
    throw new LabError('postgres-missing', `PostgreSQL not found: ${INSTALL_HINT}`, { step: 'find' });
  }
  return found;
}

/** The first executable `name` in `dirs` then PATH, or null. */
export function findExecutable(name: string, dirs: readonly string[] = []): string | null {
  for (const dir of [...dirs, ...pathDirs()]) {
    const path = join(dir, name);
    if (isExecutableFile(path)) return path;
  }
  return null;
}
