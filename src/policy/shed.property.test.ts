// Property tests for LoadShedder: random admit/dequeue/finish/cancel/clock/update sequences against a plain model.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadShedder, type LoadShedderConfig, type QueueTicket, type ResolvedLoadShedderConfig } from './shed.js';

type Op =
  | { op: 'admit'; deadlineInMs: number | null }
  | { op: 'dequeue' }
  | { op: 'finish' }
  | { op: 'cancel'; pick: number }
  | { op: 'advance'; ms: number }
  | { op: 'update'; workers: number; queueLimit: number };

interface ModelItem {
  id: number;
  atMs: number;
  deadlineMs: number;
}

/** The rules of the brief written as naively as possible: an array, splice, and the same branch order. */
class Model {
  running = 0;
  readonly queue: ModelItem[] = [];
  constructor(public cfg: ResolvedLoadShedderConfig) {}

  admit(nowMs: number, deadlineMs: number | null, id: number): string {
    const deadline = deadlineMs === null ? Infinity : deadlineMs;
    if (this.cfg.dropExpired && deadline <= nowMs) return 'drop';
    if (this.running < this.cfg.workers && this.queue.length === 0) {
      this.running += 1;
      return 'run';
    }
    if (this.queue.length >= this.cfg.queueLimit) return 'reject';
    this.queue.push({ id, atMs: nowMs, deadlineMs: deadline });
    return 'queued';
  }

  dequeue(nowMs: number): { verdict: string; item: number; waitedMs: number } | undefined {
    if (this.running >= this.cfg.workers || this.queue.length === 0) return undefined;
    const oldest = this.queue[0] as ModelItem;
    const stale = this.cfg.discipline === 'adaptive-lifo' && nowMs - oldest.atMs > this.cfg.lifoAfterMs;
    const oldestExpired = this.cfg.dropExpired && oldest.deadlineMs <= nowMs;
    const [picked] = this.queue.splice(stale && !oldestExpired ? this.queue.length - 1 : 0, 1) as [ModelItem];
    const waitedMs = Math.max(0, nowMs - picked.atMs);
    if (this.cfg.dropExpired && picked.deadlineMs <= nowMs) return { verdict: 'drop', item: picked.id, waitedMs };
    this.running += 1;
    return { verdict: 'run', item: picked.id, waitedMs };
  }
}

const configArb = fc.record({
  workers: fc.integer({ min: 1, max: 4 }),
  queueLimit: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Infinity)),
  retryAfter: fc.integer({ min: 0, max: 5000 }),
  dropExpired: fc.boolean(),
  discipline: fc.constantFrom('fifo' as const, 'adaptive-lifo' as const),
  lifoAfter: fc.integer({ min: 0, max: 20 }),
});

function opArb(withUpdates: boolean): fc.Arbitrary<Op> {
  const ops: fc.Arbitrary<Op>[] = [
    fc.record({
      op: fc.constant('admit' as const),
      deadlineInMs: fc.option(fc.integer({ min: -3, max: 30 }), { nil: null }),
    }),
    fc.constant({ op: 'dequeue' as const }),
    fc.constant({ op: 'finish' as const }),
    fc.record({ op: fc.constant('cancel' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 15 }) }),
  ];
  if (withUpdates) {
    ops.push(
      fc.record({
        op: fc.constant('update' as const),
        workers: fc.integer({ min: 1, max: 4 }),
        queueLimit: fc.integer({ min: 0, max: 6 }),
      }),
    );
  }
  return fc.oneof(...ops);
}

