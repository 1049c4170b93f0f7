// Every header parser of the policy on 10,000 hostile inputs each: no throw, no NaN, nothing unbounded escapes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../test/support/property-runs.js';
import { createRandom } from './core/random.js';
import {
  decodeAbsoluteDeadline,
  decodeEnvoyTimeoutMs,
  decodeGrpcTimeout,
  MAX_ACCEPTED_DEADLINE_MS,
  readDeadline,
} from './hop/deadline.js';
import { responseOutcome } from './hop/hop.js';
import {
  headerMembers,
  MAX_SERVER_WAIT_MS,
  parseGrpcPushback,
  parseHttpDate,
  parseRetryAfter,
  parseRetryAfterMs,
  serverWait,
} from './hop/retry-after.js';
import { RetryPolicy } from './retry/retry.js';

const RUNS = propertyRuns();
const NOW = 1_764_486_000_000;

/** Strings near what the parsers accept (digits, units, signs, dots, commas, dates, blanks) and arbitrary junk. */
const headerText = fc.oneof(
  fc.stringMatching(/^[ \t]?-?\d{0,12}(\.\d{0,12})?[HMSmun]?[ \t]?$/),
  fc.stringMatching(/^(\d{1,10}(\.\d{1,3})?, ?){0,4}\d{0,10}$/),
  fc.constantFrom(
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 1994',
    'Wed, 31 Dec 9999 23:59:59 GMT',
    'Thu, 01 Jan 1970 00:00:00 GMT',
    '2147483647',
    '2147483648',
    '-2147483648',
    '99999999999999999999999',
    '1e400',
    'NaN',
    'Infinity',
    '0x10',
    '',
    ',',
    ' , , ',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const headerValue = fc.oneof(headerText, fc.array(headerText, { maxLength: 4 }));
const anyNow = fc.oneof(fc.constant(NOW), fc.double(), fc.integer({ min: -1e15, max: 1e16 }));

function finiteAndBounded(ms: number, cap: number): void {
  expect(Number.isFinite(ms)).toBe(true);
  expect(ms).toBeGreaterThanOrEqual(0);
  expect(ms).toBeLessThanOrEqual(cap);
}

describe('server hints on hostile input (10,000 cases each)', () => {
  it('parseRetryAfter: a bounded, finite, non-negative wait or a reason; the bound holds for lists too', () => {
    let ok = 0;
    fc.assert(
      fc.property(headerValue, anyNow, (value, now) => {
        const read = parseRetryAfter(value, now);
        if (read.ok) {
          ok++;
          finiteAndBounded(read.delayMs, MAX_SERVER_WAIT_MS);
        } else expect(['absent', 'malformed', 'negative']).toContain(read.reason);
      }),
      RUNS,
    );
    expect(ok).toBeGreaterThan(RUNS.numRuns / 5); // the property reaches valid reads, not only rejections
  });

  it('parseRetryAfterMs and serverWait: the same guarantees', () => {
    let ok = 0;
    fc.assert(
      fc.property(headerValue, headerValue, anyNow, (coarse, fine, now) => {
        const ms = parseRetryAfterMs(fine);
        if (ms.ok) finiteAndBounded(ms.delayMs, MAX_SERVER_WAIT_MS);
        const wait = serverWait(coarse, fine, now);
        if (wait.ok) {
          ok++;
          finiteAndBounded(wait.delayMs, MAX_SERVER_WAIT_MS);
        }
      }),
      RUNS,
    );
    expect(ok).toBeGreaterThan(RUNS.numRuns / 5);
  });

  it('parseGrpcPushback: retry after a non-negative int32, or stop, or absent; never NaN', () => {
    let retry = 0;
    fc.assert(
      fc.property(headerValue, (value) => {
        const read = parseGrpcPushback(value);
        if (read.kind === 'retry') {
          retry++;
          expect(Number.isInteger(read.delayMs)).toBe(true);
          finiteAndBounded(read.delayMs, 2_147_483_647);
        }
      }),
      RUNS,
    );
    expect(retry).toBeGreaterThan(RUNS.numRuns / 30);
  });

  it('parseHttpDate: a finite instant inside JavaScript Date range, or undefined', () => {
    fc.assert(
      fc.property(headerText, anyNow, (value, now) => {
        const at = parseHttpDate(value, now);
        if (at !== undefined) expect(Number.isFinite(at)).toBe(true);
      }),
      RUNS,
    );
  });

  it('headerMembers: members are trimmed pieces of the input, at most one per comma plus one per line', () => {
    fc.assert(
      fc.property(headerValue, fc.boolean(), (value, dates) => {
        const members = headerMembers(value, dates);
        const lines = typeof value === 'string' ? [value] : value;
        const commas = lines.reduce((n, line) => n + line.split(',').length - 1, 0);
        expect(members.length).toBeLessThanOrEqual(commas + lines.length);
        for (const m of members) expect(m).toBe(m.trim());
      }),
      RUNS,
    );
  });

  it('RetryPolicy reads any hints into a wait no longer than maxRetryAfter, and never past the deadline', () => {
    const policy = new RetryPolicy(
      { maxAttempts: 2, budget: false, maxRetryAfter: '10s', deadline: { patience: '5s' } },
      { random: createRandom(7) },
    );
    let retried = 0;
    fc.assert(
      fc.property(headerValue, headerValue, headerValue, (retryAfter, fine, pushback) => {
        const call = policy.start(NOW);
        call.beginAttempt(NOW);
        const headers: Record<string, unknown> = {
          'retry-after': retryAfter,
          'retry-after-ms': fine,
          'grpc-retry-pushback-ms': pushback,
        };
        const decision = call.onOutcome(
          responseOutcome(503, (name) => headers[name] as string),
          NOW,
        );
        if ('retryAfterMs' in decision) {
          retried++;
          finiteAndBounded(decision.retryAfterMs, 5000);
          call.abort(NOW); // the test does not retry: end the call so the counters can be checked
        }
      }),
      RUNS,
    );
    expect(retried).toBeGreaterThan(RUNS.numRuns / 20);
    expect(policy.stats().active).toBe(0);
  });
});

describe('deadline headers on hostile input (10,000 cases each)', () => {
  it('decodeGrpcTimeout / decodeEnvoyTimeoutMs: finite non-negative ms, or a reason', () => {
    fc.assert(
      fc.property(headerText, (value) => {
        for (const read of [decodeGrpcTimeout(value), decodeEnvoyTimeoutMs(value)]) {
          if (read.ok) expect(Number.isFinite(read.ms) && read.ms >= 0).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('decodeAbsoluteDeadline: never beyond now + the cap', () => {
    fc.assert(
      fc.property(headerText, fc.integer({ min: 0, max: 1e13 }), (value, now) => {
        const read = decodeAbsoluteDeadline(value, now);
        if (read.ok) expect(read.atMs).toBeLessThanOrEqual(now + MAX_ACCEPTED_DEADLINE_MS);
      }),
      RUNS,
    );
  });

  it('readDeadline: a deadline within [.., now + maxMs] with a known source, or a reason; skew finite', () => {
    let ok = 0;
    fc.assert(
      fc.property(
        fc.record(
          {
            'grpc-timeout': headerValue,
            'x-envoy-expected-rq-timeout-ms': headerValue,
            'x-request-deadline': fc.oneof(headerText, fc.integer({ min: 0, max: 2e9 }).map(String)),
          },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 0, max: 600_000 }),
        (headers, maxMs) => {
          const read = readDeadline(headers as Record<string, string | string[]>, NOW, maxMs);
          if (!read.ok) return;
          ok++;
          expect(Number.isFinite(read.atMs)).toBe(true);
          expect(read.atMs).toBeLessThanOrEqual(NOW + maxMs);
          if (read.skewMs !== undefined) expect(Number.isFinite(read.skewMs)).toBe(true);
        },
      ),
      RUNS,
    );
    expect(ok).toBeGreaterThan(RUNS.numRuns / 10);
  });
});
