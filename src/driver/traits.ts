// Facts about a real request the policy needs: its origin (the budget key), whether its body can be sent twice, the kill switch.

/** Environment variable read once when a fetch or interceptor is created: "1"/"true"/"yes"/"on" turns retries off. */
export const KILL_SWITCH_ENV = 'SEAWALL_DISABLE_RETRIES';

/** Is the kill switch set in `env`? */
export function killSwitchSet(env: Record<string, string | undefined>): boolean {
  const value = env[KILL_SWITCH_ENV]?.trim().toLowerCase();
  return value === '1' || value === 'true' || value === 'yes' || value === 'on';
}

/**
 * The origin (`scheme://host[:port]`) of an absolute URL, found by scanning rather than parsing (this runs on every
 * call). Falls back to the WHATWG parser for anything unusual (credentials, no `//`).
 */
export function originOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme > 0) {
    const hostStart = scheme + 3;
    let end = url.length;
    for (let i = hostStart; i < url.length; i++) {
      const c = url.charCodeAt(i);
      if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) {
        end = i;
        break;
      }
      if (c === 64 /* @ */) return parsedOrigin(url);
    }
    return url.slice(0, end).toLowerCase();
  }
  return parsedOrigin(url);
}

/**
 * The path and query of an absolute URL (`/` when it has none; the fragment, never sent, dropped), found by scanning as
 * originOf does.
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme <= 0) return parsedPath(url);
  let start = url.length;
  for (let i = scheme + 3; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) {
      start = i;
      break;
    }
    if (c === 64 /* @ */) return parsedPath(url);
  }
  const hash = url.indexOf('#', start);
  const rest = hash < 0 ? url.slice(start) : url.slice(start, hash);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}

function parsedPath(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return '/';
  }
}

/** `url` sent to `origin` instead of its own (an endpoint the balancer picked): path and query kept. */
export function routedUrl(origin: string, url: string): string {
  return origin + pathOf(url);
}

function parsedOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** Host and port of an origin, for telemetry (server.address, server.port). */
export function hostAndPort(origin: string): { address: string; port: number } {
  try {
    const url = new URL(origin);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { address: url.hostname, port };
  } catch {
    return { address: origin, port: 0 };
  }
}

/** Can this request body be sent again? Strings, buffers, blobs and forms can; streams and async iterables cannot. */
export function isReplayableBody(body: unknown): boolean {
  if (body === undefined || body === null || typeof body === 'string') return true;
  if (ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return true;
  if (typeof Blob !== 'undefined' && body instanceof Blob) return true;
  if (body instanceof URLSearchParams) return true;
  if (typeof FormData !== 'undefined' && body instanceof FormData) return true;
  return false;
}
