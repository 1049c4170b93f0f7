// The hint parsers never throw on a value of a shape no header has (a number, an object): it reads as absent.
import { describe, expect, it } from 'vitest';
import type { HeaderValue } from '../core/types.js';
import { headerMembers, parseGrpcPushback, parseRetryAfter, parseRetryAfterMs, serverWait } from './retry-after.js';

const ODD: unknown[] = [100, 0, true, { ms: 5 }, Symbol('x'), 12n];

describe('odd header shapes (issue #25 item 1)', () => {
  it.each(ODD.map((value) => [typeof value, value]))('a %s has no members and reads as absent', (_type, value) => {
    const odd = value as HeaderValue;
    expect(headerMembers(odd)).toEqual([]);
    expect(parseRetryAfter(odd, 0)).toMatchObject({ ok: false, reason: 'absent' });
    expect(parseRetryAfterMs(odd)).toMatchObject({ ok: false, reason: 'absent' });
    expect(parseGrpcPushback(odd)).toMatchObject({ kind: 'absent' });
    expect(serverWait(odd, odd, 0)).toMatchObject({ ok: false, reason: 'absent' });
  });

  it('a list keeps its string members and skips the rest', () => {
    expect(headerMembers(['1', 7, '2'] as unknown as HeaderValue)).toEqual(['1', '2']);
  });
});
