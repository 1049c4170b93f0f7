// HTTP semantic-convention attribute values: the request method (`_OTHER` for unknown ones) and a redacted url.full.

/** OTel HTTP semconv: the methods of RFC 9110 plus PATCH (RFC 5789) are "known"; any other is `_OTHER`. */
const DEFAULT_KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

/** Semconv: the override MUST be this variable, a comma-separated, case-sensitive, full replacement of the list. */
export const KNOWN_METHODS_ENV = 'OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS';

/** The known methods: the semconv's default list, or the one in OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS. */
export function knownMethods(env: Record<string, string | undefined> = process.env): ReadonlySet<string> {
  const override = env[KNOWN_METHODS_ENV];
  if (override === undefined) return new Set(DEFAULT_KNOWN_METHODS);
  return new Set(
    override
      .split(',')
      .map((method) => method.trim())
      .filter((method) => method !== ''),
  );
}

/** Semconv value of `http.request.method` for an unknown method (span name `HTTP`, `method_original` set). */
export const OTHER_METHOD = '_OTHER';

/** Semconv query keys whose values are replaced by `REDACTED` in url.full (matched case-sensitively). */
const SENSITIVE_QUERY_KEYS: ReadonlySet<string> = new Set(['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature']);
const SENSITIVE_KEY_LENGTHS: ReadonlySet<number> = new Set([...SENSITIVE_QUERY_KEYS].map((key) => key.length));

const REDACTED = 'REDACTED';
const REDACTED_USERINFO = 'REDACTED:REDACTED';

const SLASH = 47;
const BACKSLASH = 92;
const QUESTION = 63;
const HASH = 35;
const AT = 64;
const PERCENT = 37;
const PLUS = 43;

/**
 * url.full as the semconv wants it: userinfo replaced by `REDACTED:REDACTED`, and the values of the sensitive query
 * keys by `REDACTED` (the keys stay). Runs on every traced attempt, so it scans: a URL with no `@` and no `?` is
 * returned as it is, without allocating, and only a URL with an `@` is parsed (userinfo needs one). Never throws.
 */
export function redactUrl(url: string): string {
  const out = url.indexOf('@') < 0 ? url : withoutUserinfo(url);
  const question = out.indexOf('?');
  if (question < 0) return out;
  const hash = out.indexOf('#');
  return hash >= 0 && hash < question ? out : redactQuery(out, question, hash < 0 ? out.length : hash);
}

/** The URL with its userinfo replaced, as the WHATWG parser (what fetch and undici use) reads the userinfo. */
function withoutUserinfo(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return scannedWithoutUserinfo(url);
  }
  if (parsed.username === '' && parsed.password === '') return url; // the `@` was in the path, query or fragment
  parsed.username = REDACTED;
  parsed.password = REDACTED;
  return parsed.href;
}

/**
 * For a string the parser refuses (the request will fail, but its span still gets url.full): everything between the
 * scheme's `:` and slashes and the last `@` before the path, query or fragment. Errs on the side of redacting more.
 */
function scannedWithoutUserinfo(url: string): string {
  const colon = url.indexOf(':');
  let start = colon + 1;
  while (start < url.length && (url.charCodeAt(start) === SLASH || url.charCodeAt(start) === BACKSLASH)) start++;
  let at = -1;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === SLASH || c === BACKSLASH || c === QUESTION || c === HASH) break;
    if (c === AT) at = i;
  }
  return at < 0 ? url : url.slice(0, start) + REDACTED_USERINFO + url.slice(at);
}

/** Replaces the values of the sensitive keys in the query from `question` to `hash` (the `#` or the end). */
function redactQuery(url: string, question: number, hash: number): string {
  let out = '';
  let copied = 0;
  let start = question + 1;
  let equals = question;
  while (start <= hash) {
    if (equals < start) {
      equals = url.indexOf('=', start); // searched again only once passed: linear in the query's length
      if (equals < 0 || equals > hash) break; // no value left
    }
    let end = url.indexOf('&', start);
    if (end < 0 || end > hash) end = hash;
    if (equals < end && equals + 1 < end && isSensitiveKey(url, start, equals)) {
      out += url.slice(copied, equals + 1) + REDACTED;
      copied = end;
    }
    start = end + 1;
  }
  return copied === 0 ? url : out + url.slice(copied);
}

/** Is the key `url[start, end)` one of the sensitive ones? Slices only keys of a matching length or encoded ones. */
function isSensitiveKey(url: string, start: number, end: number): boolean {
  let encoded = false;
  for (let i = start; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === PERCENT || c === PLUS) {
      encoded = true;
      break;
    }
  }
  if (!encoded) return SENSITIVE_KEY_LENGTHS.has(end - start) && SENSITIVE_QUERY_KEYS.has(url.slice(start, end));
  // The server decodes the key, so `si%67=...` is `sig`.
  try {
    return SENSITIVE_QUERY_KEYS.has(decodeURIComponent(url.slice(start, end).replaceAll('+', ' ')));
  } catch {
    return false;
  }
}
