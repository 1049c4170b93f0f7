// The lab's database on a real PostgreSQL: queries cost their time on a real backend; the failover shrinks the pool.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, findPostgres, startThrowawayCluster } from './cluster.js';
import { LabDatabase } from './db.js';
import { loadPg } from './pg-driver.js';

const skip = findPostgres() === null && !process.env.CI;

describe.skipIf(skip)(`LabDatabase${skip ? ' [SKIPPED: PostgreSQL not found]' : ''}`, () => {
  let cluster: Cluster;
  let observer: import('pg').Client;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
    const pg = await loadPg();
    observer = new pg.Client({ connectionString: cluster.url });
    await observer.connect();
  }, 60_000);
  afterAll(async () => {
    await observer?.end();
    await cluster?.stop();
  });

  /** Backends of other sessions now running the lab's pg_sleep. */
  async function sleeping(): Promise<number> {
    const { rows } = await observer.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()",
    );
    return rows[0].n as number;
  }
  async function waitFor(n: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await sleeping()) === n) return;
      await new Promise((r) => setTimeout(r, 15));
    }
    throw new Error(`never saw ${n} queries running (last ${await sleeping()})`);
  }

  it('runs as many queries at once as it has connections, and the failover takes connections away', async () => {
    const db = await LabDatabase.connect(cluster.url, 4);
    try {
      expect(db.connections).toBe(4);
      const all = Array.from({ length: 4 }, () => db.work(800));
      await waitFor(4);
      await Promise.all(all);

      db.setConnections(2);
      expect(db.connections).toBe(2);
      const some = Array.from({ length: 4 }, () => db.work(1500));
      await waitFor(2);
      // Held, not merely unused: the other two queries wait in the pool for as long as the failover lasts.
      await new Promise((r) => setTimeout(r, 300));
      expect(await sleeping()).toBe(2);
      db.setConnections(4); // the failover ends: the two waiting queries get the connections back at once
      await waitFor(4);
      await Promise.all(some);
    } finally {
      await db.close();
    }
  }, 30_000);

  it('gives connections back that were still on their way to being taken, and clamps its argument', async () => {
    const db = await LabDatabase.connect(cluster.url, 3);
    try {
      const busy = Array.from({ length: 3 }, () => db.work(600));
      await waitFor(3);
      db.setConnections(1); // both takes wait behind the running queries
      db.setConnections(3); // ... and are given back when they arrive
      await Promise.all(busy);
      const again = Array.from({ length: 3 }, () => db.work(600));
      await waitFor(3);
      await Promise.all(again);
      db.setConnections(0);
      expect(db.connections).toBe(1);
      db.setConnections(99);
      expect(db.connections).toBe(3);
      expect(() => db.setConnections(Number.NaN)).toThrow(RangeError);
      expect(db.connections).toBe(3);
    } finally {
      await db.close();
    }
  }, 30_000);
});
