// Request header plumbing for both drivers: add the attempt's headers to the caller's, find an Idempotency-Key.

/** The header a non-idempotent request carries so the server can deduplicate a replay (IETF draft, Stripe). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Header shapes fetch accepts. */
export type FetchHeaders = Headers | Array<[string, string]> | Record<string, string> | Iterable<readonly string[]>;
/** Header shapes undici's dispatch accepts: a record, a flat [name, value, ...] array, or an iterable of pairs. */
export type UndiciHeaderInput =
  | Record<string, string | string[] | undefined>
  | Array<string | string[] | undefined>
  | Iterable<[string, string | string[] | undefined]>
  | null
  | undefined;

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

/** Copies a record without the names `extra` sets (case-insensitively), then adds `extra`: ours win, no duplicates. */
function mergeRecord<V>(base: Record<string, V>, extra: Record<string, string>): Record<string, V | string> {
  const merged: Record<string, V | string> = {};
  for (const name in base) {
    if (!Object.hasOwn(extra, name.toLowerCase())) merged[name] = base[name] as V;
  }
  for (const name in extra) merged[name] = extra[name] as string;
  return merged;
}

/** fetch: the caller's headers plus `extra` (lower-case names), which replace any caller header of the same name. */
export function mergeFetchHeaders(
  base: FetchHeaders | undefined | null,
  extra: Record<string, string>,
): Headers | Record<string, string> | Array<[string, string]> {
  if (base === undefined || base === null) return extra;
  if (isHeaders(base)) {
    const headers = new Headers(base);
    for (const name in extra) headers.set(name, extra[name] as string);
    return headers;
  }
  if (Symbol.iterator in base) {
    const pairs: Array<[string, string]> = [];
    for (const pair of base as Iterable<readonly string[]>) {
      const name = pair[0] as string;
      if (!Object.hasOwn(extra, name.toLowerCase())) pairs.push([name, pair[1] as string]);
    }
    for (const name in extra) pairs.push([name, extra[name] as string]);
    return pairs;
  }
  return mergeRecord(base as Record<string, string>, extra);
}

/** undici dispatch: the caller's headers plus `extra`, in a shape undici accepts. */
export function mergeUndiciHeaders(
  base: UndiciHeaderInput,
  extra: Record<string, string>,
): Record<string, string | string[] | undefined> | Array<string | string[] | undefined> {
  if (base === undefined || base === null) return extra;
  if (Array.isArray(base)) {
    const flat: Array<string | string[] | undefined> = [];
    for (let i = 0; i + 1 < base.length; i += 2) {
      const name = base[i];
      if (typeof name === 'string' && Object.hasOwn(extra, name.toLowerCase())) continue;
      flat.push(name, base[i + 1]);
    }
    for (const name in extra) flat.push(name, extra[name]);
    return flat;
  }
  if (Symbol.iterator in base) {
    const record: Record<string, string | string[] | undefined> = {};
    for (const [name, value] of base as Iterable<[string, string | string[] | undefined]>) record[name] = value;
    return mergeRecord(record, extra);
  }
  return mergeRecord(base as Record<string, string | string[] | undefined>, extra);
}

/** Does a fetch header set carry `name` (lower-case)? */
export function fetchHeadersHave(headers: FetchHeaders | undefined | null, name: string): boolean {
  if (headers === undefined || headers === null) return false;
  if (isHeaders(headers)) return headers.has(name);
  if (Symbol.iterator in headers) {
    for (const pair of headers as Iterable<readonly string[]>) if (pair[0]?.toLowerCase() === name) return true;
    return false;
  }
  for (const key in headers) if (key.toLowerCase() === name) return true;
  return false;
}

/** Does an undici header set carry `name` (lower-case)? */
export function undiciHeadersHave(headers: UndiciHeaderInput, name: string): boolean {
  if (headers === undefined || headers === null) return false;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) {
      const key = headers[i];
      if (typeof key === 'string' && key.toLowerCase() === name) return true;
    }
    return false;
  }
  if (Symbol.iterator in headers) {
    for (const [key] of headers as Iterable<[string, unknown]>) if (key.toLowerCase() === name) return true;
    return false;
  }
  for (const key in headers) if (key.toLowerCase() === name) return true;
  return false;
}
