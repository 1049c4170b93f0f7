// FIFO lanes for the event queue: events of one type scheduled in time order skip the heap entirely.

const INITIAL_CAPACITY = 256;

/**
 * A ring buffer of events whose times never decrease (e.g. every 1 ms network hop, every 1 s timeout).
 * The engine merges lane heads with the heap by (time, seq), so the order is exactly the heap's order.
 */
export class Lane {
  private timeMs = new Float64Array(INITIAL_CAPACITY);
  private seq = new Float64Array(INITIAL_CAPACITY);
  private arg = new Float64Array(INITIAL_CAPACITY);
  private payload: unknown[] = new Array(INITIAL_CAPACITY).fill(null);
  private mask = INITIAL_CAPACITY - 1;
  private head = 0;
  size = 0;
  /** Time of the last event appended (the lane accepts only times at or after it). */
  lastTimeMs = Number.NEGATIVE_INFINITY;

  headTimeMs(): number {
    return this.timeMs[this.head] as number;
  }

  headSeq(): number {
    return this.seq[this.head] as number;
  }

  push(timeMs: number, seq: number, payload: unknown, arg: number): void {
    if (this.size > this.mask) this.grow();
    const i = (this.head + this.size) & this.mask;
    this.timeMs[i] = timeMs;
    this.seq[i] = seq;
    this.arg[i] = arg;
    this.payload[i] = payload;
    this.size++;
    this.lastTimeMs = timeMs;
  }

  /** Removes the head; its fields go to the out-parameters of `into`. */
  shift(into: { poppedTimeMs: number; poppedArg: number; poppedPayload: unknown }): void {
    const i = this.head;
    into.poppedTimeMs = this.timeMs[i] as number;
    into.poppedArg = this.arg[i] as number;
    into.poppedPayload = this.payload[i];
    this.payload[i] = null;
    this.head = (i + 1) & this.mask;
    this.size--;
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    const times = new Float64Array(capacity);
    const seqs = new Float64Array(capacity);
    const args = new Float64Array(capacity);
    const payloads: unknown[] = new Array(capacity).fill(null);
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & this.mask;
      times[k] = this.timeMs[i] as number;
      seqs[k] = this.seq[i] as number;
      args[k] = this.arg[i] as number;
      payloads[k] = this.payload[i];
    }
    this.timeMs = times;
    this.seq = seqs;
    this.arg = args;
    this.payload = payloads;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
