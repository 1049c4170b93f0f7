// Callee admission (LoadShedder): worker limit, bounded queue, fast 503 + Retry-After, 504 for expired work.

import { deadlinePassed, queueFullRefusal } from '../hop/hop.js';
import { type LoadShedderConfig, type ResolvedLoadShedderConfig, resolveOrThrow } from './shed-config.js';
import { SlotQueue } from './slot-queue.js';

export {
  type LoadShedderConfig,
  type ResolvedLoadShedderConfig,
  type ShedDiscipline,
  validateLoadShedderConfig,
} from './shed-config.js';

/** Handle on a queued item, for cancel(). */
export interface QueueTicket<T> {
  readonly item: T;
  readonly enqueuedAtMs: number;
}

export type Admission<T> =
  | { verdict: 'run' }
  | { verdict: 'queued'; ticket: QueueTicket<T> }
  | {
      verdict: 'reject';
      status: 503;
      retryAfterMs: number;
      /** Retry-After as sent: RFC 9110 integer seconds, rounded up. */
      retryAfter: string;
      /** The refusal's headers (Retry-After, retry-after-ms, the claim), built once in policy/hop.ts. */
      headers: Readonly<Record<string, string>>;
      reason: 'queue-full';
    }
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

// Shared answers: admit() allocates nothing for run, reject or drop.
const RUN = Object.freeze({ verdict: 'run' as const });
const DROP_ON_ARRIVAL = Object.freeze({
  verdict: 'drop' as const,
  status: 504 as const,
  reason: 'deadline-passed' as const,
});

/** offer()'s answers, the allocation-free form of admit()'s verdicts. */
export const OFFER_RUN = 0;
export const OFFER_QUEUED = 1;
export const OFFER_REJECT = 2;
export const OFFER_DROP = 3;
export type OfferVerdict = typeof OFFER_RUN | typeof OFFER_QUEUED | typeof OFFER_REJECT | typeof OFFER_DROP;

/** The ticket admit() hands out: where the item waits, stamped so a stale ticket cancels nothing. */
class ShedTicket<T> implements QueueTicket<T> {
  constructor(
    readonly item: T,
    readonly enqueuedAtMs: number,
    /** @internal */ readonly queue: SlotQueue<T>,
    /** @internal */ readonly slot: number,
    /** @internal */ readonly stamp: number,
  ) {}
}

/**
 * Admission control for one callee. Sans-I/O: every call takes the driver's `nowMs`.
 * Driver protocol: admit() each request; run it on 'run'; on 'queued' keep the ticket (cancel() it if the
 * client goes away); after every onFinish() (and after update()) call dequeue() until it returns 'run' or
 * undefined, answering 504 for each 'drop'.
 * The simulator's hot loop uses allocation-free twins instead (offer(), take(), cancelQueued(): internal, not typed API).
 */
export class LoadShedder<T> {
  private cfg: ResolvedLoadShedderConfig;
  private rejection: Admission<T>;
  private readonly waiting = new SlotQueue<T>();
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
  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * After offer() answered OFFER_QUEUED: the item's slot, for cancelQueued().
   */
  // @eq shed-lastslot
  lastSlot = -1;
  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * After take() returned an item: true when it is a 504 drop (it took no worker), false when it runs.
   */
  // @eq shed-lastdropped
  lastDropped = false;
  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * After take() returned an item: how long it waited, ms.
   */
  lastWaitedMs = 0;

  constructor(config: LoadShedderConfig) {
    this.cfg = resolveOrThrow(config);
    this.rejection = LoadShedder.rejectionFor(this.cfg);
  }

  private static rejectionFor(cfg: ResolvedLoadShedderConfig): Admission<never> {
    // Whole ms, rounded up (a server's wait is a minimum): the simulator and HTTP clients then wait the same time.
    return Object.freeze({ verdict: 'reject' as const, ...queueFullRefusal(cfg.retryAfterMs) });
  }

