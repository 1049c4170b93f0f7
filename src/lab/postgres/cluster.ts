// Throwaway PostgreSQL clusters for `seawall lab`: initdb in a temp dir, a server on a free 127.0.0.1 port, teardown.

import { chownSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabError, type LabStep } from '../errors.js';
import { armWatchdog, type ClusterResources, holdHooks, releaseCluster, track } from './cleanup.js';
import { resolveRunAs, run } from './exec.js';
import { requirePostgres } from './find.js';
import { runInGroup } from './group.js';
import { pidNamespace, readPostmasterPid, writeOwner } from './pids.js';
import { CLUSTER_DIR_PREFIX, sweepStaleClusters } from './stale.js';

export { findPostgres, type PostgresInstall } from './find.js';

export interface ThrowawayClusterOptions {
  /** Where `initdb` and `pg_ctl` are; default: what findPostgres() finds. Checked; never replaced by another. */
  binDir?: string;
  /** The server's max_connections. Default 200. */
  maxConnections?: number;
  /** The server's shared_buffers (`16MB`, `128kB`, or a number of 8 kB pages). Default `16MB`. */
  sharedBuffers?: string;
  /** Time limits of the steps. Defaults: initdb 60 s, start 30 s, stop 30 s. */
  initdbTimeoutMs?: number;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
  /**
   * Default true: a detached watchdog process stops the cluster if this process is SIGKILLed. False: none, so such a
   * cluster stays until the next startThrowawayCluster() (of any process) finds it stale and removes it.
   */
  watchdog?: boolean;
}

/** A running throwaway cluster. Its superuser needs no password (trust, on 127.0.0.1 and a socket in `dir` only). */
export interface Cluster {
  /** `postgres://seawall@127.0.0.1:PORT/postgres`, for node-postgres (`new pg.Client({ connectionString: url })`). */
  url: string;
  host: string;
  port: number;
  user: string;
  database: string;
  /** The server version, e.g. `15.18`. */
  version: string;
  /** The temp dir holding the data dir, the server log (`log`) and the unix socket. Removed by stop(). */
  dir: string;
  /** The postmaster's pid. */
  pid: number;
  /** Stops the server (immediate mode: nothing is kept) and removes `dir`. Idempotent: later calls get the same. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const USER = 'seawall';
const DATABASE = 'postgres';
const PORT_ATTEMPTS = 5;
const LOG_TAIL_LINES = 20;
/** sockaddr_un.sun_path holds 108 bytes on Linux (104 on macOS), its NUL included. */
const SOCKET_PATH_MAX = 103;

/** A port nobody listens on right now (bound to port 0, read, closed). Another process may take it before we do. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'log'), 'utf8');
  } catch {
    return '';
  }
}

function tail(text: string, lines = LOG_TAIL_LINES): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function failed(step: LabStep, what: string, output: string): LabError {
  const logTail = tail(output);
  return new LabError('postgres-failed', `${what}${logTail === '' ? '' : `:\n${logTail}`}`, { step, logTail });
}

/** pg_ctl hands `-o` to a shell, and the socket path has a length limit: refuse a temp dir that would break either. */
function checkDirPath(dir: string): void {
  if (!/^[\w./-]+$/.test(dir)) {
    throw new LabError(
      'postgres-failed',
      `the temp dir ${dir} has characters pg_ctl cannot pass to the server: set TMPDIR to a plain path (letters, ` +
        'digits, / . _ -)',
      { step: 'start' },
    );
  }
  if (Buffer.byteLength(`${dir}/.s.PGSQL.65535`) > SOCKET_PATH_MAX) {
    throw new LabError(
      'postgres-failed',
      `the temp dir ${dir} is too long for a unix socket: set TMPDIR to a shorter path`,
      {
        step: 'start',
      },
    );
  }
}

function checkOptions(maxConnections: number, sharedBuffers: string): void {
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 100_000) {
    throw new RangeError(`maxConnections must be an integer from 1 to 100000, got ${maxConnections}`);
  }
  // It goes through pg_ctl's shell: letters and digits only (the server judges the value).
  if (!/^[A-Za-z0-9]+$/.test(sharedBuffers)) {
    throw new RangeError(`sharedBuffers must be a size like 16MB or 128kB, got ${JSON.stringify(sharedBuffers)}`);
  }
}

/**
 * Starts a new PostgreSQL cluster in a temp dir (`seawall-lab-pg-<pid>-*` in os.tmpdir()), durability off (fsync,
 * synchronous_commit, full_page_writes), listening on a free port of 127.0.0.1 only. As root, runs it as `postgres`.
 * First removes clusters left by dead processes. On failure, throws a LabError and leaves nothing behind.
 */
