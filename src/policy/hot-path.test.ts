// Tests for the allocation-free twins (LoadShedder offer/take/cancelQueued, RetryCall beginAttemptMs/onOutcomeMs) and SlotQueue.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandom } from './random.js';
import { RetryPolicy } from './retry.js';
import type { RetryPolicyConfig } from './retry-config.js';
import {
  type Admission,
  LoadShedder,
  OFFER_DROP,
  OFFER_QUEUED,
  OFFER_REJECT,
  OFFER_RUN,
  type QueueTicket,
} from './shed.js';
import { SlotQueue } from './slot-queue.js';
import type { Outcome } from './types.js';

const VERDICT = { [OFFER_RUN]: 'run', [OFFER_QUEUED]: 'queued', [OFFER_REJECT]: 'reject', [OFFER_DROP]: 'drop' };

type ShedOp =
  | { op: 'admit'; deadlineInMs: number | null }
  | { op: 'dequeue' }
  | { op: 'finish' }
  | { op: 'cancel'; pick: number }
  | { op: 'advance'; ms: number }
  | { op: 'update'; workers: number; queueLimit: number };

const shedOp: fc.Arbitrary<ShedOp> = fc.oneof(
  fc.record({ op: fc.constant('admit' as const), deadlineInMs: fc.option(fc.integer({ min: -3, max: 30 })) }),
  fc.constant({ op: 'dequeue' as const }),
  fc.constant({ op: 'finish' as const }),
  fc.record({ op: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 15 }) }),
  fc.record({
    op: fc.constant('update' as const),
    workers: fc.integer({ min: 1, max: 4 }),
    queueLimit: fc.integer({ min: 0, max: 6 }),
  }),
);

describe('LoadShedder allocation-free twins', () => {
  it('offer/take/cancelQueued make exactly the decisions of admit/dequeue/cancel', () => {
    const config = fc.record({
      workers: fc.integer({ min: 1, max: 4 }),
      queueLimit: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Infinity)),
      dropExpired: fc.boolean(),
      discipline: fc.constantFrom('fifo' as const, 'adaptive-lifo' as const),
      lifoAfter: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(config, fc.array(shedOp, { maxLength: 150 }), (cfg, ops) => {
        const plain = new LoadShedder<number>(cfg);
        const fast = new LoadShedder<number>(cfg);
        const tickets: { id: number; ticket: QueueTicket<number>; slot: number }[] = [];
        let nowMs = 0;
        let nextId = 0;
        for (const op of ops) {
          switch (op.op) {
            case 'admit': {
              const id = nextId++;
              const deadline = op.deadlineInMs === null ? null : nowMs + op.deadlineInMs;
              const a: Admission<number> = plain.admit(nowMs, deadline, id);
              const code = fast.offer(nowMs, deadline, id);
              expect(VERDICT[code]).toBe(a.verdict);
              if (a.verdict === 'queued') tickets.push({ id, ticket: a.ticket, slot: fast.lastSlot });
              if (a.verdict === 'reject') expect(fast.rejected).toEqual(a);
              break;
            }
            case 'dequeue': {
              const a = plain.dequeue(nowMs);
              const item = fast.take(nowMs);
              if (a === undefined) {
                expect(item).toBeUndefined();
                expect(fast.lastWaitedMs).toBe(-1);
              } else {
                expect([item, fast.lastDropped ? 'drop' : 'run', fast.lastWaitedMs]).toEqual([
                  a.item,
                  a.verdict,
                  a.waitedMs,
                ]);
              }
              break;
            }
            case 'finish':
              if (plain.running > 0) {
                plain.onFinish();
                fast.onFinish();
              }
              break;
            case 'cancel': {
              const t = tickets[op.pick % Math.max(1, tickets.length)];
              if (t !== undefined) expect(fast.cancelQueued(t.slot, t.id)).toBe(plain.cancel(t.ticket));
              break;
            }
            case 'advance':
              nowMs += op.ms;
              break;
            case 'update':
              plain.update({ workers: op.workers, queueLimit: op.queueLimit });
              fast.update({ workers: op.workers, queueLimit: op.queueLimit });
              break;
          }
          expect(fast.stats()).toEqual(plain.stats());
        }
      }),
      { numRuns: 300 },
    );
  });

  it('cancelQueued refuses a slot that now holds another item, or nothing', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    s.offer(0, null, 'running');
    expect(s.offer(0, null, 'a')).toBe(OFFER_QUEUED);
    const slotA = s.lastSlot;
    s.onFinish();
    expect(s.take(1)).toBe('a');
    expect(s.cancelQueued(slotA, 'a')).toBe(false);
    s.offer(2, null, 'b'); // reuses the freed slot
    expect(s.lastSlot).toBe(slotA);
    expect(s.cancelQueued(slotA, 'a')).toBe(false);
    expect(s.cancelQueued(99, 'b')).toBe(false);
    expect(s.cancelQueued(slotA, 'b')).toBe(true);
    expect(s.stats().cancelled).toBe(1);
  });

  it('a ticket for a slot since reused by another item cancels nothing', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    s.admit(0, null, 'running');
    const a = s.admit(0, null, 'a');
    if (a.verdict !== 'queued') throw new Error('expected queued');
    s.onFinish();
    s.dequeue(1);
    s.admit(1, null, 'b');
    expect(s.cancel(a.ticket)).toBe(false);
    expect(s.queued).toBe(1);
  });
});

