// Tests for LoadShedder: admission, dequeue, drop of expired work, cancel, adaptive LIFO, update.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.js';
import type { Duration } from '../core/duration.js';
import { type Admission, LoadShedder, type LoadShedderConfig, type QueueTicket } from './shed.js';

function ticketOf<T>(a: Admission<T>): QueueTicket<T> {
  if (a.verdict !== 'queued') throw new Error(`expected queued, got ${a.verdict}`);
  return a.ticket;
}

/** A shedder with `busy` requests already running (admitted at time 0). */
function shedder(config: LoadShedderConfig, busy = config.workers): LoadShedder<string> {
  const s = new LoadShedder<string>(config);
  for (let i = 0; i < busy; i++) expect(s.admit(0, null, `busy${i}`).verdict).toBe('run');
  return s;
}

describe('LoadShedder admission', () => {
  it('runs requests at once while a worker is free, then queues (worker limit)', () => {
    const s = new LoadShedder<string>({ workers: 2 });
    expect(s.admit(0, null, 'a')).toEqual({ verdict: 'run' });
    expect(s.admit(0, null, 'b')).toEqual({ verdict: 'run' });
    expect(s.running).toBe(2);
    const third = s.admit(0, null, 'c');
    expect(third.verdict).toBe('queued');
    expect(ticketOf(third)).toMatchObject({ item: 'c', enqueuedAtMs: 0 });
    expect([s.running, s.queued]).toEqual([2, 1]);
  });

  it('does not let an arrival overtake the queue when a worker is free', () => {
    const s = shedder({ workers: 1 });
    s.admit(1, null, 'first');
    s.onFinish();
    expect(s.admit(2, null, 'second').verdict).toBe('queued');
    expect(s.dequeue(3)).toEqual({ verdict: 'run', item: 'first', waitedMs: 2 });
  });

  it('rejects with 503 and Retry-After exactly when the queue is at its limit (queue limit)', () => {
    const s = shedder({ workers: 1, queueLimit: 2 });
    expect(s.admit(0, null, 'q1').verdict).toBe('queued');
    expect(s.admit(0, null, 'q2').verdict).toBe('queued');
    expect(s.admit(0, null, 'q3')).toEqual({
      verdict: 'reject',
      status: 503,
      retryAfterMs: 1000,
      retryAfter: '1',
      headers: { 'retry-after': '1', 'retry-after-ms': '1000', 'x-seawall-claimed': '1' },
      reason: 'queue-full',
    });
    expect(s.queued).toBe(2);
  });

  it('never queues with queueLimit 0', () => {
    const s = shedder({ workers: 1, queueLimit: 0 });
    expect(s.admit(0, null, 'x').verdict).toBe('reject');
    expect(s.queued).toBe(0);
  });

  it('queues without bound by default', () => {
    const s = shedder({ workers: 1 });
    for (let i = 0; i < 10_000; i++) expect(s.admit(i, null, `q${i}`).verdict).toBe('queued');
    expect(s.queued).toBe(10_000);
  });

  it.each([
    // [configured retryAfter, Retry-After (RFC 9110 whole seconds, rounded up), retry-after-ms (whole ms, rounded up)]
    [200, '1', 200],
    [1000, '1', 1000],
    [1500, '2', 1500],
    [0, '0', 0],
    [1, '1', 1],
    [1050, '2', 1050],
    [60_000, '60', 60_000],
    ['1.1s', '2', 1100],
    ['0.2s', '1', 200],
    [0.4, '1', 1],
    [1999.6, '2', 2000],
    [1999.2, '2', 2000],
    ['24h', '86400', 86_400_000],
  ])('sends retryAfter %s as Retry-After "%s" with the exact wait in retry-after-ms', (retryAfter, header, ms) => {
    const s = shedder({ workers: 1, queueLimit: 0, retryAfter: retryAfter as Duration });
    const answer = s.admit(0, null, 'x');
    expect(answer).toMatchObject({ retryAfter: header, retryAfterMs: ms });
    expect(answer).toMatchObject({ headers: { 'retry-after': header, 'retry-after-ms': String(ms) } });
  });
});

