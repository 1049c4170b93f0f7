// Tests for LoadShedder tickets and the shared rejection: a ticket only cancels in the shedder that issued it.
import { describe, expect, it } from 'vitest';
import { LoadShedder, type QueueTicket } from './shed.js';

function queuedTicket(shedder: LoadShedder<string>, item: string): QueueTicket<string> {
  const admission = shedder.admit(0, null, item);
  if (admission.verdict !== 'queued') throw new Error(`expected queued, got ${admission.verdict}`);
  return admission.ticket;
}

describe('LoadShedder tickets', () => {
  it("refuses to cancel another shedder's ticket, and leaves both queues alone", () => {
    const a = new LoadShedder<string>({ workers: 1 });
    const b = new LoadShedder<string>({ workers: 1 });
    a.admit(0, null, 'running-a');
    b.admit(0, null, 'running-b');
    const ticketA = queuedTicket(a, 'x');
    queuedTicket(b, 'y');
    expect(b.cancel(ticketA)).toBe(false);
    expect(b.queued).toBe(1);
    expect(a.queued).toBe(1);
    expect(a.cancel(ticketA)).toBe(true);
    expect(a.queued).toBe(0);
  });

  it('refuses to cancel something that is not a ticket', () => {
    const s = new LoadShedder<string>({ workers: 1 });
    s.admit(0, null, 'running');
    queuedTicket(s, 'x');
    expect(s.cancel({ item: 'x', enqueuedAtMs: 0 })).toBe(false);
    expect(s.queued).toBe(1);
  });

  it('refuses cancelQueued for an undefined item or a slot holding another item', () => {
    const s = new LoadShedder<string | undefined>({ workers: 1 });
    s.admit(0, null, 'running');
    s.offer(0, null, 'x');
    const slot = s.lastSlot;
    expect(s.cancelQueued(slot, undefined)).toBe(false);
    expect(s.cancelQueued(slot, 'y')).toBe(false);
    expect(s.queued).toBe(1);
    expect(s.cancelQueued(slot, 'x')).toBe(true);
    expect(s.queued).toBe(0);
    // the slot is free now: asking again, even for an undefined item, must not cancel anything
    expect(s.cancelQueued(slot, undefined)).toBe(false);
    expect(s.cancelQueued(slot, 'x')).toBe(false);
    expect(s.stats().cancelled).toBe(1);
  });

  it('exposes the shared rejection answer of the config in force', () => {
    const s = new LoadShedder<string>({ workers: 1, queueLimit: 0, retryAfter: '200ms' });
    expect(s.rejected).toEqual({
      verdict: 'reject',
      status: 503,
      retryAfterMs: 200,
      retryAfter: '1',
      headers: { 'retry-after': '1', 'retry-after-ms': '200', 'x-seawall-claimed': '1' },
      reason: 'queue-full',
    });
    s.admit(0, null, 'running');
    expect(s.admit(0, null, 'x')).toBe(s.rejected);
  });
});