  get config(): ResolvedLoadShedderConfig {
    return this.cfg;
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * The answer to a full queue under the config in force (what admit() returns for 'reject'; shared, frozen).
   */
  get rejected(): Extract<Admission<T>, { verdict: 'reject' }> {
    return this.rejection as Extract<Admission<T>, { verdict: 'reject' }>;
  }

  get running(): number {
    return this.runningNow;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /**
   * When the shedder next has something to do by time alone (quinn's poll_timeout): with dropExpired, the deadline of
   * the oldest queued item (take() answers an expired oldest first, with a 504, even under adaptive LIFO); else, or
   * with nothing queued or no deadline, Infinity. Same clock as `nowMs`.
   */
  nextWakeMs(): number {
    const oldest = this.waiting.head;
    return !this.cfg.dropExpired || oldest < 0 ? Number.POSITIVE_INFINITY : this.waiting.deadlineMs(oldest);
  }

  /** `deadlineMs` is absolute on the same clock as `nowMs`; null = no deadline. */
  admit(nowMs: number, deadlineMs: number | null, item: T): Admission<T> {
    switch (this.offer(nowMs, deadlineMs, item)) {
      case OFFER_RUN:
        return RUN;
      case OFFER_QUEUED: {
        const slot = this.lastSlot;
        const queue = this.waiting;
        return {
          verdict: 'queued',
          ticket: new ShedTicket(item, queue.enqueuedAtMs(slot), queue, slot, queue.stamp(slot)),
        };
      }
      case OFFER_REJECT:
        return this.rejection;
      default:
        return DROP_ON_ARRIVAL;
    }
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * admit() without allocating: the same decision and counters, as a code. On OFFER_QUEUED, `lastSlot` names the
   * item's place for cancelQueued(); on OFFER_REJECT, `rejected` holds the 503's status and Retry-After.
   */
  offer(nowMs: number, deadlineMs: number | null, item: T): OfferVerdict {
    const cfg = this.cfg;
    const deadline = deadlineMs ?? Infinity;
    this.offered++;
    // Checked before the free-worker path: running work nobody waits for is exactly the incident's waste.
    // @ko shed-drop-on-arrival
    if (cfg.dropExpired && deadlinePassed(deadline, nowMs)) {
      this.droppedOnArrival++;
      return OFFER_DROP;
    }
    const waiting = this.waiting;
    // A free worker is taken only when nobody is waiting: arrivals never overtake the queue.
    // @ko shed-no-overtaking
    if (this.runningNow < cfg.workers && waiting.size === 0) {
      this.runningNow++;
      this.started++;
      this.admittedImmediately++;
      return OFFER_RUN;
    }
    // @ko shed-queue-limit-off-by-one
    if (waiting.size >= cfg.queueLimit) {
      this.shed++;
      return OFFER_REJECT;
    }
    this.lastSlot = waiting.push(item, nowMs, deadline);
    this.queuedTotal++;
    // @eq shed-waiting-size-peakqueued
    if (waiting.size > this.peakQueued) this.peakQueued = waiting.size;
    return OFFER_QUEUED;
  }

  /**
   * The next queued item, if a worker is free. A 'drop' (504) does not take the worker: call again until
   * 'run' or undefined.
   */
  dequeue(nowMs: number): ShedDequeueResult<T> | undefined {
    const item = this.take(nowMs);
    if (this.lastWaitedMs < 0) return undefined; // take() reports -1 exactly when nothing may start
    const waitedMs = this.lastWaitedMs;
    return this.lastDropped
      ? { verdict: 'drop', status: 504, item: item as T, waitedMs }
      : { verdict: 'run', item: item as T, waitedMs };
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * dequeue() without allocating: the next item, or undefined when none may start (then `lastWaitedMs` is -1).
   * `lastDropped` tells a 504 drop (no worker taken: call again) from an item that now runs; `lastWaitedMs` its wait.
   */
  take(nowMs: number): T | undefined {
    const cfg = this.cfg;
    const waiting = this.waiting;
    const oldest = waiting.head;
    if (this.runningNow >= cfg.workers || oldest < 0) {
      this.lastWaitedMs = -1;
      return undefined;
    }
    let slot = oldest;
    // Adaptive LIFO (Facebook, "Fail at Scale"): once the line is stale, serve the newest, who can still be
    // helped in time. An expired oldest is answered first, so stale work leaves the queue instead of pinning it.
    if (
      cfg.discipline === 'adaptive-lifo' &&
      nowMs - waiting.enqueuedAtMs(oldest) > cfg.lifoAfterMs &&
      !(cfg.dropExpired && deadlinePassed(waiting.deadlineMs(oldest), nowMs))
    ) {
      // @ko shed-adaptive-lifo
      slot = waiting.tail;
    }
    const item = waiting.item(slot);
    const enqueuedAtMs = waiting.enqueuedAtMs(slot);
    const deadlineMs = waiting.deadlineMs(slot);
    waiting.remove(slot);
    // A clock that stepped back (wall time in the HTTP driver) must not report a negative wait.
    this.lastWaitedMs = Math.max(0, nowMs - enqueuedAtMs);
    // @ko shed-drop-at-dequeue
    if (cfg.dropExpired && deadlinePassed(deadlineMs, nowMs)) {
      this.dropped++;
      this.lastDropped = true;
      return item;
    }
    this.runningNow++;
    this.started++;
    // @eq shed-lastdropped
    this.lastDropped = false;
    return item;
  }

  /** Releases one worker. Throws if none is running: the driver finished something it never started. */
  onFinish(): void {
    if (this.runningNow === 0) throw new Error('LoadShedder.onFinish() called with no request running');
    this.runningNow--;
    this.completed++;
  }

  /**
   * Takes back the worker dequeue() just gave an item whose client turned out to be gone before it ran: counted as
   * cancelled (it left the queue unserved), not as started. Throws if none is running.
   */
  abandon(): void {
    if (this.runningNow === 0) throw new Error('LoadShedder.abandon() called with no request running');
    this.runningNow--;
    // @ko shed-abandon-not-started
    this.started--;
    this.cancelled++;
  }

  /** Removes a queued item whose client is gone; false if it is no longer queued (served, dropped, cancelled). */
  cancel(ticket: QueueTicket<T>): boolean {
    // @eq shed-ticket-instanceof-shedticket-ticket
    if (!(ticket instanceof ShedTicket) || ticket.queue !== this.waiting) return false;
    if (!this.waiting.holds(ticket.slot, ticket.stamp)) return false;
    this.waiting.remove(ticket.slot);
    this.cancelled++;
    return true;
  }

  /**
   * @internal a hot-loop twin (the simulator's), not public API.
   * cancel() for an item queued by offer(): `slot` is the lastSlot it reported; false if the item left already.
   */
  cancelQueued(slot: number, item: T): boolean {
    if (item === undefined || this.waiting.itemOrUndefined(slot) !== item) return false;
    this.waiting.remove(slot);
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
