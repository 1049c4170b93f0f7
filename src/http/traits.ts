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
