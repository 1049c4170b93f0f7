// Reads undici's pool stats for the one fact the limits take from the driver: is a connected connection free for an origin?

/** What retryInterceptor's `pool` option must be: the undici Agent, Pool or Client it is composed onto. */
export interface UndiciPool {
  /** undici's stats: an Agent's per origin, a Pool's PoolStats, a Client's ClientStats. */
  readonly stats: unknown;
}

/** Is `value` something whose stats can be read (an undici Agent, Pool or Client)? */
export function isUndiciPool(value: unknown): value is UndiciPool {
  if (typeof value !== 'object' || value === null || !('stats' in value)) return false;
  const stats = (value as UndiciPool).stats;
  return typeof stats === 'object' && stats !== null;
}

/** One pool's stats (undici's PoolStats, or ClientStats for an Agent with `connections: 1`). */
interface OnePoolStats {
  /** PoolStats: clients connected and not busy. Absent from ClientStats. */
  free?: unknown;
  /** ClientStats: connected (a boolean); PoolStats: how many clients are (a number). */
  connected?: unknown;
  /** ClientStats: requests queued or running on the client. */
  size?: unknown;
}

function freeIn(stats: OnePoolStats | undefined): boolean | undefined {
  if (stats === undefined || stats === null || typeof stats !== 'object') return undefined;
  if (typeof stats.free === 'number') return stats.free > 0;
  if (typeof stats.connected === 'boolean') return stats.connected && stats.size === 0;
  return undefined;
}

/** The last origin looked up, as undici's Agent keys its stats (URL.origin: default port dropped). */
let lastIn = '';
let lastOut = '';
function statsKey(origin: string): string {
  if (origin !== lastIn) {
    let key = origin;
    try {
      // @ko pending-stats-key
      key = new URL(origin).origin;
    } catch {
      // not a URL: looked up as given (and found nowhere)
    }
    lastOut = key;
    lastIn = origin;
  }
  return lastOut;
}

/**
 * Does `pool` have a connected connection to `origin` with room for a request now? An Agent answers per origin (false
 * for an origin it has no pool for yet: a connection must be opened); a Pool or Client for itself. Read at admission,
 * before the request is dispatched: undici marks a client busy as soon as a request is queued on it, so concurrent
 * calls see the free connections go one by one.
 */
export function connectionFree(pool: UndiciPool, origin: string): boolean {
  const stats = pool.stats as OnePoolStats & Record<string, OnePoolStats | undefined>;
  return freeIn(stats) ?? freeIn(stats[statsKey(origin)]) ?? false;
}
