// LoadShedder.nextWakeMs: when the shedder next has something to do by time alone (its oldest queued request expires).
import { describe, expect, it } from 'vitest';
import { deadlinePassed } from '../hop/hop.js';
import { LoadShedder, type LoadShedderConfig } from './shed.js';

function busy(config: LoadShedderConfig): LoadShedder<string> {
  const s = new LoadShedder<string>(config);
  for (let i = 0; i < config.workers; i++) expect(s.admit(0, null, `busy${i}`).verdict).toBe('run');
  return s;
}

describe('LoadShedder.nextWakeMs', () => {
  it('is Infinity with nothing queued', () => {
    expect(new LoadShedder<string>({ workers: 1 }).nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('is the deadline of the oldest queued request, whatever the later ones ask', () => {
    const s = busy({ workers: 1, queueLimit: 4 });
    s.admit(10, 900, 'first');
    s.admit(20, 300, 'second'); // an earlier deadline behind it: the shedder answers the head first
    expect(s.nextWakeMs()).toBe(900);
  });

  it('moves to the next oldest once the oldest has left the queue', () => {
    const s = busy({ workers: 1, queueLimit: 4 });
    s.admit(10, 900, 'first');
    s.admit(20, 1500, 'second');
    s.onFinish();
    expect(s.take(100)).toBe('first');
    expect(s.nextWakeMs()).toBe(1500);
  });

  it('is Infinity when the oldest has no deadline, or when dropExpired is off', () => {
    const none = busy({ workers: 1, queueLimit: 4 });
    none.admit(10, null, 'patient');
    expect(none.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
    const keeps = busy({ workers: 1, queueLimit: 4, dropExpired: false });
    keeps.admit(10, 900, 'kept');
    expect(keeps.nextWakeMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('names a time at which the oldest is dropped, not run (504)', () => {
    const s = busy({ workers: 1, queueLimit: 4 });
    s.admit(10, 900, 'first');
    const wake = s.nextWakeMs();
    s.onFinish();
    const after = wake + 1;
    expect(deadlinePassed(900, after)).toBe(true);
    expect(s.dequeue(after)).toMatchObject({ verdict: 'drop', status: 504, item: 'first' });
  });
});
