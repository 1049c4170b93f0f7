// Retry conditions: Envoy's retry_on / Istio's retryOn tokens <-> Seawall's retryOn (src/policy/retry/classify.ts), both ways.

import type { ConfigIssue } from '../policy/core/config-error.js';
import { compileRetryOn, isReplaySafeStatus, type RetryCondition, type RetryOnSet } from '../policy/retry/classify.js';
import { ENVOY_GATEWAY_ERROR_STATUSES } from './envoy/defaults.js';
import type { MeshWarning } from './errors.js';

/**
 * What each Envoy token retries, read from Envoy's router (source/common/router/retry_state_impl.cc,
 * wouldRetryFromReset): a per-try timeout reaches the retry state as a local reset, so `reset`, `5xx` and
 * `gateway-error` each retry every reset (but an overflow), every connect failure and every per-try timeout.
 * Seawall's `5xx` covers resets and connect failures but not timeouts, so Envoy's `5xx` reads as Seawall's `5xx` +
 * `timeout`, and Envoy's `reset` as `reset` + `connect-failure` + `timeout`.
 */
const HTTP_TOKENS = [
  '5xx',
  'gateway-error',
  'reset',
  'reset-before-request',
  'connect-failure',
  'refused-stream',
  'retriable-4xx',
  'retriable-status-codes',
  'envoy-ratelimited',
  'retriable-headers',
  'http3-post-connect-failure',
] as const;
/** x-envoy-retry-grpc-on tokens; Istio passes them in retryOn. gRPC statuses travel in trailers, not HTTP statuses. */
const GRPC_TOKENS = ['cancelled', 'deadline-exceeded', 'internal', 'resource-exhausted', 'unavailable'] as const;
export const ENVOY_RETRY_ON_TOKENS: readonly string[] = [...HTTP_TOKENS, ...GRPC_TOKENS];
const GRPC_STATUS_NAMES: Readonly<Record<string, string>> = {
  cancelled: 'CANCELLED',
  'deadline-exceeded': 'DEADLINE_EXCEEDED',
  internal: 'INTERNAL',
  'resource-exhausted': 'RESOURCE_EXHAUSTED',
  unavailable: 'UNAVAILABLE',
};

/**
 * Status codes Istio accepts as numbers in retryOn: those Go's net/http names (http.StatusText != ""); any other
 * number is passed to Envoy as a token, which Envoy ignores.
 */
