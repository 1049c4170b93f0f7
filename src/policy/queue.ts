// The load shedder's waiting line: an intrusive doubly linked list with O(1) push, pop at either end and removal.

/**
 * One waiting item. The entry is the only allocation per queued item: it is also the ticket handed to the
 * driver, and it links itself into the list (no separate node, no closure).
 */
export class QueueEntry<T> {
  /** The list this entry is in, or null once it has left (served, dropped or cancelled). */
  list: WaitQueue<T> | null = null;
  prev: QueueEntry<T> | null = null;
  next: QueueEntry<T> | null = null;

  constructor(
    readonly item: T,
    /** When the item joined the queue (driver's clock, ms). */
    readonly enqueuedAtMs: number,
    /** Absolute deadline in ms on the driver's clock; Infinity when the request has none. */
    readonly deadlineMs: number,
  ) {}
}

/** Oldest at `head`, newest at `tail`. Removal in the middle is O(1), so cancelled items leave no tombstones. */
export class WaitQueue<T> {
  head: QueueEntry<T> | null = null;
  tail: QueueEntry<T> | null = null;
  size = 0;

  /** Appends a fresh entry (one that is in no list) as the newest. */
  pushBack(entry: QueueEntry<T>): void {
    if (entry.list !== null) throw new Error('QueueEntry is already in a queue');
    entry.list = this;
    entry.prev = this.tail;
    entry.next = null;
    if (this.tail === null) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    this.size++;
  }

  /** Unlinks `entry` if it is in this list; false if it is not (already removed, or another list's). */
  remove(entry: QueueEntry<T>): boolean {
    if (entry.list !== this) return false;
    const { prev, next } = entry;
    if (prev === null) this.head = next;
    else prev.next = next;
    if (next === null) this.tail = prev;
    else next.prev = prev;
    // Cut the links so a removed entry kept alive by a driver's ticket does not pin its old neighbours.
    entry.prev = null;
    entry.next = null;
    entry.list = null;
    this.size--;
    return true;
  }
}
