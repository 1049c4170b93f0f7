// A --db URL checked before the lab starts anything: connect and SELECT 1 within a time limit, one clear line if not.

import { LabError } from '../errors.js';
import { loadPg } from './pg-driver.js';

/** How long the lab waits for a database to connect (TCP, TLS, startup, auth) and to answer its readiness query. */
export const DB_CONNECT_TIMEOUT_MS = 5000;

/** The URL without its password (`postgres://u:secret@h/db` is `postgres://u@h/db`), for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '';
    return parsed.toString().replace(/^(\w+:\/\/[^:@/]*):@/, '$1@');
  } catch {
    // not a URL (a key=value string): drop anything that looks like a password
    return url.replace(/(password\s*=\s*)\S+/gi, '$1***').replace(/(\/\/[^:/@\s]*):[^@\s]*@/, '$1@');
  }
}

/** host:port of a URL, for "check that PostgreSQL listens at ..."; the URL itself when it has none. */
function whereOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'the host and port it names';
  }
}

/**
 * One line saying why `url` could not be used and what to check. `timedOut`: the time limit ended the attempt (pg
 * says "timeout expired" or "connection timeout"; a query timeout says "Query read timeout").
 */
export function dbFailureMessage(url: string, error: unknown, timeoutMs: number): string {
  const shown = redactUrl(url);
  const where = whereOf(url);
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = String(e?.message ?? error).split('\n')[0] as string;
  const cause = String((e?.cause as { message?: unknown } | undefined)?.message ?? e?.cause ?? '');
  if (/timeout/i.test(message) || /timeout/i.test(cause)) {
    return (
      `--db ${shown}: no answer within ${timeoutMs / 1000} s: check that PostgreSQL (not another server) listens ` +
      `at ${where} and that nothing (a firewall, a proxy) holds the connection`
    );
  }
  if (code === 'ECONNREFUSED')
    return `--db ${shown}: connection refused: is PostgreSQL running and listening at ${where}?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `--db ${shown}: no such host: check the host name in the URL`;
  if (code === 'ECONNRESET' || /terminated unexpectedly/i.test(message)) {
    return `--db ${shown}: the connection was closed before PostgreSQL answered: check that PostgreSQL listens at ${where}`;
  }
  // PostgreSQL's own refusals (a bad password, no such database) carry a SQLSTATE of five characters.
  if (/^[0-9A-Z]{5}$/.test(code)) return `--db ${shown}: PostgreSQL refused: ${message} (SQLSTATE ${code})`;
  return `--db ${shown}: cannot connect: ${message}${code === '' ? '' : ` (${code})`}`;
}

/**
 * Connects to `url` and runs `SELECT 1`, all within `timeoutMs`; throws a LabError (`db-unreachable`) with one line
 * naming the URL (no password) and what to check. The connection is closed either way, so nothing keeps us alive.
 */
export async function checkDatabase(url: string, timeoutMs = DB_CONNECT_TIMEOUT_MS): Promise<void> {
  const pg = await loadPg();
  let client: InstanceType<typeof pg.Client>;
  try {
    // @ko lab-db-connect-timeout
    client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  } catch (error) {
    throw new LabError('db-unreachable', dbFailureMessage(url, error, timeoutMs));
  }
  client.on('error', () => {}); // a connection lost after the check: nothing to report, it is closed below
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new LabError('db-unreachable', dbFailureMessage(url, error, timeoutMs));
  } finally {
    await closeClient(client);
  }
}

/** end(), but never waiting more than a second for it; then the socket is destroyed whatever state it is in. */
async function closeClient(client: { end(): Promise<void> }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 1000);
    timer.unref();
  });
  await Promise.race([client.end().catch(() => {}), bound]);
  clearTimeout(timer);
  (client as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}