describe('LoadShedder drop on arrival', () => {
  it('answers 504 when the deadline is exactly now, without taking a free worker', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    expect(s.admit(100, 100, 'late')).toEqual({ verdict: 'drop', status: 504, reason: 'deadline-passed' });
    expect([s.running, s.queued]).toEqual([0, 0]);
  });

  it('admits a request whose deadline is 1 ms away', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    expect(s.admit(100, 101, 'x').verdict).toBe('run');
    expect(s.admit(100, 101, 'y').verdict).toBe('queued');
  });

  it('drops an expired arrival rather than rejecting it when the queue is full', () => {
    const s = shedder({ workers: 1, queueLimit: 0 });
    expect(s.admit(100, 50, 'late').verdict).toBe('drop');
  });

  it('runs expired work when dropExpired is off', () => {
    const s = new LoadShedder<string>({ workers: 1, dropExpired: false });
    expect(s.admit(100, 50, 'late').verdict).toBe('run');
    expect(s.admit(100, 50, 'later').verdict).toBe('queued');
  });

  it('never drops a request without a deadline', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    expect(s.admit(1e12, null, 'x').verdict).toBe('run');
  });
});

describe('LoadShedder dequeue', () => {
  it('returns nothing while every worker is busy', () => {
    const s = shedder({ workers: 1 });
    s.admit(0, null, 'q');
    expect(s.dequeue(5)).toBeUndefined();
    expect(s.queued).toBe(1);
  });

  it('returns nothing when the queue is empty', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    expect(s.dequeue(0)).toBeUndefined();
    expect(s.running).toBe(0);
  });

  it('serves in arrival order and takes the freed worker', () => {
    const s = shedder({ workers: 1 });
    for (const [t, item] of [
      [1, 'a'],
      [2, 'b'],
      [4, 'c'],
    ] as const)
      s.admit(t, null, item);
    const served: unknown[] = [];
    for (let now = 10; s.queued > 0; now += 10) {
      s.onFinish();
      served.push(s.dequeue(now));
      expect(s.dequeue(now)).toBeUndefined();
    }
    expect(served).toEqual([
      { verdict: 'run', item: 'a', waitedMs: 9 },
      { verdict: 'run', item: 'b', waitedMs: 18 },
      { verdict: 'run', item: 'c', waitedMs: 26 },
    ]);
    expect(s.running).toBe(1);
  });

  it('drops work whose deadline passed while it waited, without taking the worker (drop expired)', () => {
    const s = shedder({ workers: 1 });
    s.admit(0, 50, 'expires');
    s.admit(0, 51, 'in-time');
    s.onFinish();
    expect(s.dequeue(50)).toEqual({ verdict: 'drop', status: 504, item: 'expires', waitedMs: 50 });
    expect(s.running).toBe(0);
    expect(s.dequeue(50)).toEqual({ verdict: 'run', item: 'in-time', waitedMs: 50 });
    expect(s.running).toBe(1);
  });

  it('runs work whose deadline passed while waiting when dropExpired is off', () => {
    const s = shedder({ workers: 1, dropExpired: false });
    s.admit(0, 50, 'expired');
    s.onFinish();
    expect(s.dequeue(80)).toEqual({ verdict: 'run', item: 'expired', waitedMs: 80 });
  });

  it('reports a zero wait when the clock stepped back', () => {
    const s = shedder({ workers: 1 });
    s.admit(100, null, 'x');
    s.onFinish();
    expect(s.dequeue(90)).toEqual({ verdict: 'run', item: 'x', waitedMs: 0 });
  });

  it('throws on onFinish with nothing running, and releases one worker otherwise', () => {
    const s = shedder({ workers: 2 });
    s.onFinish();
    expect(s.running).toBe(1);
    s.onFinish();
    expect(() => s.onFinish()).toThrow(/no request running/);
    expect(s.stats().completed).toBe(2);
  });
});

