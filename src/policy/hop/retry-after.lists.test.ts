// Hints read one way everywhere: retry-after-ms beside Retry-After (serverWait), and a hint sent more than once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../test/support/property-runs.js';
import { MAX_SERVER_WAIT_MS, parseGrpcPushback, parseRetryAfter, serverWait } from './retry-after.js';

// RFC 9110 §5.6.7 example instant: Sun, 06 Nov 1994 08:49:37 GMT; "now" is 7 s before it.
const NOW = Date.UTC(1994, 10, 6, 8, 49, 37) - 7000;

describe('serverWait: Retry-After with retry-after-ms', () => {
  it('prefers retry-after-ms when it refines Retry-After (what a Seawall server sends: "1" and "200")', () => {
    expect(serverWait('1', '200', NOW)).toEqual({ ok: true, delayMs: 200, bounded: false });
    expect(serverWait('2', '1500', NOW)).toEqual({ ok: true, delayMs: 1500, bounded: false });
  });

  it('takes the longer wait when the two disagree (a proxy rewrote one of them)', () => {
    expect(serverWait('30', '200', NOW)).toEqual({ ok: true, delayMs: 30_000, bounded: false });
    expect(serverWait('0', '200', NOW)).toEqual({ ok: true, delayMs: 200, bounded: false });
  });

  it('uses either alone, and ignores a malformed one beside a valid one', () => {
    expect(serverWait(undefined, '250', NOW)).toEqual({ ok: true, delayMs: 250, bounded: false });
    expect(serverWait('3', undefined, NOW)).toEqual({ ok: true, delayMs: 3000, bounded: false });
    expect(serverWait('soon', '250', NOW)).toEqual({ ok: true, delayMs: 250, bounded: false });
    expect(serverWait('3', 'soon', NOW)).toEqual({ ok: true, delayMs: 3000, bounded: false });
    expect(serverWait(undefined, undefined, NOW)).toEqual({ ok: false, reason: 'absent' });
    expect(serverWait('soon', undefined, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(serverWait(undefined, 'soon', NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('returns the wait the server asked for, not capped (the policy decides), bounded only at the timer limit', () => {
    expect(serverWait('1000', undefined, NOW)).toEqual({ ok: true, delayMs: 1_000_000, bounded: false });
    expect(serverWait(undefined, '999999999', NOW)).toEqual({ ok: true, delayMs: 999_999_999, bounded: false });
    expect(serverWait('9'.repeat(400), '5', NOW)).toEqual({ ok: true, delayMs: MAX_SERVER_WAIT_MS, bounded: true });
  });
});

describe('a hint sent more than once', () => {
  // One rule, whatever the transport: undici reports repeated lines as an array, fetch joins them with ", ".
  it.each([
    [['1', '5'], 5000],
    ['1, 5', 5000],
    ['1,5', 5000],
    [['5', '1'], 5000],
    [['junk', '2'], 2000],
    ['junk, 2', 2000],
    [['-1', '2'], 2000],
    ['Sun, 06 Nov 1994 08:49:37 GMT, 1', 7000],
    [['Sun, 06 Nov 1994 08:49:37 GMT', '1'], 7000],
    ['1, Sun, 06 Nov 1994 08:49:37 GMT', 7000],
    ['Sunday, 06-Nov-94 08:49:37 GMT, 3', 7000],
  ])('reads Retry-After %j as the longest valid wait, %d ms', (value, ms) => {
    expect(parseRetryAfter(value as string | string[], NOW)).toEqual({ ok: true, delayMs: ms, bounded: false });
  });

  it('reads a list with no valid member as its first failure, and an empty list as absent', () => {
    expect(parseRetryAfter(['junk', '-1'], NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(parseRetryAfter(['-1', 'junk'], NOW)).toEqual({ ok: false, reason: 'negative' });
    expect(parseRetryAfter([], NOW)).toEqual({ ok: false, reason: 'absent' });
    expect(parseRetryAfter(',', NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('reads a pushback list as "do not retry" if any member says so, else the longest wait', () => {
    expect(parseGrpcPushback(['100', '200'])).toEqual({ kind: 'retry', delayMs: 200 });
    expect(parseGrpcPushback('100, 200')).toEqual({ kind: 'retry', delayMs: 200 });
    expect(parseGrpcPushback(['100', '-1'])).toEqual({ kind: 'stop', reason: 'negative' });
    expect(parseGrpcPushback('100, junk')).toEqual({ kind: 'stop', reason: 'malformed' });
    expect(parseGrpcPushback([])).toEqual({ kind: 'absent' });
  });

  it('reads the same value the same way as one joined line and as separate lines (property)', () => {
    const member = fc.oneof(
      fc.nat({ max: 100_000 }).map(String),
      fc.constantFrom('junk', '-3', '0.25', 'Sun, 06 Nov 1994 08:49:40 GMT', 'Sunday, 06-Nov-94 08:49:50 GMT'),
    );
    let multi = 0;
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 6, size: 'max' }), (members) => {
        if (members.length > 1) multi++;
        expect(parseRetryAfter(members.join(', '), NOW)).toEqual(parseRetryAfter(members, NOW));
        const pushbacks = members.filter((m) => !m.includes(' '));
        if (pushbacks.length > 0) expect(parseGrpcPushback(pushbacks.join(', '))).toEqual(parseGrpcPushback(pushbacks));
      }),
      propertyRuns(),
    );
    expect(multi).toBeGreaterThan(propertyRuns().numRuns / 2);
  });
});
