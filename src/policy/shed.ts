// Callee admission (LoadShedder): worker limit, bounded queue, fast 503 + Retry-After, 504 for expired work.

import { ConfigError, type ConfigIssue, joinPath } from './config-error.js';
import { collectDuration, type Duration } from './duration.js';
import { QueueEntry, WaitQueue } from './queue.js';
import { formatRetryAfter } from './retry-after.js';

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

/** Handle on a queued item, for cancel(). It is the queue entry itself: no extra allocation. */
export interface QueueTicket<T> {
  readonly item: T;
  readonly enqueuedAtMs: number;
}

export type Admission<T> =
  | { verdict: 'run' }
  | { verdict: 'queued'; ticket: QueueTicket<T> }
  | { verdict: 'reject'; status: 503; retryAfterMs: number; retryAfter: string; reason: 'queue-full' }
  | { verdict: 'drop'; status: 504; reason: 'deadline-passed' };

export type ShedDequeueResult<T> =
  | { verdict: 'run'; item: T; waitedMs: number }
  | { verdict: 'drop'; status: 504; item: T; waitedMs: number };

export interface ShedStats {
  /** Calls to admit(). */
  offered: number;
  /** Admitted straight to a worker without waiting. */
  admittedImmediately: number;
  /** Ever put in the queue. */
  queuedTotal: number;
  /** Rejected with 503 because the queue was full. */
  shed: number;
  /** Answered 504 by admit(): the deadline had passed on arrival. */
  droppedOnArrival: number;
  /** Answered 504 by dequeue(): the deadline passed while waiting. */
  dropped: number;
  /** Removed from the queue by cancel(). */
  cancelled: number;
  /** Took a worker (immediately or from the queue). */
  started: number;
  /** Released a worker via onFinish(). */
  completed: number;
  running: number;
  queued: number;
  /** Longest the queue has been. */
  peakQueued: number;
}

const DEFAULT_RETRY_AFTER_MS = 1000;
const DEFAULT_LIFO_AFTER_MS = 100;
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'workers',
  'queueLimit',
  'retryAfter',
  'dropExpired',
  'discipline',
  'lifoAfter',
]);

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

