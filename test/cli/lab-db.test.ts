// `seawall lab --db` at a port that accepts and never answers, or a closed one: one line, exit 1, no process left.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../support/loopback.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The CLI from source through tsx: nothing is built, and a knock-out in the source is what runs.
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
/** The 5 s connect timeout and tsx's start; a lab left waiting on the database is killed here, and the test is red. */
const LIMIT_MS = 25_000;

const dir = mkdtempSync(join(tmpdir(), 'seawall-lab-db-'));
const scenario = join(dir, 'db.yaml');
writeFileSync(
  scenario,
  'name: db\nduration: 5s\ntraffic: [{ to: a, rate: 1 }]\nservices:\n  a: { serviceTime: 10ms }\n',
);

let silent: Server;
let silentPort = 0;
let closedPort = 0;
const sockets = new Set<Socket>();

async function listen(server: Server): Promise<number> {
  return (await listenLoopback(server)).port;
}

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.resume(); // reads (and drops) what comes, so that it sees the other end close
    socket.on('close', () => sockets.delete(socket));
  });
  silentPort = await listen(silent);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Pids of live processes whose environment carries `marker` (the CLI's children inherit it). */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

async function lab(db: string): Promise<{ code: number | null; signal: string | null; stderr: string; ms: number }> {
  const marker = `SEAWALL_LAB_DB_TEST=${process.pid}-${Date.now()}`;
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'lab', scenario, '--db', db], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', SEAWALL_LAB_DB_TEST: marker.split('=')[1] },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 100_000) stderr += String(d);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  timer.unref();
  const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('close', (c, s) => resolve({ code: c, signal: s })),
  );
  clearTimeout(timer);
  const ms = Date.now() - started;
  // Nothing the command started outlives it (a service process would inherit the marker).
  await new Promise((r) => setTimeout(r, 300));
  const left = processesMarked(marker);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  expect(left, 'processes of the command still alive after it ended').toEqual([]);
  return { code, signal, stderr, ms };
}

describe.skipIf(process.platform !== 'linux')('seawall lab --db that does not answer', () => {
  it('a port that accepts and never answers: ends after the 5 s connect timeout, one line naming the URL', async () => {
    const run = await lab(`postgres://me:s3cret@127.0.0.1:${silentPort}/postgres`);
    expect(run.signal, `killed after ${LIMIT_MS} ms; stderr: ${run.stderr.slice(0, 400)}`).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `seawall: lab: --db postgres://me@127.0.0.1:${silentPort}/postgres: no answer within 5 s: check that ` +
        `PostgreSQL (not another server) listens at 127.0.0.1:${silentPort} and that nothing (a firewall, a proxy) ` +
        'holds the connection',
    ]);
    expect(run.stderr).not.toContain('s3cret');
    expect(run.ms).toBeLessThan(18_000);
  }, 40_000);

  it('a closed port: one line, no stack trace', async () => {
    const run = await lab(`postgres://me@127.0.0.1:${closedPort}/postgres`);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `seawall: lab: --db postgres://me@127.0.0.1:${closedPort}/postgres: connection refused: is PostgreSQL running ` +
        `and listening at 127.0.0.1:${closedPort}?`,
    ]);
  }, 40_000);
});