export async function startThrowawayCluster(options: ThrowawayClusterOptions = {}): Promise<Cluster> {
  const maxConnections = options.maxConnections ?? 200;
  const sharedBuffers = options.sharedBuffers ?? '16MB';
  checkOptions(maxConnections, sharedBuffers);
  const install = requirePostgres(options.binDir);
  const runAs = resolveRunAs();
  const initdb = join(install.binDir, 'initdb');
  const pgCtl = join(install.binDir, 'pg_ctl');
  await sweepStaleClusters(pgCtl, runAs);

  // The exit and signal hooks first, then the dir and its tracking in one synchronous step: a Ctrl-C at any point
  // from here on finds the dir tracked (a signal's JavaScript handler runs only between synchronous steps).
  const letGo = holdHooks();
  let resources: ClusterResources;
  try {
    const dir = mkdtempSync(join(tmpdir(), `${CLUSTER_DIR_PREFIX}${process.pid}-`));
    resources = { dir, dataDir: join(dir, 'data'), pgCtl, runAs, watchdog: null, toolPgid: null };
    track(resources);
  } finally {
    letGo();
  }
  const { dir, dataDir } = resources;
  try {
    checkDirPath(dir);
    if (runAs.user !== null) chownSync(dir, runAs.user.uid, runAs.user.gid);
    if (options.watchdog !== false) resources.watchdog = armWatchdog(resources);
    const watchdogPid = resources.watchdog?.pid ?? null;
    writeOwner(dir, { parentPid: process.pid, watchdogPid, pidNamespace: pidNamespace() });
    const initdbTimeoutMs = options.initdbTimeoutMs ?? 60_000;
    // In a process group of its own, known to the hooks: a signal ends all of initdb before the dir is removed.
    const init = await runInGroup(
      runAs,
      initdb,
      ['-D', dataDir, '-A', 'trust', '-U', USER, '--no-sync', '-E', 'UTF8', '--locale=C'],
      {
        timeoutMs: initdbTimeoutMs,
        cwd: tmpdir(),
        onStart: (pgid) => {
          resources.toolPgid = pgid;
        },
        onEnd: () => {
          resources.toolPgid = null;
        },
      },
    );
    if (!init.ok) {
      const what = init.timedOut ? `initdb did not finish in ${initdbTimeoutMs / 1000} s` : 'initdb failed';
      throw failed('initdb', what, init.output);
    }
    const port = await startServer(resources, maxConnections, sharedBuffers, options.startTimeoutMs ?? 30_000);
    const pid = readPostmasterPid(dataDir);
    if (pid === null) throw failed('start', 'pg_ctl reported a start but there is no postmaster.pid', readLog(dir));
    const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    let stopping: Promise<void> | undefined;
    return {
      url: `postgres://${USER}@${HOST}:${port}/${DATABASE}`,
      host: HOST,
      port,
      user: USER,
      database: DATABASE,
      version: install.version,
      dir,
      pid,
      stop: () => (stopping ??= releaseCluster(resources, stopTimeoutMs)),
    };
  } catch (error) {
    await releaseCluster(resources, options.stopTimeoutMs ?? 30_000).catch((cleanup: Error) =>
      process.emitWarning(`seawall lab: cleaning up after a failed start: ${cleanup.message}`),
    );
    throw error;
  }
}

/** pg_ctl start -w on a free port; a port taken between our look and the server's bind is retried with another. */
async function startServer(
  resources: ClusterResources,
  maxConnections: number,
  sharedBuffers: string,
  timeoutMs: number,
): Promise<number> {
  const { dir, dataDir, pgCtl, runAs } = resources;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const settings = [
      `-c listen_addresses=${HOST}`,
      `-p ${port}`,
      `-c unix_socket_directories=${dir}`,
      `-c max_connections=${maxConnections}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      `-c shared_buffers=${sharedBuffers}`,
    ].join(' ');
    const logBefore = readLog(dir).length;
    const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
    const args = ['-D', dataDir, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', String(seconds), 'start'];
    const result = await run(runAs, pgCtl, args, { timeoutMs: timeoutMs + 5000, cwd: tmpdir() });
    if (result.ok) return port;
    const log = readLog(dir).slice(logBefore);
    if (log.includes('Address already in use') && attempt < PORT_ATTEMPTS) continue;
    const what = result.timedOut
      ? `the PostgreSQL server did not start in ${seconds} s`
      : `the PostgreSQL server did not start (pg_ctl: ${tail(result.output, 3)})`;
    throw failed('start', what, log);
  }
}