describe('LoadShedder cancel', () => {
  it('removes a queued item so it is never served and frees its place (cancel)', () => {
    const s = shedder({ workers: 1, queueLimit: 2 });
    const a = ticketOf(s.admit(0, null, 'a'));
    s.admit(0, null, 'b');
    expect(s.cancel(a)).toBe(true);
    expect(s.queued).toBe(1);
    expect(s.admit(0, null, 'c').verdict).toBe('queued');
    s.onFinish();
    expect(s.dequeue(1)?.item).toBe('b');
    s.onFinish();
    expect(s.dequeue(1)?.item).toBe('c');
    expect(s.dequeue(1)).toBeUndefined();
  });

  it('returns false for an item no longer queued', () => {
    const s = shedder({ workers: 1 });
    const a = ticketOf(s.admit(0, null, 'a'));
    const b = ticketOf(s.admit(0, null, 'b'));
    expect(s.cancel(a)).toBe(true);
    expect(s.cancel(a)).toBe(false);
    s.onFinish();
    s.dequeue(1);
    expect(s.cancel(b)).toBe(false);
    expect(s.stats().cancelled).toBe(1);
  });

  it('abandon: a dequeued item whose client is gone gives its worker back and counts as cancelled, not started', () => {
    const s = shedder({ workers: 1, queueLimit: 2 }); // busy0 runs
    s.admit(0, null, 'a');
    s.onFinish();
    expect(s.dequeue(1)?.item).toBe('a');
    s.abandon();
    expect(s.running).toBe(0);
    const st = s.stats();
    expect([st.started, st.cancelled, st.completed]).toEqual([1, 1, 1]); // busy0 started and completed; a cancelled
    expect(() => s.abandon()).toThrow(/no request running/);
  });

  it("returns false for another shedder's ticket", () => {
    const one = shedder({ workers: 1 });
    const two = shedder({ workers: 1 });
    const a = ticketOf(one.admit(0, null, 'a'));
    expect(two.cancel(a)).toBe(false);
    expect(one.queued).toBe(1);
    expect(two.cancel({ item: 'forged', enqueuedAtMs: 0 })).toBe(false);
  });
});

describe('LoadShedder adaptive LIFO', () => {
  function lined(discipline: 'fifo' | 'adaptive-lifo', dropExpired = true): LoadShedder<string> {
    const s = shedder({ workers: 1, discipline, lifoAfter: 100, dropExpired });
    s.admit(0, 500, 'old');
    s.admit(10, 500, 'mid');
    s.admit(20, 500, 'new');
    s.onFinish();
    return s;
  }

  it('serves the newest first once the oldest has waited more than lifoAfter (LIFO switching)', () => {
    expect(lined('adaptive-lifo').dequeue(101)?.item).toBe('new');
  });

  it('stays FIFO while the oldest has waited exactly lifoAfter', () => {
    expect(lined('adaptive-lifo').dequeue(100)?.item).toBe('old');
  });

  it('never switches under fifo', () => {
    expect(lined('fifo').dequeue(400)?.item).toBe('old');
  });

  it('returns to FIFO once the stale items are gone', () => {
    const s = lined('adaptive-lifo');
    s.admit(150, 500, 'fresh');
    s.cancel(ticketOf(s.admit(150, 500, 'gone')));
    const order: unknown[] = [];
    const serve = (now: number) => {
      order.push(s.dequeue(now)?.item);
      s.onFinish();
    };
    for (let i = 0; i < 4; i++) serve(200);
    expect(s.admit(300, 500, 'busy').verdict).toBe('run');
    s.admit(300, 500, 'x');
    s.admit(301, 500, 'y');
    s.onFinish();
    serve(400);
    serve(400);
    expect(order).toEqual(['fresh', 'new', 'mid', 'old', 'x', 'y']);
  });

  it('answers an expired oldest item with 504 before serving the newest', () => {
    const s = lined('adaptive-lifo');
    expect(s.dequeue(500)).toEqual({ verdict: 'drop', status: 504, item: 'old', waitedMs: 500 });
  });

  it('serves the newest over an expired oldest when dropExpired is off', () => {
    expect(lined('adaptive-lifo', false).dequeue(500)?.item).toBe('new');
  });
});

