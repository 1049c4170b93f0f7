// Tests for the load shedder's intrusive wait queue: order, O(1) removal anywhere, ownership checks.
import { describe, expect, it } from 'vitest';
import { QueueEntry, WaitQueue } from './queue.js';

function order<T>(q: WaitQueue<T>): T[] {
  const forward: T[] = [];
  for (let e = q.head; e !== null; e = e.next) forward.push(e.item);
  const backward: T[] = [];
  for (let e = q.tail; e !== null; e = e.prev) backward.push(e.item);
  expect(backward.reverse()).toEqual(forward);
  expect(forward).toHaveLength(q.size);
  return forward;
}

function filled(items: string[]): { q: WaitQueue<string>; entries: QueueEntry<string>[] } {
  const q = new WaitQueue<string>();
  const entries = items.map((item, i) => new QueueEntry(item, i, Infinity));
  for (const e of entries) q.pushBack(e);
  return { q, entries };
}

describe('WaitQueue', () => {
  it('starts empty', () => {
    const q = new WaitQueue<string>();
    expect(q.head).toBeNull();
    expect(q.tail).toBeNull();
    expect(q.size).toBe(0);
  });

  it('keeps entries oldest first, newest last', () => {
    const { q, entries } = filled(['a', 'b', 'c']);
    expect(order(q)).toEqual(['a', 'b', 'c']);
    expect(q.head).toBe(entries[0]);
    expect(q.tail).toBe(entries[2]);
    expect(entries.every((e) => e.list === q)).toBe(true);
  });

  it('keeps the values an entry was created with', () => {
    const e = new QueueEntry('x', 12, 34);
    expect([e.item, e.enqueuedAtMs, e.deadlineMs, e.list, e.prev, e.next]).toEqual(['x', 12, 34, null, null, null]);
  });

  it.each([
    ['the oldest', 0, ['b', 'c']],
    ['a middle entry', 1, ['a', 'c']],
    ['the newest', 2, ['a', 'b']],
  ])('removes %s and relinks its neighbours', (_name, index, rest) => {
    const { q, entries } = filled(['a', 'b', 'c']);
    const e = entries[index] as QueueEntry<string>;
    expect(q.remove(e)).toBe(true);
    expect(order(q)).toEqual(rest);
    expect(q.head?.item).toBe(rest[0]);
    expect(q.tail?.item).toBe(rest[1]);
    expect([e.list, e.prev, e.next]).toEqual([null, null, null]);
  });

  it('becomes empty when its only entry is removed', () => {
    const { q, entries } = filled(['a']);
    expect(q.remove(entries[0] as QueueEntry<string>)).toBe(true);
    expect(q.head).toBeNull();
    expect(q.tail).toBeNull();
    expect(q.size).toBe(0);
  });

  it('refuses to remove an entry twice, leaving the rest intact', () => {
    const { q, entries } = filled(['a', 'b']);
    const a = entries[0] as QueueEntry<string>;
    q.remove(a);
    expect(q.remove(a)).toBe(false);
    expect(order(q)).toEqual(['b']);
  });

  it("refuses to remove another queue's entry", () => {
    const one = filled(['a']);
    const two = filled(['b']);
    expect(two.q.remove(one.entries[0] as QueueEntry<string>)).toBe(false);
    expect(order(one.q)).toEqual(['a']);
    expect(order(two.q)).toEqual(['b']);
  });

  it('refuses to push an entry that is already queued', () => {
    const { q, entries } = filled(['a']);
    expect(() => q.pushBack(entries[0] as QueueEntry<string>)).toThrow(/already in a queue/);
    expect(q.size).toBe(1);
  });

  it('appends after removals in any order', () => {
    const { q, entries } = filled(['a', 'b', 'c']);
    q.remove(entries[2] as QueueEntry<string>);
    q.remove(entries[0] as QueueEntry<string>);
    q.pushBack(new QueueEntry('d', 3, Infinity));
    expect(order(q)).toEqual(['b', 'd']);
    q.remove(entries[1] as QueueEntry<string>);
    q.pushBack(new QueueEntry('e', 4, Infinity));
    expect(order(q)).toEqual(['d', 'e']);
  });
});
