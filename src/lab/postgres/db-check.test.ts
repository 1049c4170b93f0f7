// The --db check: a server that accepts and never answers, or a closed port, ends in one clear line within its limit.
// (The services' own pool and init limits are in db-services.test.ts.)

import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../../test/support/loopback.js';
import { LabError } from '../errors.js';
import { checkDatabase, dbFailureMessage, redactUrl } from './db-check.js';

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte. */
let silent: Server;
let silentPort = 0;
const sockets = new Set<Socket>();
/** A port nobody listens on (bound, read, closed). */
let closedPort = 0;

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
});

/** Rejects with "still pending" after `ms`: a hang is a red test with a reason, not a test timeout. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms).unref()),
  ]);
}

async function refusal(promise: Promise<unknown>, ms: number): Promise<{ error: LabError; elapsedMs: number }> {
  const started = performance.now();
  const error = await within(promise, ms).then(
    () => {
      throw new Error('connected to a server that never answers');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof LabError)) throw error;
  return { error, elapsedMs: performance.now() - started };
}

describe('redactUrl and dbFailureMessage', () => {
  it('drops the password and keeps the rest of the URL', () => {
    expect(redactUrl('postgres://me:s3cret@db.example:6543/app')).toBe('postgres://me@db.example:6543/app');
    expect(redactUrl('postgres://me@127.0.0.1:5432/postgres')).toBe('postgres://me@127.0.0.1:5432/postgres');
    expect(redactUrl('host=x password=s3cret dbname=y')).toBe('host=x password=*** dbname=y');
  });

  it('says what to check, in one line', () => {
    const refused = Object.assign(new Error(''), { code: 'ECONNREFUSED' });
    expect(dbFailureMessage('postgres://u:p@127.0.0.1:1/x', refused, 5000)).toBe(
      '--db postgres://u@127.0.0.1:1/x: connection refused: is PostgreSQL running and listening at 127.0.0.1:1?',
    );
    const auth = Object.assign(new Error('password authentication failed for user "u"'), { code: '28P01' });
    expect(dbFailureMessage('postgres://u:p@h/x', auth, 5000)).toMatch(/PostgreSQL refused: password .* 28P01/);
  });
});

describe('checkDatabase (the --db readiness check)', () => {
  it('ends at its time limit on a server that accepts and never answers, naming the URL without password', async () => {
    const url = `postgres://me:s3cret@127.0.0.1:${silentPort}/postgres`;
    const { error, elapsedMs } = await refusal(checkDatabase(url, 1000), 4000);
    expect(error.code).toBe('db-unreachable');
    expect(error.message).toBe(
      `--db postgres://me@127.0.0.1:${silentPort}/postgres: no answer within 1 s: check that PostgreSQL (not another ` +
        `server) listens at 127.0.0.1:${silentPort} and that nothing (a firewall, a proxy) holds the connection`,
    );
    expect(elapsedMs).toBeGreaterThan(900);
    expect(elapsedMs).toBeLessThan(3000);
    // The check's connection is closed: the server sees it go.
    await within(
      (async () => {
        while (sockets.size > 0) await new Promise((r) => setTimeout(r, 20));
      })(),
      3000,
    );
  });

  it('refuses a closed port at once, in one line', async () => {
    const { error, elapsedMs } = await refusal(checkDatabase(`postgres://me@127.0.0.1:${closedPort}/x`), 10_000);
    expect(error.message).toBe(
      `--db postgres://me@127.0.0.1:${closedPort}/x: connection refused: is PostgreSQL running and listening at ` +
        `127.0.0.1:${closedPort}?`,
    );
    expect(elapsedMs).toBeLessThan(2000);
  });
});
