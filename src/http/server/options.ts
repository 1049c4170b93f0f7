// Options of the callee-side middleware (all frameworks): validation and the split into LoadShedder config.

import { type LoadShedderConfig, validateLoadShedderConfig } from '../../policy/admission/shed.js';
import { SHED_CONFIG_KEYS } from '../../policy/admission/shed-config.js';
import { ConfigError, type ConfigIssue, unknownKey } from '../../policy/core/config-error.js';
import { collectDuration, type Duration } from '../../policy/core/duration.js';
import { type HeaderSource, MAX_ACCEPTED_DEADLINE_MS } from '../../policy/hop/deadline.js';
import type { ServerMeterLike } from './telemetry.js';

/** What a `trustDeadline` predicate is told about an inbound request. */
export interface TrustInput {
  /** The request's headers (node-style record or Fetch Headers). */
  readonly headers: HeaderSource;
  /** Peer address of the connection, when the framework exposes it. */
  readonly remoteAddress: string | undefined;
}

/**
 * Whose Seawall headers count (deadline headers and the hop marker x-seawall-attempt):
 * true = everybody's (default, for services reached only through your own callers), false = nobody's (a public
 * edge), or a predicate (e.g. trust the mesh's addresses, or an authenticated peer).
 */
export type TrustDeadline = boolean | ((request: TrustInput) => boolean);

/**
 * Options shared by seawallHandler, shed (Connect/Express), the Fastify plugin and the Hono middleware: the
 * LoadShedder's own keys (workers, queueLimit, retryAfter, dropExpired, discipline, lifoAfter) plus the driver's.
 */
export interface ShedOptions extends Partial<LoadShedderConfig> {
  /** Longest deadline a caller can give us (longer ones are capped); default 5 min. */
  maxDeadline?: Duration;
  /** Whose deadline/hop headers count; default true. See docs/server.md before exposing a service publicly. */
  trustDeadline?: TrustDeadline;
  /** Value of the `seawall.server.name` attribute on metrics (default 'default'). */
  name?: string;
  /**
   * OpenTelemetry meter (from @opentelemetry/api). Default: the global meter `seawall` when @opentelemetry/api is
   * installed; false = no metrics.
   */
  meter?: ServerMeterLike | false;
}

export interface ResolvedShedOptions {
  readonly shedder: LoadShedderConfig;
  readonly maxDeadlineMs: number;
  readonly trust: TrustDeadline;
  readonly name: string;
  readonly meter: ServerMeterLike | false | undefined;
}

const OWN_KEYS: ReadonlySet<string> = new Set(['maxDeadline', 'trustDeadline', 'name', 'meter']);

/**
 * The middleware's defaults for omitted limits: Envoy's circuit-breaker defaults (max_requests and
 * max_pending_requests, 1024 each). Generous enough not to throttle a healthy service, bounded so that an overload
 * is refused with 503s instead of queued without end. Size both to your service (docs/server.md).
 */
export const DEFAULT_WORKERS = 1024;
export const DEFAULT_QUEUE_LIMIT = 1024;

/** Validates the options (absent = every default); throws one ConfigError listing every problem. */
export function resolveShedOptions(input: unknown, extraKeys: readonly string[] = []): ResolvedShedOptions {
  const issues: ConfigIssue[] = [];
  if (input === undefined) input = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError([{ path: '', message: 'must be an object such as { workers: 50, queueLimit: 200 }' }]);
  }
  const raw = input as Record<string, unknown>;
  const shedderInput: Record<string, unknown> = { workers: DEFAULT_WORKERS, queueLimit: DEFAULT_QUEUE_LIMIT };
  const known = [...SHED_CONFIG_KEYS, ...OWN_KEYS, ...extraKeys];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if ((SHED_CONFIG_KEYS as readonly string[]).includes(key)) shedderInput[key] = value;
    else if (!OWN_KEYS.has(key) && !extraKeys.includes(key)) {
      issues.push(unknownKey(key, key, known, 'is not an option of the Seawall middleware'));
    }
  }
  validateLoadShedderConfig(shedderInput, '', issues);
  const maxDeadlineMs = collectDuration(raw.maxDeadline ?? MAX_ACCEPTED_DEADLINE_MS, 'maxDeadline', issues);
  const trust = raw.trustDeadline ?? true;
  if (typeof trust !== 'boolean' && typeof trust !== 'function') {
    issues.push({ path: 'trustDeadline', message: 'must be true, false or a function (request) => boolean' });
  }
  const name = raw.name ?? 'default';
  if (typeof name !== 'string') issues.push({ path: 'name', message: 'must be a string' });
  const meter = raw.meter;
  if (meter !== undefined && meter !== false && (typeof meter !== 'object' || meter === null)) {
    issues.push({ path: 'meter', message: 'must be an OpenTelemetry Meter or false' });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    shedder: shedderInput as unknown as LoadShedderConfig,
    maxDeadlineMs: maxDeadlineMs as number,
    trust: trust as TrustDeadline,
    name: name as string,
    meter: meter as ServerMeterLike | false | undefined,
  };
}