function resolveOrThrow(input: unknown): ResolvedLoadShedderConfig {
  const issues: ConfigIssue[] = [];
  const resolved = validateLoadShedderConfig(input, '', issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}

// Shared answers: admit() allocates nothing for run, reject or drop.
const RUN = Object.freeze({ verdict: 'run' as const });
const DROP_ON_ARRIVAL = Object.freeze({
  verdict: 'drop' as const,
  status: 504 as const,
  reason: 'deadline-passed' as const,
});

/**
 * Admission control for one callee. Sans-I/O: every call takes the driver's `nowMs`.
 * Driver protocol: admit() each request; run it on 'run'; on 'queued' keep the ticket (cancel() it if the
 * client goes away); after every onFinish() (and after update()) call dequeue() until it returns 'run' or
 * undefined, answering 504 for each 'drop'.
 */
export class LoadShedder<T> {
  private cfg: ResolvedLoadShedderConfig;
  private rejection: Admission<T>;
  private readonly waiting = new WaitQueue<T>();
  private runningNow = 0;
  private offered = 0;
  private admittedImmediately = 0;
  private queuedTotal = 0;
  private shed = 0;
  private droppedOnArrival = 0;
  private dropped = 0;
  private cancelled = 0;
  private started = 0;
  private completed = 0;
  private peakQueued = 0;

  constructor(config: LoadShedderConfig) {
    this.cfg = resolveOrThrow(config);
    this.rejection = LoadShedder.rejectionFor(this.cfg);
  }

  private static rejectionFor(cfg: ResolvedLoadShedderConfig): Admission<never> {
    // The header carries whole ms, rounded up (a server's wait is a minimum); the number matches it so the
    // simulator and HTTP clients wait the same time.
    const retryAfterMs = Math.ceil(cfg.retryAfterMs);
    return Object.freeze({
      verdict: 'reject' as const,
      status: 503 as const,
      retryAfterMs,
      retryAfter: formatRetryAfter(retryAfterMs),
      reason: 'queue-full' as const,
    });
  }

  get config(): ResolvedLoadShedderConfig {
    return this.cfg;
  }

  get running(): number {
    return this.runningNow;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /** `deadlineMs` is absolute on the same clock as `nowMs`; null = no deadline. */
  admit(nowMs: number, deadlineMs: number | null, item: T): Admission<T> {
    const cfg = this.cfg;
    const deadline = deadlineMs ?? Infinity;
    this.offered++;
    // Checked before the free-worker path: running work nobody waits for is exactly the incident's waste.
    if (cfg.dropExpired && deadline <= nowMs) {
      this.droppedOnArrival++;
      return DROP_ON_ARRIVAL;
    }
    // A free worker is taken only when nobody is waiting: arrivals never overtake the queue.
    if (this.runningNow < cfg.workers && this.waiting.size === 0) {
      this.runningNow++;
      this.started++;
      this.admittedImmediately++;
      return RUN;
    }
    if (this.waiting.size >= cfg.queueLimit) {
      this.shed++;
      return this.rejection;
    }
    const entry = new QueueEntry(item, nowMs, deadline);
    this.waiting.pushBack(entry);
    this.queuedTotal++;
    this.peakQueued = Math.max(this.peakQueued, this.waiting.size);
    return { verdict: 'queued', ticket: entry };
  }

  /**
   * The next queued item, if a worker is free. A 'drop' (504) does not take the worker: call again until
   * 'run' or undefined.
   */
  dequeue(nowMs: number): ShedDequeueResult<T> | undefined {
    const cfg = this.cfg;
    if (this.runningNow >= cfg.workers) return undefined;
    const oldest = this.waiting.head;
    if (oldest === null) return undefined;
    let entry = oldest;
    // Adaptive LIFO (Facebook, "Fail at Scale"): once the line is stale, serve the newest, who can still be
    // helped in time. An expired oldest is answered first, so stale work leaves the queue instead of pinning it.
    if (
      cfg.discipline === 'adaptive-lifo' &&
      nowMs - oldest.enqueuedAtMs > cfg.lifoAfterMs &&
      !(cfg.dropExpired && oldest.deadlineMs <= nowMs)
    ) {
      entry = this.waiting.tail as QueueEntry<T>;
    }
    this.waiting.remove(entry);
    // A clock that stepped back (wall time in the HTTP driver) must not report a negative wait.
    const waitedMs = Math.max(0, nowMs - entry.enqueuedAtMs);
    if (cfg.dropExpired && entry.deadlineMs <= nowMs) {
      this.dropped++;
      return { verdict: 'drop', status: 504, item: entry.item, waitedMs };
    }
    this.runningNow++;
    this.started++;
    return { verdict: 'run', item: entry.item, waitedMs };
  }

  /** Releases one worker. Throws if none is running: the driver finished something it never started. */
  onFinish(): void {
    if (this.runningNow === 0) throw new Error('LoadShedder.onFinish() called with no request running');
    this.runningNow--;
    this.completed++;
  }

  /** Removes a queued item whose client is gone; false if it is no longer queued (served, dropped, cancelled). */
  cancel(ticket: QueueTicket<T>): boolean {
    if (!this.waiting.remove(ticket as QueueEntry<T>)) return false;
    this.cancelled++;
    return true;
  }

  /**
   * Changes limits at run time; throws ConfigError (and changes nothing) if the result is invalid. Work already
   * running or queued beyond a lowered limit stays; only new admissions and dequeues see the new limits.
   * After raising `workers`, call dequeue() to fill the new slots.
   */
  update(config: Partial<LoadShedderConfig>): void {
    const c = this.cfg;
    const merged: Record<string, unknown> = {
      workers: c.workers,
      queueLimit: c.queueLimit,
      retryAfter: c.retryAfterMs,
      dropExpired: c.dropExpired,
      discipline: c.discipline,
      lifoAfter: c.lifoAfterMs,
    };
    for (const [key, value] of Object.entries(config)) {
      if (value !== undefined) merged[key] = value;
    }
    const next = resolveOrThrow(merged);
    this.cfg = next;
    this.rejection = LoadShedder.rejectionFor(next);
  }

  stats(): ShedStats {
    return {
      offered: this.offered,
      admittedImmediately: this.admittedImmediately,
      queuedTotal: this.queuedTotal,
      shed: this.shed,
      droppedOnArrival: this.droppedOnArrival,
      dropped: this.dropped,
      cancelled: this.cancelled,
      started: this.started,
      completed: this.completed,
      running: this.runningNow,
      queued: this.waiting.size,
      peakQueued: this.peakQueued,
    };
  }
}
