// A service's pool on a --db that accepts and never answers gives up at its connect timeout; a service that does not
// answer init in time is killed, so no child waits.

import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../../test/support/loopback.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { LabError } from '../errors.js';
import { planOf } from '../plan.js';
import { ServiceProcess } from '../processes.js';
import { LabDatabase } from './db.js';
import { DB_CONNECT_TIMEOUT_MS } from './db-check.js';
import { isAlive } from './pids.js';

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte. */
let silent: Server;
let silentPort = 0;
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

describe('the service processes on a database that never answers', () => {
  it("LabDatabase.connect (a service's pool) ends within its connect timeout", async () => {
    const url = `postgres://me@127.0.0.1:${silentPort}/postgres`;
    const { error, elapsedMs } = await refusal(LabDatabase.connect(url, 2), DB_CONNECT_TIMEOUT_MS + 2500);
    expect(error.message).toMatch(/^--db postgres:\/\/me@127\.0\.0\.1:\d+\/postgres: no answer within 5 s/);
    expect(elapsedMs).toBeLessThan(DB_CONNECT_TIMEOUT_MS + 2000);
  }, 20_000);

  it('a service process that does not answer init in time is killed, not left holding us open', async () => {
    const scenario = parseScenario(
      `name: db\nduration: 5s\ntraffic: [{ to: a, rate: 1 }]\nservices:\n  a: { serviceTime: 10ms }\n`,
      'db.yaml',
    );
    const planned = planOf((scenario.variants[0] as { model: Parameters<typeof planOf>[0] }).model);
    if (!('plan' in planned)) throw new Error(planned.problems.join('; '));
    const plan = planned.plan.services[0];
    if (plan === undefined || !plan.usesDb) throw new Error('the plan has no service that uses the database');
    const db = { url: `postgres://me@127.0.0.1:${silentPort}/postgres`, connections: 1 };
    // 1 s: shorter than the child's own 5 s connect timeout, so it is the orchestrator's limit that ends it.
    const { error } = await refusal(ServiceProcess.start({ plan, peers: {}, seed: 1 }, db, 1000), 10_000);
    expect(error.message).toMatch(/^a: no answer to init in 1 s.*\(pid \d+, killed\)$/s);
    const pid = Number(/pid (\d+)/.exec(error.message)?.[1]);
    await new Promise((r) => setTimeout(r, 500));
    expect(isAlive(pid)).toBe(false);
  }, 20_000);
});