const GO_NAMED_STATUSES = new Set<number>([
  100,
  101,
  102,
  103,
  200,
  201,
  202,
  203,
  204,
  205,
  206,
  207,
  208,
  226,
  300,
  301,
  302,
  303,
  304,
  305,
  307,
  308,
  ...range(400, 418),
  ...range(421, 426),
  428,
  429,
  431,
  451,
  ...range(500, 508),
  510,
  511,
]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** The meaning of a retryOn list, compiled by the policy itself (so the mapping cannot drift from classify.ts). */
export function retryOnSemantics(conditions: readonly unknown[]): RetryOnSet {
  const issues: ConfigIssue[] = [];
  return compileRetryOn([...conditions], 'retryOn', issues);
}

function hasAll(statuses: ReadonlySet<number>, from: number, to: number): boolean {
  for (let s = from; s <= to; s++) if (!statuses.has(s)) return false;
  return true;
}

/** The shortest Seawall list with the same meaning, in a fixed order (so equal meanings print equal). */
export function canonicalRetryOn(set: RetryOnSet): RetryCondition[] {
  const out: RetryCondition[] = [];
  const statuses = new Set(set.statuses);
  const all5xx = hasAll(statuses, 500, 599);
  if (all5xx && set.reset && set.connectFailure) {
    out.push('5xx');
    for (let s = 500; s <= 599; s++) statuses.delete(s);
  } else {
    if (set.reset) out.push('reset');
    if (set.connectFailure) out.push('connect-failure');
  }
  if (set.resetBeforeRequest && !set.reset) out.push('reset-before-request');
  if (set.timeout) out.push('timeout');
  if (hasAll(statuses, 400, 499)) {
    out.push('4xx');
    for (let s = 400; s <= 499; s++) statuses.delete(s);
  }
  out.push(...[...statuses].sort((a, b) => a - b));
  return out;
}

export interface MeshRetryOnRead {
  conditions: RetryCondition[];
  warnings: MeshWarning[];
  problems: string[];
}

/**
 * Reads Envoy's `retry_on` (+ `retriable_status_codes`) or Istio's `retryOn` (numbers allowed: `istio`), returning
 * Seawall's conditions. Unknown tokens are problems: Envoy ignores them silently, so a typo would retry nothing.
 */
export function readMeshRetryOn(
  retryOn: string,
  codes: readonly number[],
  where: string,
  path: string,
  dialect: 'envoy' | 'istio',
): MeshRetryOnRead {
  const warnings: MeshWarning[] = [];
  const problems: string[] = [];
  const conditions: RetryCondition[] = [];
  const statusCodes: number[] = [...codes];
  let wantsCodes = false;
  const warn = (kind: MeshWarning['kind'], message: string) =>
    warnings.push({ kind, where, field: 'retryOn', message });
  const tokens = retryOn
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  for (const token of tokens) {
    if (dialect === 'istio' && /^\d+$/.test(token)) {
      const code = Number(token);
      // @ko mesh-istio-unknown-status-refused
      if (!GO_NAMED_STATUSES.has(code)) {
        problems.push(
          `${path}: "${token}" is not a valid retryOn policy (Istio's validation: neither an HTTP status Go names nor an Envoy retry condition)`,
        );
      } else statusCodes.push(code);
      wantsCodes = true;
      continue;
    }
    switch (token) {
      case '5xx':
        conditions.push('5xx', 'timeout');
        break;
      case 'gateway-error':
        conditions.push('gateway-error', 'reset', 'connect-failure', 'timeout');
        break;
      case 'reset':
        // @ko mesh-reset-retries-timeouts
        conditions.push('reset', 'connect-failure', 'timeout');
        break;
      case 'reset-before-request':
      case 'connect-failure':
      case 'retriable-4xx':
        conditions.push(token);
        break;
      case 'refused-stream':
        conditions.push('reset-before-request');
        warn(
          'note',
          'refused-stream read as reset-before-request, which also retries a request that was never written',
        );
        break;
      case 'retriable-status-codes':
        wantsCodes = true;
        break;
      case 'envoy-ratelimited':
        conditions.push(429);
        warn('changed', "envoy-ratelimited (Envoy's own rate-limit answers) read as 429, the closest status");
        break;
      case 'retriable-headers':
      case 'http3-post-connect-failure':
        warn('dropped', `${token} has no Seawall retry condition; not mapped`);
        break;
      default: {
        if ((GRPC_TOKENS as readonly string[]).includes(token)) {
          // Envoy matches these on a grpc-status in the response, never on an HTTP status (wouldRetryFromHeaders).
          // @ko mesh-grpc-tokens-not-http
          warn(
            'dropped',
            `${token} is a gRPC condition (grpc-status ${GRPC_STATUS_NAMES[token]}): it never matches an HTTP answer, and Seawall's calls are HTTP; not mapped`,
          );
        } else {
          problems.push(
            `${path}: unknown retry condition ${JSON.stringify(token)} (Envoy ignores it silently); known: ${ENVOY_RETRY_ON_TOKENS.join(', ')}${dialect === 'istio' ? ', or an HTTP status code' : ''}`,
          );
        }
      }
    }
  }
  if (wantsCodes) {
    for (const code of statusCodes) {
      if (code >= 400 && code <= 599) conditions.push(code);
      else warn('dropped', `status ${code}: Seawall retries only statuses 400-599; not mapped`);
    }
  } else if (codes.length > 0) {
    warn('note', 'retriable_status_codes is ignored without retriable-status-codes in retry_on (as Envoy does)');
  }
  return { conditions: canonicalRetryOn(retryOnSemantics(conditions)), warnings, problems };
}

export interface MeshRetryOnWrite {
  /** Envoy tokens, comma-joined order fixed. */
  tokens: string[];
  /** Status codes for retriable_status_codes (Envoy) or as numbers in retryOn (Istio). */
  codes: number[];
  warnings: MeshWarning[];
}

/**
 * Writes Seawall's conditions as Envoy tokens and codes. Envoy has no token for a reset or a per-try timeout alone:
 * `reset`, `gateway-error` and `5xx` each retry resets, connect failures and per-try timeouts together, so when
 * Seawall retries either, the closest of them is written (`5xx` when every 5xx status is listed, `gateway-error` when
 * 502-504 are, else `reset`) and whatever it adds beyond Seawall's list is reported as `changed`.
 * `istio` also drops codes Istio cannot pass through (numbers Go does not name).
 */
export function writeMeshRetryOn(
  conditions: readonly unknown[],
  where: string,
  dialect: 'envoy' | 'istio',
): MeshRetryOnWrite {
  const set = retryOnSemantics(conditions);
  const warnings: MeshWarning[] = [];
  const tokens: string[] = [];
  const statuses = new Set(set.statuses);
  const reset = set.reset || set.timeout;
  if (reset) {
    const all5xx = hasAll(statuses, 500, 599);
    const gateway = ENVOY_GATEWAY_ERROR_STATUSES.every((s) => statuses.has(s));
    // @ko mesh-export-timeout-as-reset
    const token = all5xx ? '5xx' : gateway ? 'gateway-error' : 'reset';
    tokens.push(token);
    for (const s of all5xx ? range(500, 599) : gateway ? ENVOY_GATEWAY_ERROR_STATUSES : []) statuses.delete(s);
    const added: string[] = [];
    if (!set.reset) added.push('resets');
    if (!set.connectFailure) added.push('connect failures');
    if (!set.timeout) added.push('per-try timeouts');
    if (added.length > 0) {
      warnings.push({
        kind: 'changed',
        where,
        field: 'retryOn',
        message: `${dialect === 'istio' ? 'Istio (Envoy)' : 'Envoy'} retries resets, connect failures and per-try timeouts only together (reset, gateway-error or 5xx); wrote ${token}, which also retries ${added.join(' and ')}`,
      });
    }
  } else if (set.connectFailure) tokens.push('connect-failure');
  if (set.resetBeforeRequest && !reset) tokens.push('reset-before-request');
  let codes = [...statuses].sort((a, b) => a - b);
  if (dialect === 'istio') {
    const lost = codes.filter((c) => !GO_NAMED_STATUSES.has(c));
    if (lost.length > 0) {
      warnings.push({
        kind: 'changed',
        where,
        field: 'retryOn',
        message: `Istio cannot retry on ${lost.length} status code(s) Go does not name (${summarize(lost)}); dropped`,
      });
      codes = codes.filter((c) => GO_NAMED_STATUSES.has(c));
    }
  }
  if (codes.length > 0) tokens.push('retriable-status-codes');
  return { tokens, codes, warnings };
}

function summarize(codes: readonly number[]): string {
  return codes.length <= 6 ? codes.join(', ') : `${codes.slice(0, 5).join(', ')}, ... ${codes.at(-1)}`;
}

/**
 * Does replaying a non-idempotent request on these conditions risk doing the work twice? Seawall's classify.ts
 * refuses those replays (timeouts, resets after the request was sent, 5xx other than 502/503/504); a mesh does not
 * look at the method.
 */
export function hasUnsafeConditions(set: RetryOnSet): boolean {
  if (set.timeout || set.reset) return true;
  for (const s of set.statuses) if (!isReplaySafeStatus(s)) return true;
  return false;
}

/** The conditions a non-idempotent request may still be retried on (what Seawall's classify.ts allows). */
export function safeConditions(set: RetryOnSet): RetryCondition[] {
  const statuses = [...set.statuses].filter(isReplaySafeStatus);
  const out: RetryCondition[] = [];
  if (set.connectFailure) out.push('connect-failure');
  if (set.resetBeforeRequest) out.push('reset-before-request');
  return [...out, ...statuses.sort((a, b) => a - b)];
}
