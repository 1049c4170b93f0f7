// The load shedder's config (shed.ts): its keys, defaults and validation (every problem named by its path, at once).

import { ConfigError, type ConfigIssue, joinPath } from '../core/config-error.js';
import { collectDuration, type Duration } from '../core/duration.js';

export type ShedDiscipline = 'fifo' | 'adaptive-lifo';

export interface LoadShedderConfig {
  /** Integer >= 1: at most this many requests run at once. */
  workers: number;
  /** Integer >= 0 or Infinity (default Infinity = unbounded FIFO, the incident's "bad"). 0 = never wait. */
  queueLimit?: number;
  /** Sent with the 503 when the queue is full; default 1s. */
  retryAfter?: Duration;
  /** Default true: work whose deadline has passed is answered 504 instead of run (on arrival and at dequeue). */
  dropExpired?: boolean;
  /** Default fifo. adaptive-lifo: serve newest first while the oldest waiting item has waited more than lifoAfter. */
  discipline?: ShedDiscipline;
  /** Default 100ms. */
  lifoAfter?: Duration;
}

export interface ResolvedLoadShedderConfig {
  readonly workers: number;
  readonly queueLimit: number;
  readonly retryAfterMs: number;
  readonly dropExpired: boolean;
  readonly discipline: ShedDiscipline;
  readonly lifoAfterMs: number;
}

/** The Retry-After a shed 503 carries when the config names none. */
export const DEFAULT_RETRY_AFTER_MS = 1000;
const DEFAULT_LIFO_AFTER_MS = 100;
/** The config's keys: every reader (the HTTP middleware's options, the scenario format) takes its list from here. */
export const SHED_CONFIG_KEYS = Object.freeze([
  'workers',
  'queueLimit',
  'retryAfter',
  'dropExpired',
  'discipline',
  'lifoAfter',
] as const);
export type ShedConfigKey = (typeof SHED_CONFIG_KEYS)[number];
const KNOWN_KEYS: ReadonlySet<string> = new Set(SHED_CONFIG_KEYS);

/** Checks a load-shedder config, pushing one issue per problem (paths under `path`); undefined if any. */
export function validateLoadShedderConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedLoadShedderConfig | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    issues.push({ path, message: 'must be an object such as { workers: 50, queueLimit: 200 }' });
    return undefined;
  }
  const raw = input as Record<string, unknown>;
  const before = issues.length;
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) issues.push({ path: joinPath(path, key), message: 'is not a load-shedder option' });
  }

  const { workers, queueLimit = Infinity, dropExpired = true, discipline = 'fifo' } = raw;
  if (!Number.isInteger(workers) || (workers as number) < 1) {
    issues.push({ path: joinPath(path, 'workers'), message: 'must be an integer >= 1' });
  }
  if (!(queueLimit === Infinity || (Number.isInteger(queueLimit) && (queueLimit as number) >= 0))) {
    issues.push({ path: joinPath(path, 'queueLimit'), message: 'must be an integer >= 0 or Infinity' });
  }
  const retryAfterMs = collectDuration(raw.retryAfter ?? DEFAULT_RETRY_AFTER_MS, joinPath(path, 'retryAfter'), issues);
  if (typeof dropExpired !== 'boolean') {
    issues.push({ path: joinPath(path, 'dropExpired'), message: 'must be true or false' });
  }
  if (discipline !== 'fifo' && discipline !== 'adaptive-lifo') {
    issues.push({ path: joinPath(path, 'discipline'), message: 'must be "fifo" or "adaptive-lifo"' });
  }
  const lifoAfterMs = collectDuration(raw.lifoAfter ?? DEFAULT_LIFO_AFTER_MS, joinPath(path, 'lifoAfter'), issues);

  if (issues.length !== before) return undefined;
  return {
    workers: workers as number,
    queueLimit: queueLimit as number,
    retryAfterMs: retryAfterMs as number,
    dropExpired: dropExpired as boolean,
    discipline: discipline as ShedDiscipline,
    lifoAfterMs: lifoAfterMs as number,
  };
}

/** The resolved config, or a ConfigError naming every problem. */
export function resolveOrThrow(input: unknown): ResolvedLoadShedderConfig {
  const issues: ConfigIssue[] = [];
  const resolved = validateLoadShedderConfig(input, '', issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}