describe('SlotQueue', () => {
  it('keeps order through removals anywhere and grows past its first capacity', () => {
    const q = new SlotQueue<number>();
    const slots = Array.from({ length: 40 }, (_, i) => q.push(i, i, Infinity));
    for (let i = 0; i < 40; i += 3) q.remove(slots[i] as number);
    const order: number[] = [];
    while (q.head >= 0) {
      order.push(q.item(q.head));
      q.remove(q.head);
    }
    expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 !== 0));
    expect(q.size).toBe(0);
    expect(q.tail).toBe(-1);
  });

  it('stamps tell a slot reused by a later item apart', () => {
    const q = new SlotQueue<string>();
    const slot = q.push('x', 1, 2);
    const stamp = q.stamp(slot);
    expect([q.enqueuedAtMs(slot), q.deadlineMs(slot), q.holds(slot, stamp)]).toEqual([1, 2, true]);
    q.remove(slot);
    expect(q.holds(slot, stamp)).toBe(false);
    expect(q.itemOrUndefined(slot)).toBeUndefined();
    expect(q.push('y', 3, 4)).toBe(slot);
    expect(q.holds(slot, stamp)).toBe(false);
  });
});

describe('RetryCall allocation-free twins', () => {
  const outcomes: Outcome[] = [
    { kind: 'response', status: 200 },
    { kind: 'response', status: 503 },
    { kind: 'response', status: 503, retryAfter: '0.2' },
    { kind: 'response', status: 500 },
    { kind: 'response', status: 404 },
    { kind: 'timeout' },
    { kind: 'reset' },
  ];
  const configs: RetryPolicyConfig[] = [
    {},
    { maxAttempts: 4, perTryTimeout: '1s', backoff: 'none', budget: false, retryOn: ['timeout', '4xx', '5xx'] },
    { maxAttempts: 3, perTryTimeout: 800, deadline: { patience: 2000, margin: 100 } },
  ];

  it('beginAttemptMs/onOutcomeMs walk the same calls as beginAttempt/onOutcome, with the same draws', () => {
    fc.assert(
      fc.property(
        fc.nat(configs.length - 1),
        fc.array(fc.tuple(fc.nat(outcomes.length - 1), fc.integer({ min: 0, max: 700 })), { maxLength: 40 }),
        (c, steps) => {
          const plain = new RetryPolicy(configs[c], { random: createRandom(7) });
          const fast = new RetryPolicy(configs[c], { random: createRandom(7) });
          let nowMs = 0;
          let a = plain.start(nowMs);
          let b = fast.start(nowMs);
          for (const [o, dt] of steps) {
            const plan = a.beginAttempt(nowMs);
            const timeoutMs = b.beginAttemptMs(nowMs);
            if ('stop' in plan) {
              expect([timeoutMs, b.stopReason]).toEqual([-1, plan.stop]);
            } else {
              expect(timeoutMs).toBe(plan.perTryTimeoutMs);
              nowMs += dt;
              const outcome = outcomes[o] as Outcome;
              const decision = a.onOutcome(outcome, nowMs);
              const waitMs = b.onOutcomeMs(outcome, nowMs);
              if ('stop' in decision) expect([waitMs, b.stopReason]).toEqual([-1, decision.stop]);
              else {
                expect(waitMs).toBe(decision.retryAfterMs);
                nowMs += waitMs;
                continue;
              }
            }
            a = plain.start(nowMs);
            b = fast.start(nowMs);
          }
          expect(fast.stats()).toEqual(plain.stats());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('onOutcomeMs answers -1 for an outcome that arrives after the call ended', () => {
    const call = new RetryPolicy({}, { random: createRandom(1) }).start(0);
    call.beginAttemptMs(0);
    call.abort(1);
    expect(call.onOutcomeMs({ kind: 'response', status: 200 }, 2)).toBe(-1);
    expect(call.onOutcome({ kind: 'response', status: 200 }, 2)).toEqual({ stop: 'aborted' });
  });
});
