// execute() on a real PostgreSQL query: the per-try signal cancels a pg_sleep on the server, the retry succeeds, deadlines give up.

import type pgTypes from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeawallError } from '../driver/errors.js';
import { type Cluster, startThrowawayCluster } from '../lab/postgres/cluster.js';
import { loadPg } from '../lab/postgres/pg-driver.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { type AttemptContext, createExecutor } from './executor.js';

// No skip: without PostgreSQL's server binaries these fail (startThrowawayCluster names what is missing).
let cluster: Cluster;
let admin: pgTypes.Client;
let pg: typeof pgTypes;

beforeAll(async () => {
  pg = await loadPg();
  cluster = await startThrowawayCluster({ maxConnections: 20 });
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
}, 90_000);

afterAll(async () => {
  await admin?.end();
  await cluster?.stop();
});

/** Queries still running on the server whose text contains `marker` (other than this look itself). */
async function running(marker: string): Promise<number> {
  const { rows } = await admin.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
    [`%${marker}%`],
  );
  return (rows[0] as { n: number }).n;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One attempt: its own connection, and the attempt's signal wired to pg_cancel_backend, which cancels the query on the
 * server (closing the socket would not: the backend notices only when it next writes). Query errors are recorded.
 */
async function query(context: AttemptContext, sql: string, errors: unknown[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
  const pid = (rows[0] as { pid: number }).pid;
  const cancel = () => void admin.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => {});
  if (context.signal.aborted) cancel();
  context.signal.addEventListener('abort', cancel, { once: true });
  try {
    return (await client.query(sql)).rows;
  } catch (error) {
    errors.push(error);
    throw error;
  } finally {
    context.signal.removeEventListener('abort', cancel);
    await client.end();
  }
}

describe('execute with a real PostgreSQL query', () => {
  it('cancels a pg_sleep that outlives the per-try timeout on the server, and the next try succeeds', async () => {
    const errors: unknown[] = [];
    const executor = createExecutor({
      policy: new RetryPolicy({ maxAttempts: 3, perTryTimeout: 500, backoff: { kind: 'constant', delay: 10 } }),
      upstream: 'member-db',
    });
    const rows = await executor.execute(
      (context) =>
        query(
          context,
          context.attempt === 1 ? 'SELECT pg_sleep(30) /* slow-first */' : "SELECT 'fresh' AS v /* slow-first */",
          errors,
        ),
      { idempotent: true },
    );
    expect(rows).toEqual([{ v: 'fresh' }]);
    // Cancelled on the server: the first query ended with query_canceled (57014), and nothing still sleeps.
    await waitFor(async () => errors.length === 1, 5000, 'the first query to end');
    expect((errors[0] as { code?: string }).code).toBe('57014');
    expect(await running('slow-first')).toBe(0);
  });

  it('gives up with deadline-would-pass when the deadline runs out, the query cancelled on the server', async () => {
    const errors: unknown[] = [];
    const executor = createExecutor({
      policy: new RetryPolicy({ maxAttempts: 5, perTryTimeout: '2s', backoff: { kind: 'constant', delay: 50 } }),
      upstream: 'member-db',
    });
    const started = Date.now();
    let error: unknown;
    try {
      await executor.execute((context) => query(context, 'SELECT pg_sleep(30) /* past-deadline */', errors), {
        idempotent: true,
        timeout: 600,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SeawallError);
    expect((error as SeawallError).reason).toBe('deadline-would-pass');
    expect((error as SeawallError).attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(1500);
    await waitFor(async () => (await running('past-deadline')) === 0, 5000, 'the query to be cancelled');
    await waitFor(async () => errors.length === 1, 5000, 'the query to end');
    expect((errors[0] as { code?: string }).code).toBe('57014');
  });
});
