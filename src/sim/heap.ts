// The simulator's event queue: a binary min-heap keyed by (time, insertion sequence) over typed arrays.

import { grownFloat64, grownInt32 } from '../policy/core/typed-arrays.js';

const INITIAL_CAPACITY = 1024;

/**
 * Events are (timeMs, seq, type, payload, arg). No object is allocated per event. The heap itself holds only
 * (time, slot) pairs, so a sift moves two numbers per level; the rest of an event lives in a slot written once at
 * push and read once at pop. Ties on time are broken by insertion sequence, so a run is a pure function of its inputs.
 */
export class EventHeap {
  private heapTimeMs = new Float64Array(INITIAL_CAPACITY);
  private heapSlot = new Int32Array(INITIAL_CAPACITY);
  private slotSeq = new Float64Array(INITIAL_CAPACITY);
  private slotType = new Int32Array(INITIAL_CAPACITY);
  private slotArg = new Float64Array(INITIAL_CAPACITY);
  private slotPayload: unknown[] = new Array(INITIAL_CAPACITY).fill(null);
  private freeSlots = new Int32Array(INITIAL_CAPACITY);
  private freeCount = 0;
  private slotsUsed = 0;
  private count = 0;
  private nextSeq = 0;

  /** Fields of the event last removed by pop(). */
  poppedTimeMs = 0;
  poppedType = 0;
  poppedArg = 0;
  poppedPayload: unknown = null;

  get size(): number {
    return this.count;
  }

  /** Time of the earliest event; Infinity when empty. */
  peekTimeMs(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : (this.heapTimeMs[0] as number);
  }

  /** Sequence of the earliest event; Infinity when empty. */
  peekSeq(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : (this.slotSeq[this.heapSlot[0] as number] as number);
  }

  /** `s` is the event's insertion sequence number; it breaks ties on time. Defaults to the heap's own counter. */
  push(timeMs: number, type: number, payload: unknown, arg: number, s: number = this.nextSeq++): void {
    if (this.count === this.heapTimeMs.length) this.grow();
    const slot = this.freeCount > 0 ? (this.freeSlots[--this.freeCount] as number) : this.slotsUsed++;
    const seqs = this.slotSeq;
    seqs[slot] = s;
    this.slotType[slot] = type;
    this.slotArg[slot] = arg;
    this.slotPayload[slot] = payload;
    this.siftUp(this.count++, timeMs, s, slot);
  }

  /** Sift up with a hole from position `i`: parents move down until (timeMs, seq) fits, then `slot` goes there. */
  private siftUp(start: number, timeMs: number, seq: number, slot: number): void {
    const times = this.heapTimeMs;
    const slots = this.heapSlot;
    const seqs = this.slotSeq;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent] as number;
      // @ko sim-event-order
      if (pt < timeMs || (pt === timeMs && (seqs[slots[parent] as number] as number) < seq)) break;
      times[i] = pt;
      slots[i] = slots[parent] as number;
      i = parent;
    }
    times[i] = timeMs;
    slots[i] = slot;
  }

  /** Removes the earliest event into the popped* fields; false when empty. */
  pop(): boolean {
    const n = this.count;
    if (n === 0) return false;
    const times = this.heapTimeMs;
    const slots = this.heapSlot;
    const seqs = this.slotSeq;
    const top = slots[0] as number;
    this.poppedTimeMs = times[0] as number;
    this.poppedType = this.slotType[top] as number;
    this.poppedArg = this.slotArg[top] as number;
    this.poppedPayload = this.slotPayload[top];
    this.slotPayload[top] = null;
    this.freeSlots[this.freeCount++] = top;
    const last = n - 1;
    this.count = last;
    if (last === 0) return true;
    const t = times[last] as number;
    const slot = slots[last] as number;
    const s = seqs[slot] as number;
    // Bottom-up sift (Wegener): walk the hole from the root to a leaf along the smaller children (one comparison
    // per level), then sift the old last element up from there (it belongs near the bottom, so usually no step).
    let i = 0;
    let child = 1;
    while (child < last) {
      const right = child + 1;
      if (right < last) {
        const rt = times[right] as number;
        const ct = times[child] as number;
        // Equal times are rare (a predictable branch); otherwise the pick is arithmetic, not a branch: which child
        // is smaller is a coin flip the CPU cannot predict.
        if (rt === ct) {
          if ((seqs[slots[right] as number] as number) < (seqs[slots[child] as number] as number)) child = right;
        } else child += +(rt < ct);
      }
      times[i] = times[child] as number;
      slots[i] = slots[child] as number;
      i = child;
      child = 2 * i + 1;
    }
    this.siftUp(i, t, s, slot);
    return true;
  }

  private grow(): void {
    const capacity = this.heapTimeMs.length * 2;
    this.heapTimeMs = grownFloat64(this.heapTimeMs, capacity);
    this.heapSlot = grownInt32(this.heapSlot, capacity);
    this.slotSeq = grownFloat64(this.slotSeq, capacity);
    this.slotType = grownInt32(this.slotType, capacity);
    this.slotArg = grownFloat64(this.slotArg, capacity);
    this.freeSlots = grownInt32(this.freeSlots, capacity);
    const payloads: unknown[] = new Array(capacity).fill(null);
    for (let i = 0; i < this.slotsUsed; i++) payloads[i] = this.slotPayload[i];
    this.slotPayload = payloads;
  }
}
