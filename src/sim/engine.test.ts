// The event kernel: (time, insertion) order across the heap and the FIFO lanes, the clock, and the run horizon.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, type EventHandler, MAX_LANES } from './engine.js';
import { EventHeap } from './heap.js';

class Recorder implements EventHandler {
  readonly seen: { timeMs: number; type: number; id: unknown }[] = [];
  constructor(private readonly engine: Engine) {}
  handle(type: number, payload: unknown): void {
    this.seen.push({ timeMs: this.engine.nowMs, type, id: payload });
  }
}

describe('Engine', () => {
  it('dispatches events at the same time in insertion order, across event types', () => {
    const engine = new Engine();
    const recorder = new Recorder(engine);
    engine.at(10, 3, 'a');
    engine.at(10, 1, 'b');
    engine.at(5, 3, 'c');
    engine.at(10, MAX_LANES + 2, 'd'); // a type without a lane: heap only
    engine.at(10, 3, 'e');
    engine.run(100, recorder);
    expect(recorder.seen.map((e) => e.id)).toEqual(['c', 'a', 'b', 'd', 'e']);
  });

  it('keeps insertion order for ties scheduled from inside handlers', () => {
    const engine = new Engine();
    const order: string[] = [];
    const handler: EventHandler = {
      handle(_type, payload) {
        order.push(payload as string);
        if (payload === 'first') {
          engine.after(0, 2, 'zero-delay-1');
          engine.after(5, 1, 'later');
          engine.after(0, 1, 'zero-delay-2');
        }
      },
    };
    engine.at(1, 0, 'first');
    engine.at(1, 0, 'second');
    engine.run(100, handler);
    expect(order).toEqual(['first', 'second', 'zero-delay-1', 'zero-delay-2', 'later']);
  });

  it('stops before the horizon, leaves later events queued and moves the clock to it', () => {
    const engine = new Engine();
    const recorder = new Recorder(engine);
    engine.at(1, 0, 'in');
    engine.at(50, 0, 'edge');
    engine.at(70, 0, 'out');
    expect(engine.run(50, recorder)).toBe(1);
    expect(engine.nowMs).toBe(50);
    expect(engine.pending).toBe(2);
    engine.run(100, recorder);
    expect(recorder.seen.map((e) => e.id)).toEqual(['in', 'edge', 'out']);
    expect(engine.events).toBe(3);
  });

  it('counts pending events exactly while a handler runs (the bound on live work reads it)', () => {
    const engine = new Engine();
    const seen: number[] = [];
    engine.at(1, 0, 'a');
    engine.at(2, 0, 'b');
    engine.at(3, 20, 'c'); // a type without a lane: the heap
    engine.run(10, { handle: () => seen.push(engine.pending) });
    expect(seen).toEqual([2, 1, 0]);
  });

  it('never schedules into the past', () => {
    const engine = new Engine();
    const recorder = new Recorder(engine);
    engine.run(10, recorder);
    engine.at(3, 0, 'late');
    engine.after(-5, 0, 'negative');
    engine.run(20, recorder);
    expect(recorder.seen.map((e) => e.timeMs)).toEqual([10, 10]);
  });

  it('orders any schedule exactly like a stable sort by time (property)', () => {
    const op = fc.record({
      delayMs: fc.oneof(
        fc.constant(0),
        fc.constant(1),
        fc.integer({ min: 0, max: 50 }),
        fc.double({ min: 0, max: 50, noNaN: true }),
      ),
      type: fc.integer({ min: 0, max: MAX_LANES + 3 }),
      spawn: fc.integer({ min: 0, max: 2 }),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200, size: 'max' }), (ops) => {
        const engine = new Engine();
        const scheduled: { timeMs: number; seq: number }[] = [];
        const fired: number[] = [];
        let next = 0;
        const schedule = () => {
          const o = ops[next % ops.length] as (typeof ops)[number];
          const id = next++;
          scheduled.push({ timeMs: engine.nowMs + o.delayMs, seq: id });
          engine.after(o.delayMs, o.type, id);
        };
        const handler: EventHandler = {
          handle(_type, payload) {
            fired.push(payload as number);
            const o = ops[(payload as number) % ops.length] as (typeof ops)[number];
            for (let k = 0; k < o.spawn && next < 400; k++) schedule();
          },
        };
        for (let i = 0; i < ops.length; i++) schedule();
        engine.run(Number.POSITIVE_INFINITY, handler);
        // Each event fires after all events with a smaller (time, seq): check the whole fired order is sorted.
        const byId = new Map(scheduled.map((s) => [s.seq, s]));
        for (let i = 1; i < fired.length; i++) {
          const a = byId.get(fired[i - 1] as number) as { timeMs: number; seq: number };
          const b = byId.get(fired[i] as number) as { timeMs: number; seq: number };
          if (a.timeMs > b.timeMs || (a.timeMs === b.timeMs && a.seq > b.seq)) return false;
        }
        return fired.length === scheduled.length;
      }),
      { numRuns: 300 },
    );
  });
});

describe('EventHeap', () => {
  it('pops in (time, insertion) order and reuses its slots', () => {
    const heap = new EventHeap();
    const times = [5, 1, 5, 3, 1, 9, 0, 5];
    times.forEach((t, i) => {
      heap.push(t, i, `e${i}`, i * 10);
    });
    const out: string[] = [];
    while (heap.pop()) out.push(heap.poppedPayload as string);
    expect(out).toEqual(['e6', 'e1', 'e4', 'e3', 'e0', 'e2', 'e7', 'e5']);
    for (let round = 0; round < 5000; round++) heap.push(round % 7, 0, null, 0);
    let last = -1;
    while (heap.pop()) {
      expect(heap.poppedTimeMs).toBeGreaterThanOrEqual(last);
      last = heap.poppedTimeMs;
    }
    expect(heap.size).toBe(0);
  });
});
