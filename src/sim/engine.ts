// The discrete-event kernel: a virtual clock, an event heap and per-type FIFO lanes; models get (type, payload, arg).

import { EventHeap } from './heap.js';
import { Lane } from './lanes.js';

/** What a model implements: one dispatch method, called once per event in (time, insertion) order. */
export interface EventHandler {
  handle(type: number, payload: unknown, arg: number): void;
}

/** Event types 0..MAX_LANES-1 get a FIFO lane; others always use the heap. */
export const MAX_LANES = 16;

/**
 * Virtual time in ms. Nothing here reads a wall clock: a run is a pure function of its inputs and seed.
 * Order: by time, ties by insertion order. Most events of a type arrive in time order (fixed network latency,
 * fixed timeouts), so each type has a FIFO lane that takes an event when it is not earlier than the lane's last;
 * anything else goes to the binary heap. Dispatch merges lane heads and the heap top by (time, seq): the order is
 * exactly that of a single heap, at a fraction of the cost.
 */
export class Engine {
  nowMs = 0;
  /** Events dispatched so far. */
  events = 0;
  private readonly heap = new EventHeap();
  private readonly lanes: Lane[] = Array.from({ length: MAX_LANES }, () => new Lane());
  /** Lanes that hold events, in no particular order. */
  private readonly active: number[] = [];
  /** Head (time, seq) of each lane, kept in typed arrays so the dispatch loop scans no objects. */
  private readonly headTimeMs = new Float64Array(MAX_LANES);
  private readonly headSeq = new Float64Array(MAX_LANES);
  private seq = 0;
  private queued = 0;

  /** Events waiting. */
  get pending(): number {
    return this.queued;
  }

  /** Schedules an event at an absolute time (never before now). */
  at(timeMs: number, type: number, payload: unknown = null, arg = 0): void {
    this.schedule(Math.max(timeMs, this.nowMs), type, payload, arg);
  }

  /** Schedules an event `delayMs` from now. */
  after(delayMs: number, type: number, payload: unknown = null, arg = 0): void {
    this.schedule(this.nowMs + Math.max(delayMs, 0), type, payload, arg);
  }

  private schedule(timeMs: number, type: number, payload: unknown, arg: number): void {
    const seq = this.seq++;
    this.queued++;
    if (type < MAX_LANES) {
      const lane = this.lanes[type] as Lane;
      if (timeMs >= lane.lastTimeMs) {
        if (lane.size === 0) {
          this.active.push(type);
          this.headTimeMs[type] = timeMs;
          this.headSeq[type] = seq;
        }
        lane.push(timeMs, seq, payload, arg);
        return;
      }
    }
    this.heap.push(timeMs, type, payload, arg, seq);
  }

  /**
   * Dispatches events with time < untilMs (events at exactly untilMs stay queued), then sets the clock to untilMs.
   * Returns the number of events dispatched by this call.
   */
  run(untilMs: number, handler: EventHandler): number {
    const heap = this.heap;
    const lanes = this.lanes;
    const active = this.active;
    const headTimes = this.headTimeMs;
    const headSeqs = this.headSeq;
    let dispatched = 0;
    for (;;) {
      // The earliest of the heap top and every active lane's head; sequence numbers are read only on a tie.
      let bestTime = heap.peekTimeMs();
      let bestLane = -1;
      let bestSlot = -1;
      for (let k = 0; k < active.length; k++) {
        const l = active[k] as number;
        const t = headTimes[l] as number;
        if (
          t < bestTime ||
          (t === bestTime && (headSeqs[l] as number) < (bestLane < 0 ? heap.peekSeq() : (headSeqs[bestLane] as number)))
        ) {
          bestTime = t;
          bestLane = l;
          bestSlot = k;
        }
      }
      if (!(bestTime < untilMs)) break;
      let type: number;
      if (bestLane >= 0) {
        const lane = lanes[bestLane] as Lane;
        lane.shift(heap);
        type = bestLane;
        if (lane.size === 0) {
          active[bestSlot] = active[active.length - 1] as number;
          active.pop();
        } else {
          headTimes[bestLane] = lane.headTimeMs();
          headSeqs[bestLane] = lane.headSeq();
        }
      } else {
        heap.pop();
        type = heap.poppedType;
      }
      this.nowMs = bestTime;
      const payload = heap.poppedPayload;
      heap.poppedPayload = null;
      dispatched++;
      // @ko sim-engine-pending
      this.queued--;
      handler.handle(type, payload, heap.poppedArg);
    }
    this.events += dispatched;
    if (untilMs > this.nowMs && Number.isFinite(untilMs)) this.nowMs = untilMs;
    return dispatched;
  }
}