describe('LoadShedder update', () => {
  it('keeps items queued beyond a lowered queue limit and rejects new ones', () => {
    const s = shedder({ workers: 1, queueLimit: 3 });
    for (const item of ['a', 'b', 'c']) s.admit(0, null, item);
    s.update({ queueLimit: 1 });
    expect(s.queued).toBe(3);
    expect(s.admit(0, null, 'd').verdict).toBe('reject');
    expect(s.config.queueLimit).toBe(1);
  });

  it('fills new workers on dequeue after raising the limit', () => {
    const s = shedder({ workers: 1 });
    s.admit(0, null, 'a');
    s.update({ workers: 2 });
    expect(s.dequeue(1)?.verdict).toBe('run');
    expect(s.running).toBe(2);
  });

  it('lets running work finish after lowering workers, starting nothing until below the new limit', () => {
    const s = shedder({ workers: 3 });
    s.admit(0, null, 'a');
    s.update({ workers: 1 });
    expect(s.running).toBe(3);
    s.onFinish();
    expect(s.dequeue(1)).toBeUndefined();
    s.onFinish();
    expect(s.dequeue(1)).toBeUndefined();
    s.onFinish();
    expect(s.dequeue(1)?.item).toBe('a');
  });

  it('sends the new Retry-After after an update', () => {
    const s = shedder({ workers: 1, queueLimit: 0 });
    s.update({ retryAfter: '200ms' });
    expect(s.admit(0, null, 'x')).toMatchObject({ retryAfter: '1', retryAfterMs: 200 });
  });

  it('changes discipline, lifoAfter and dropExpired, keeping what is not given', () => {
    const s = shedder({ workers: 1, queueLimit: 7, retryAfter: 300 });
    s.update({ discipline: 'adaptive-lifo', lifoAfter: '1s', dropExpired: false, queueLimit: undefined });
    expect(s.config).toEqual({
      workers: 1,
      queueLimit: 7,
      retryAfterMs: 300,
      dropExpired: false,
      discipline: 'adaptive-lifo',
      lifoAfterMs: 1000,
    });
    expect(s.admit(10, 5, 'late').verdict).toBe('queued');
  });

  it('throws a ConfigError and changes nothing on an invalid update', () => {
    const s = shedder({ workers: 2, queueLimit: 5 });
    const before = s.config;
    expect(() => s.update({ workers: 0, queueLimit: 1 })).toThrow(ConfigError);
    expect(() => s.update({ bogus: 1 } as Partial<LoadShedderConfig>)).toThrow(/bogus: is not a load-shedder option/);
    expect(s.config).toBe(before);
  });
});

describe('LoadShedder stats', () => {
  it('remembers the longest queue after it shrinks', () => {
    const s = shedder({ workers: 1 });
    const tickets = ['a', 'b', 'c'].map((item) => ticketOf(s.admit(0, null, item)));
    for (const t of tickets) s.cancel(t);
    s.admit(0, null, 'd');
    expect(s.stats()).toMatchObject({ queued: 1, peakQueued: 3 });
  });

  it('counts every way a request can go', () => {
    const s = new LoadShedder<string>({ workers: 2, queueLimit: 3 });
    s.admit(0, null, 'run1');
    s.admit(0, null, 'run2');
    s.admit(0, 5, 'expires');
    const c = ticketOf(s.admit(0, null, 'cancelled'));
    s.admit(0, null, 'waits');
    s.admit(0, null, 'shed1');
    s.admit(1, 0, 'late');
    s.cancel(c);
    s.admit(2, null, 'queued');
    s.onFinish();
    s.dequeue(10); // expires: dropped
    s.dequeue(10); // waits: runs
    expect(s.stats()).toEqual({
      offered: 8,
      admittedImmediately: 2,
      queuedTotal: 4,
      shed: 1,
      droppedOnArrival: 1,
      dropped: 1,
      cancelled: 1,
      started: 3,
      completed: 1,
      running: 2,
      queued: 1,
      peakQueued: 3,
    });
  });
});
