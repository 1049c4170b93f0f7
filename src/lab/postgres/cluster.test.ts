// Throwaway PostgreSQL clusters on a real server: start, connect, stop, and no leftovers however the process ends.

import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LabError } from '../errors.js';
import { type Cluster, findPostgres, startThrowawayCluster } from './cluster.js';
import { loadPg } from './pg-driver.js';
import { isAlive } from './pids.js';

const POSTGRES_TS = fileURLToPath(new URL('./cluster.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD_LIMIT_MS = 15_000;
const install = findPostgres();
// Skipped only on a machine without PostgreSQL; CI (CI=true) must have it, so there these run and fail instead.
const skip = install === null && !process.env.CI;
const SKIP_NOTE = skip ? ' [SKIPPED: PostgreSQL not found; apt-get install postgresql to run these]' : '';

/** Our clusters' dirs in tmpdir (the name carries the creating pid). */
function dirsOf(pid: number): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(`seawall-lab-pg-${pid}-`));
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function query(cluster: Pick<Cluster, 'url'>, sql: string): Promise<Record<string, unknown>> {
  const pg = await loadPg();
  const client = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as Record<string, unknown>;
  } finally {
    await client.end();
  }
}

interface ChildCluster {
  child: ChildProcess;
  info: { dir: string; pid: number; port: number };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/**
 * A child process that starts a cluster, prints its facts and then, by `mode`: waits to be killed, throws an uncaught
 * exception, or (`listens`) has its own SIGTERM listener that exits with 6 + its call count a little later.
 */
async function childCluster(mode: 'wait' | 'throw' | 'listens', options: { watchdog: boolean }): Promise<ChildCluster> {
  const script = `
    const { startThrowawayCluster } = await import(${JSON.stringify(POSTGRES_TS)});
    const mode = ${JSON.stringify(mode)};
    // The application's listener must run once (exit status 7). Its 1 s is longer than our synchronous cleanup, so a
    // signal raised again by us would reach it before it exits.
    let calls = 0;
    if (mode === 'listens') process.on('SIGTERM', () => { calls++; setTimeout(() => process.exit(6 + calls), 1000); });
    const c = await startThrowawayCluster(${JSON.stringify(options)});
    process.stdout.write(JSON.stringify({ dir: c.dir, pid: c.pid, port: c.port }) + '\\n');
    if (mode === 'throw') setTimeout(() => { throw new Error('uncaught on purpose'); }, 10);
    else setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // A child that outlives its end by this much is held by something (a swallowed signal): fail, and end it.
    setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not end by itself:\n${stderr}`));
    }, CHILD_LIMIT_MS).unref();
  });
  const info = await new Promise<ChildCluster['info']>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    void exited.then(({ code, signal }) => reject(new Error(`child ended (${code ?? signal}) first:\n${stderr}`)));
  });
  return { child, info, exited, stderr: () => stderr };
}

/** A bin dir whose pg_ctl reports a version and whose initdb fails, as a broken install would. */
function brokenBinDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seawall-test-bin-'));
  chmodSync(dir, 0o755); // as root, initdb runs as postgres, who must be able to reach it
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  script('pg_ctl', 'echo "pg_ctl (PostgreSQL) 99.0"');
  script('initdb', 'echo "initdb: error: the disk is on fire" >&2; exit 1');
  return dir;
}

describe(`findPostgres${SKIP_NOTE}`, () => {
  it.skipIf(skip)('finds initdb and pg_ctl and reports the server version', () => {
    expect(install).not.toBeNull();
    expect(install?.version).toMatch(/^\d+(\.\d+)?/);
    expect(existsSync(join(install?.binDir ?? '', 'initdb'))).toBe(true);
    expect(existsSync(join(install?.binDir ?? '', 'pg_ctl'))).toBe(true);
  });
});

