// The load shedder's waiting line: a doubly linked list over typed arrays, with no object per waiting item.

import { grownFloat64, grownInt32 } from '../core/typed-arrays.js';

const NIL = -1;
const INITIAL_CAPACITY = 16;

/**
 * Each waiting item has a slot; the slot's links, times and stamp live in typed arrays, so a million queued items
 * are a handful of arrays instead of a million objects for the garbage collector to trace and copy. Push, pop at
 * either end and removal anywhere are O(1); freed slots are reused. A slot's stamp is never reused, so a handle
 * (slot, stamp) kept after the item left tells the slot's new occupant apart.
 */
export class SlotQueue<T> {
  /** Oldest and newest occupied slots (NIL = -1 when empty). */
  head = NIL;
  tail = NIL;
  size = 0;
  /** Grows by append (the engine's own growth); a freed slot holds undefined. */
  private readonly items: (T | undefined)[] = [];
  private enqueuedAt = new Float64Array(INITIAL_CAPACITY);
  private deadlines = new Float64Array(INITIAL_CAPACITY);
  /** 0 = free. */
  private stamps = new Float64Array(INITIAL_CAPACITY);
  private prev = new Int32Array(INITIAL_CAPACITY);
  /** Links of occupied slots; for free slots, the next free slot (a free list through the same array). */
  private next = new Int32Array(INITIAL_CAPACITY);
  private freeHead = NIL;
  private used = 0;
  private nextStamp = 1;

  /** Appends an item as the newest; returns its slot. */
  push(item: T, enqueuedAtMs: number, deadlineMs: number): number {
    let slot = this.freeHead;
    if (slot !== NIL) {
      this.freeHead = this.next[slot] as number;
      this.items[slot] = item;
    } else {
      if (this.used === this.stamps.length) this.grow();
      slot = this.used++;
      this.items.push(item);
    }
    this.enqueuedAt[slot] = enqueuedAtMs;
    this.deadlines[slot] = deadlineMs;
    this.stamps[slot] = this.nextStamp++;
    const tail = this.tail;
    this.prev[slot] = tail;
    this.next[slot] = NIL;
    if (tail === NIL) this.head = slot;
    else this.next[tail] = slot;
    this.tail = slot;
    this.size++;
    return slot;
  }

  /** Unlinks an occupied slot and frees it. */
  remove(slot: number): void {
    const prev = this.prev[slot] as number;
    const next = this.next[slot] as number;
    if (prev === NIL) this.head = next;
    else this.next[prev] = next;
    if (next === NIL) this.tail = prev;
    else this.prev[next] = prev;
    this.items[slot] = undefined;
    this.stamps[slot] = 0;
    this.next[slot] = this.freeHead;
    this.freeHead = slot;
    this.size--;
  }

  /** The item in an occupied slot. */
  item(slot: number): T {
    return this.items[slot] as T;
  }

  /** The item in `slot`, or undefined when the slot is free (a freed slot holds undefined; so does any index out of range). */
  itemOrUndefined(slot: number): T | undefined {
    return this.items[slot];
  }

  enqueuedAtMs(slot: number): number {
    return this.enqueuedAt[slot] as number;
  }

  deadlineMs(slot: number): number {
    return this.deadlines[slot] as number;
  }

  stamp(slot: number): number {
    return this.stamps[slot] as number;
  }

  /** Whether `slot` still holds the item it held when its stamp was `stamp`. */
  holds(slot: number, stamp: number): boolean {
    // @eq slot-queue-slot-slot-used-stamp
    return slot >= 0 && slot < this.used && stamp !== 0 && this.stamps[slot] === stamp;
  }

  private grow(): void {
    const capacity = this.stamps.length * 2;
    this.enqueuedAt = grownFloat64(this.enqueuedAt, capacity);
    this.deadlines = grownFloat64(this.deadlines, capacity);
    this.stamps = grownFloat64(this.stamps, capacity);
    this.prev = grownInt32(this.prev, capacity);
    this.next = grownInt32(this.next, capacity);
  }
}
