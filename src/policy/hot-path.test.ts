// Tests for the allocation-free twins (LoadShedder offer/take/cancelQueued, RetryCall beginAttemptMs/onOutcomeMs) and SlotQueue.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ModelOutcome, RetryModel, type RetryModelConfig } from '../../test/models/retry-model.js';
import { ShedModel } from '../../test/models/shed-model.js';
import {
  type Admission,
  LoadShedder,
  OFFER_DROP,
  OFFER_QUEUED,
  OFFER_REJECT,
  OFFER_RUN,
  type QueueTicket,
} from './admission/shed.js';
import { SlotQueue } from './admission/slot-queue.js';
import { createRandom } from './core/random.js';
import { RetryPolicy } from './retry/retry.js';
import type { RetryPolicyConfig } from './retry/retry-config.js';

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
  it('offer/take/cancelQueued make the decisions of a plain model, and admit/dequeue/cancel the same ones', () => {
    const config = fc.record({
      workers: fc.integer({ min: 1, max: 4 }),
      queueLimit: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Infinity)),
      dropExpired: fc.boolean(),
      discipline: fc.constantFrom('fifo' as const, 'adaptive-lifo' as const),
      lifoAfter: fc.integer({ min: 0, max: 20 }),
    });
    const reached = { reject: 0, dropAtDequeue: 0, cancelled: 0 };
    fc.assert(
      fc.property(config, fc.array(shedOp, { maxLength: 150, size: 'max' }), (cfg, ops) => {
        const plain = new LoadShedder<number>(cfg);
        const fast = new LoadShedder<number>(cfg);
        const model = new ShedModel(fast.config);
        const tickets: { id: number; ticket: QueueTicket<number>; slot: number }[] = [];
        const counts = { offered: 0, shed: 0, droppedOnArrival: 0, dropped: 0, cancelled: 0, started: 0 };
        let nowMs = 0;
        let nextId = 0;
        for (const op of ops) {
          switch (op.op) {
            case 'admit': {
              const id = nextId++;
              const deadline = op.deadlineInMs === null ? null : nowMs + op.deadlineInMs;
              const expected = model.admit(nowMs, deadline, id);
              const code = fast.offer(nowMs, deadline, id);
              const a: Admission<number> = plain.admit(nowMs, deadline, id);
              expect([VERDICT[code], a.verdict]).toEqual([expected, expected]);
              counts.offered++;
              if (expected === 'reject') counts.shed++;
              if (expected === 'drop') counts.droppedOnArrival++;
              if (expected === 'run') counts.started++;
              if (a.verdict === 'queued') tickets.push({ id, ticket: a.ticket, slot: fast.lastSlot });
              if (a.verdict === 'reject') expect(fast.rejected).toEqual(a);
              break;
            }
            case 'dequeue': {
              const expected = model.dequeue(nowMs);
              const item = fast.take(nowMs);
              const a = plain.dequeue(nowMs);
              if (expected === undefined) {
                expect([item, fast.lastWaitedMs, a]).toEqual([undefined, -1, undefined]);
              } else {
                const want = [expected.item, expected.verdict, expected.waitedMs];
                expect([item, fast.lastDropped ? 'drop' : 'run', fast.lastWaitedMs]).toEqual(want);
                expect([a?.item, a?.verdict, a?.waitedMs]).toEqual(want);
                if (expected.verdict === 'drop') counts.dropped++;
                else counts.started++;
              }
              break;
            }
            case 'finish':
              if (model.running > 0) {
                model.running--;
                plain.onFinish();
                fast.onFinish();
              }
              break;
            case 'cancel': {
              const t = tickets[op.pick % Math.max(1, tickets.length)];
              if (t !== undefined) {
                const waiting = model.cancel(t.id);
                expect([fast.cancelQueued(t.slot, t.id), plain.cancel(t.ticket)]).toEqual([waiting, waiting]);
                if (waiting) counts.cancelled++;
              }
              break;
            }
            case 'advance':
              nowMs += op.ms;
              break;
            case 'update':
              plain.update({ workers: op.workers, queueLimit: op.queueLimit });
              fast.update({ workers: op.workers, queueLimit: op.queueLimit });
              model.cfg = fast.config;
              break;
          }
          const st = fast.stats();
          expect(st).toMatchObject({ ...counts, running: model.running, queued: model.queue.length });
          expect(plain.stats()).toMatchObject({ ...counts, running: model.running, queued: model.queue.length });
        }
        if (counts.shed > 0) reached.reject++;
        if (counts.dropped > 0) reached.dropAtDequeue++;
        if (counts.cancelled > 0) reached.cancelled++;
      }),
      { numRuns: 300 },
    );
    // The sequences reach the states the comparison is for (at fast-check's default size they did not).
    expect(Math.min(reached.reject, reached.dropAtDequeue, reached.cancelled), JSON.stringify(reached)).toBeGreaterThan(
      5,
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
  const outcomes: ModelOutcome[] = [
    { kind: 'response', status: 200 },
    { kind: 'response', status: 503 },
    { kind: 'response', status: 503, retryAfter: '0.2' },
    { kind: 'response', status: 429, retryAfter: '400' },
    { kind: 'response', status: 500 },
    { kind: 'response', status: 404 },
    { kind: 'timeout' },
    { kind: 'reset' },
  ];
  const DEFAULT_ON = new Set([429, 502, 503, 504]);
  const ALL_ERRORS = new Set(Array.from({ length: 200 }, (_, i) => 400 + i));
  const configs: [RetryPolicyConfig, RetryModelConfig][] = [
    [
      {},
      {
        maxAttempts: 3,
        perTryMs: Infinity,
        patienceMs: 15_000,
        marginMs: 0,
        backoff: { kind: 'full-jitter', baseMs: 50, capMs: 500 },
        budget: { maxTokens: 10, tokenRatio: 0.1 },
        statuses: DEFAULT_ON,
        timeout: true,
        reset: true,
        maxRetryAfterMs: 300_000,
      },
    ],
    [
      { maxAttempts: 4, perTryTimeout: '1s', backoff: 'none', budget: false, retryOn: ['timeout', '4xx', '5xx'] },
      {
        maxAttempts: 4,
        perTryMs: 1000,
        patienceMs: 15_000,
        marginMs: 0,
        backoff: { kind: 'none' },
        budget: null,
        statuses: ALL_ERRORS,
        timeout: true,
        reset: true,
        maxRetryAfterMs: 300_000,
      },
    ],
    [
      {
        maxAttempts: 5,
        perTryTimeout: 800,
        deadline: { patience: 2000, margin: 100 },
        maxRetryAfter: '300ms',
        budget: false,
      },
      {
        maxAttempts: 5,
        perTryMs: 800,
        patienceMs: 2000,
        marginMs: 100,
        backoff: { kind: 'full-jitter', baseMs: 50, capMs: 500 },
        budget: null,
        statuses: DEFAULT_ON,
        timeout: true,
        reset: true,
        maxRetryAfterMs: 300,
      },
    ],
    [
      {
        maxAttempts: 5,
        deadline: false,
        budget: { kind: 'token-bucket', maxTokens: 4, tokenRatio: 1.6 },
        retryOn: [503, 'timeout'],
      },
      {
        maxAttempts: 5,
        perTryMs: Infinity,
        patienceMs: null,
        marginMs: 0,
        backoff: { kind: 'full-jitter', baseMs: 50, capMs: 500 },
        budget: { maxTokens: 4, tokenRatio: 1.6 },
        statuses: new Set([503]),
        timeout: true,
        reset: false,
        maxRetryAfterMs: 300_000,
      },
    ],
  ];

  it('beginAttempt/onOutcome and their twins walk the calls a plain model walks, with the same draws', () => {
    const stops = new Map<string, number>();
    fc.assert(
      fc.property(
        fc.nat(configs.length - 1),
        fc.array(fc.tuple(fc.nat(outcomes.length - 1), fc.integer({ min: 0, max: 1000 })), {
          maxLength: 40,
          size: 'max',
        }),
        (c, steps) => {
          const [config, modelConfig] = configs[c] as [RetryPolicyConfig, RetryModelConfig];
          const plain = new RetryPolicy(config, { random: createRandom(7) });
          const fast = new RetryPolicy(config, { random: createRandom(7) });
          const model = new RetryModel(modelConfig, createRandom(7));
          let nowMs = 0;
          let a = plain.start(nowMs);
          let b = fast.start(nowMs);
          let m = model.start(nowMs);
          expect([a.deadlineMs, b.deadlineMs]).toEqual([m.deadlineMs, m.deadlineMs]);
          for (const [o, dt] of steps) {
            const want = m.begin(nowMs);
            const plan = a.beginAttempt(nowMs);
            const timeoutMs = b.beginAttemptMs(nowMs);
            if ('stop' in want) {
              expect([plan, timeoutMs, b.stopReason]).toEqual([want, -1, want.stop]);
            } else {
              expect([timeoutMs, 'stop' in plan ? plan : plan.perTryTimeoutMs]).toEqual([
                want.timeoutMs,
                want.timeoutMs,
              ]);
              nowMs += dt;
              const outcome = outcomes[o] as ModelOutcome;
              const next = m.outcome(outcome, nowMs);
              const decision = a.onOutcome(outcome, nowMs);
              const waitMs = b.onOutcomeMs(outcome, nowMs);
              if ('stop' in next) {
                expect([decision, waitMs, b.stopReason]).toEqual([next, -1, next.stop]);
                stops.set(next.stop, (stops.get(next.stop) ?? 0) + 1);
              } else {
                expect([decision, waitMs]).toEqual([{ retryAfterMs: next.waitMs }, next.waitMs]);
                nowMs += waitMs;
                continue;
              }
            }
            a = plain.start(nowMs);
            b = fast.start(nowMs);
            m = model.start(nowMs);
          }
          const counted = { attempts: model.attempts, retries: model.retries };
          expect([fast.stats(), plain.stats()]).toMatchObject([counted, counted]);
        },
      ),
      { numRuns: 300 },
    );
    // Every way a call ends here was reached, many times (the rarest, deadline-would-pass, 40-72 times in 300 runs).
    const reasons = [
      'succeeded',
      'not-retryable',
      'attempts-exhausted',
      'budget-exhausted',
      'server-pushback',
      'deadline-would-pass',
    ];
    expect(
      reasons.filter((r) => (stops.get(r) ?? 0) < 10),
      JSON.stringify([...stops]),
    ).toEqual([]);
  });

  it('onOutcomeMs answers -1 for an outcome that arrives after the call ended', () => {
    const call = new RetryPolicy({}, { random: createRandom(1) }).start(0);
    call.beginAttemptMs(0);
    call.abort(1);
    expect(call.onOutcomeMs({ kind: 'response', status: 200 }, 2)).toBe(-1);
    expect(call.onOutcome({ kind: 'response', status: 200 }, 2)).toEqual({ stop: 'aborted' });
  });
});