/** Runs `ops` against a shedder and the model, checking results and invariants after every step. */
function check(config: LoadShedderConfig, ops: Op[], strictLimits: boolean) {
  const shedder = new LoadShedder<number>(config);
  const model = new Model(shedder.config);
  const tickets: QueueTicket<number>[] = [];
  const endings = new Map<number, number>();
  const served: number[] = [];
  const end = (id: number) => endings.set(id, (endings.get(id) ?? 0) + 1);
  let nowMs = 0;
  let nextId = 0;

  const invariants = () => {
    const st = shedder.stats();
    expect(st.offered).toBe(st.started + st.shed + st.droppedOnArrival + st.dropped + st.cancelled + st.queued);
    expect(st.started).toBe(st.completed + st.running);
    expect(st.queuedTotal).toBe(st.dropped + st.cancelled + st.queued + st.started - st.admittedImmediately);
    expect([st.running, st.queued]).toEqual([shedder.running, shedder.queued]);
    expect([shedder.running, shedder.queued]).toEqual([model.running, model.queue.length]);
    expect(st.peakQueued).toBeGreaterThanOrEqual(st.queued);
    if (strictLimits) {
      expect(shedder.running).toBeLessThanOrEqual(shedder.config.workers);
      expect(shedder.queued).toBeLessThanOrEqual(shedder.config.queueLimit);
    }
  };

  for (const op of ops) {
    switch (op.op) {
      case 'admit': {
        const id = nextId++;
        const deadline = op.deadlineInMs === null ? null : nowMs + op.deadlineInMs;
        const a = shedder.admit(nowMs, deadline, id);
        expect(a.verdict).toBe(model.admit(nowMs, deadline, id));
        if (a.verdict === 'queued') {
          expect(a.ticket).toMatchObject({ item: id, enqueuedAtMs: nowMs });
          tickets.push(a.ticket);
          expect(shedder.queued).toBeLessThanOrEqual(shedder.config.queueLimit);
        } else end(id);
        if (a.verdict === 'run') expect(shedder.running).toBeLessThanOrEqual(shedder.config.workers);
        if (a.verdict === 'reject') expect(a.retryAfterMs).toBe(Math.round(shedder.config.retryAfterMs));
        break;
      }
      case 'dequeue': {
        const expected = model.dequeue(nowMs);
        const got = shedder.dequeue(nowMs);
        expect(
          got === undefined ? undefined : { verdict: got.verdict, item: got.item, waitedMs: got.waitedMs },
        ).toEqual(expected);
        if (got !== undefined) {
          end(got.item);
          served.push(got.item);
          if (got.verdict === 'drop') expect(got.status).toBe(504);
          else expect(shedder.running).toBeLessThanOrEqual(shedder.config.workers);
        }
        break;
      }
      case 'finish':
        if (model.running === 0) {
          expect(() => shedder.onFinish()).toThrow();
        } else {
          shedder.onFinish();
          model.running -= 1;
        }
        break;
      case 'cancel': {
        if (tickets.length === 0) break;
        const ticket = tickets[op.pick % tickets.length] as QueueTicket<number>;
        const index = model.queue.findIndex((m) => m.id === ticket.item);
        expect(shedder.cancel(ticket)).toBe(index >= 0);
        if (index >= 0) {
          model.queue.splice(index, 1);
          end(ticket.item);
        }
        break;
      }
      case 'advance':
        nowMs += op.ms;
        break;
      case 'update':
        shedder.update({ workers: op.workers, queueLimit: op.queueLimit });
        model.cfg = shedder.config;
        break;
    }
    invariants();
  }

  // Drain: every offered item must end exactly once.
  nowMs += 1000;
  for (;;) {
    while (shedder.running > 0) shedder.onFinish();
    model.running = 0;
    const got = shedder.dequeue(nowMs);
    const expected = model.dequeue(nowMs);
    expect(got?.item).toBe(expected?.item);
    if (got === undefined) break;
    end(got.item);
    served.push(got.item);
  }
  expect(shedder.queued).toBe(0);
  for (let id = 0; id < nextId; id++) expect(endings.get(id)).toBe(1);
  expect(new Set(served).size).toBe(served.length);
  if (shedder.config.discipline === 'fifo') {
    for (let i = 1; i < served.length; i++) expect(served[i] as number).toBeGreaterThan(served[i - 1] as number);
  }
}

describe('LoadShedder properties', () => {
  it('matches the model and keeps every invariant over random sequences', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb(false), { maxLength: 120 }), (config, ops) => check(config, ops, true)),
      { numRuns: 400 },
    );
  });

  it('keeps counters and per-admission limits through run-time updates', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb(true), { maxLength: 120 }), (config, ops) => check(config, ops, false)),
      { numRuns: 300 },
    );
  });
});
