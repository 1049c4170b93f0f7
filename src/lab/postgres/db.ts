// The database work of a lab service: a node-postgres pool, each execution one query that costs its service time.

import type { Pool, PoolClient } from 'pg';
import { LabError } from '../errors.js';
import { DB_CONNECT_TIMEOUT_MS, dbFailureMessage } from './db-check.js';
import { loadPg } from './pg-driver.js';

/**
 * A pool of `connections` PostgreSQL connections. `work(ms)` runs `SELECT pg_sleep(ms / 1000)` on one of them: the
 * query holds a real connection and a real backend for its service time, as the incident's slow queries did. The
 * service's worker limit (its LoadShedder, or Seawall's gate) is what queues requests; the pool is sized to the most
 * workers the run will ever allow, so it never queues on its own. `setConnections(n)` is the failover: the pool loses
 * connections (they are checked out and held, so no query can use them) until it gets them back.
 */
export class LabDatabase {
  /** Connections taken away by the failover, and how many more are on their way to being taken. */
  private readonly held: PoolClient[] = [];
  private taking = 0;
  private usable: number;

  private constructor(
    private readonly pool: Pool,
    readonly size: number,
  ) {
    this.usable = size;
  }

  static async connect(url: string, connections: number): Promise<LabDatabase> {
    const pg = await loadPg();
    const pool = new pg.Pool({
      connectionString: url,
      max: connections,
      idleTimeoutMillis: 0,
      // A database that stops answering ends the start with a clear line, never a process waiting forever.
      // @ko lab-pool-connect-timeout
      connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
    });
    // Open every connection now, so the first second of the run does not pay for connection setup.
    let clients: PoolClient[];
    try {
      clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    } catch (error) {
      await pool.end().catch(() => {});
      throw new LabError('db-unreachable', dbFailureMessage(url, error, DB_CONNECT_TIMEOUT_MS));
    }
    for (const client of clients) client.release();
    return new LabDatabase(pool, connections);
  }

  async work(ms: number): Promise<void> {
    await this.pool.query('SELECT pg_sleep($1)', [Math.max(0, ms) / 1000]);
  }

  /** Connections queries can use now (the pool's size less those the failover holds or is taking). */
  get connections(): number {
    return this.usable;
  }

  /**
   * Leaves `n` (1..size) connections to queries: takes the others away, or gives them back. Queries running on a
   * connection being taken finish first (the pool hands it over when it is released, ahead of queries queued later).
   */
  setConnections(n: number): void {
    if (Number.isNaN(n)) throw new RangeError('setConnections: the number of connections is NaN');
    // @ko lab-pool-shrinks
    const target = Math.min(this.size, Math.max(1, Math.floor(n)));
    this.usable = target;
    while (this.held.length > 0 && this.size - this.held.length - this.taking < target) {
      (this.held.pop() as PoolClient).release();
    }
    while (this.size - this.held.length - this.taking > target) {
      this.taking++;
      this.pool.connect().then(
        (client) => {
          this.taking--;
          // Given back while on its way: the failover ended before this connection was free.
          if (this.size - this.held.length - this.taking <= this.usable) client.release();
          else this.held.push(client);
        },
        () => {
          this.taking--;
        },
      );
    }
  }

  async close(): Promise<void> {
    for (const client of this.held.splice(0)) client.release();
    await this.pool.end();
  }
}
