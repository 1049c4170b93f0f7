// A guard's state changes as data (breaker transitions, ejections): recorded only once a driver asks, bounded, drained by it.

/** More changes than this between two drains are counted in `dropped`, not kept (a driver drains after every step). */
export const MAX_PENDING_CHANGES = 64;

const NONE: readonly never[] = Object.freeze([]);

/** The changes a guard made since its driver last took them, oldest first. */
export class ChangeLog<T> {
  private items: T[] = [];
  /** Changes not kept because MAX_PENDING_CHANGES were waiting. */
  dropped = 0;

  add(change: T): void {
    if (this.items.length < MAX_PENDING_CHANGES) this.items.push(change);
    else this.dropped++;
  }

  /** Nothing waits (the driver's cheap check after each step). */
  get empty(): boolean {
    return this.items.length === 0;
  }

  /** The changes waiting, and the log empty again. */
  take(): readonly T[] {
    if (this.items.length === 0) return NONE;
    const taken = this.items;
    this.items = [];
    return taken;
  }
}