describe(`startThrowawayCluster${SKIP_NOTE}`, () => {
  it.skipIf(skip)('starts a server that answers a query, and stop() ends it and removes its dir', async () => {
    const cluster = await startThrowawayCluster();
    expect(cluster.url).toBe(`postgres://seawall@127.0.0.1:${cluster.port}/postgres`);
    const row = await query(cluster, 'SELECT pg_sleep(0.01), version()');
    expect(String(row.version)).toContain(`PostgreSQL ${cluster.version}`);
    expect(existsSync(cluster.dir)).toBe(true);

    await cluster.stop();
    await cluster.stop(); // idempotent
    expect(existsSync(cluster.dir)).toBe(false);
    expect(isAlive(cluster.pid)).toBe(false);
    await expect(query(cluster, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it.skipIf(skip)('gives two clusters running at once different ports', async () => {
    const [a, b] = await Promise.all([startThrowawayCluster(), startThrowawayCluster()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.dir).not.toBe(b.dir);
      const [ra, rb] = await Promise.all([query(a, 'SELECT 1 AS one'), query(b, 'SELECT 2 AS two')]);
      expect([ra.one, rb.two]).toEqual([1, 2]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe(`cleanup when the process ends${SKIP_NOTE}`, () => {
  it.skipIf(skip).each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'stops the cluster on %s, removes its dir, and the process still dies of the signal (status %i)',
    async (signal, _status) => {
      const { child, info, exited } = await childCluster('wait', { watchdog: false });
      child.kill(signal);
      // Dying of the signal is what makes a shell report 128 + its number.
      expect(await exited).toEqual({ code: null, signal });
      expect(isAlive(info.pid)).toBe(false);
      expect(existsSync(info.dir)).toBe(false);
    },
  );

  it.skipIf(skip)(
    'stops the cluster on a SIGTERM the application also listens for, and leaves exiting to it',
    async () => {
      const { child, info, exited } = await childCluster('listens', { watchdog: false });
      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 7, signal: null });
      expect(isAlive(info.pid)).toBe(false);
      expect(existsSync(info.dir)).toBe(false);
    },
  );

  // The 'exit' hook: process.exit() and a normal end without stop() go the same way as this.
  it.skipIf(skip)('stops the cluster when the process dies of an uncaught exception, keeping exit code 1', async () => {
    const { info, exited, stderr } = await childCluster('throw', { watchdog: false });
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(stderr()).toContain('uncaught on purpose');
    expect(isAlive(info.pid)).toBe(false);
    expect(existsSync(info.dir)).toBe(false);
  });

  it.skipIf(skip)('stops the cluster of a process killed with SIGKILL (its watchdog does)', async () => {
    const { child, info, exited } = await childCluster('wait', { watchdog: true });
    child.kill('SIGKILL');
    await exited;
    await waitFor(() => !isAlive(info.pid) && !existsSync(info.dir), 10_000, 'the watchdog to clean up');
  });

  // As after `kill -9 -1` or the OOM killer: the watchdog died too (here: there was none).
  it.skipIf(skip)(
    'removes, at the next start, the cluster of a process killed with SIGKILL with no watchdog left',
    async () => {
      const { child, info, exited } = await childCluster('wait', { watchdog: false });
      child.kill('SIGKILL');
      await exited;
      // Nothing cleaned up: the server still runs in the dir of a dead process.
      expect(existsSync(info.dir)).toBe(true);
      expect(isAlive(info.pid)).toBe(true);

      const next = await startThrowawayCluster();
      try {
        expect(existsSync(info.dir)).toBe(false);
        expect(isAlive(info.pid)).toBe(false);
      } finally {
        await next.stop();
      }
    },
  );
});

describe(`failures${SKIP_NOTE}`, () => {
  it('says how to get PostgreSQL when binDir has no initdb or pg_ctl, and leaves no temp dir', async () => {
    const error = await startThrowawayCluster({ binDir: '/nonexistent/postgresql/bin' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LabError);
    expect(error).toMatchObject({ code: 'postgres-missing', step: 'find' });
    expect((error as Error).message).toMatch(/PostgreSQL not found in \/nonexistent\/postgresql\/bin/);
    expect((error as Error).message).toMatch(/apt-get install postgresql.*--db URL/);
    expect(dirsOf(process.pid)).toEqual([]);
  });

  it.skipIf(skip)("reports initdb's own error when it fails, and removes the temp dir it had made", async () => {
    const binDir = brokenBinDir();
    try {
      const error = await startThrowawayCluster({ binDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LabError);
      expect(error).toMatchObject({ code: 'postgres-failed', step: 'initdb' });
      expect((error as Error).message).toMatch(/initdb failed:\n.*the disk is on fire/);
      expect(dirsOf(process.pid)).toEqual([]);
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  it.skipIf(skip)("puts the server log's last lines in the error when the server will not start", async () => {
    const error = await startThrowawayCluster({ sharedBuffers: 'bogus' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LabError);
    expect(error).toMatchObject({ code: 'postgres-failed', step: 'start' });
    expect((error as LabError).logTail).toMatch(/invalid value for parameter "shared_buffers": "bogus"/);
    expect((error as Error).message).toContain((error as LabError).logTail);
    expect(dirsOf(process.pid)).toEqual([]);
  });
});
