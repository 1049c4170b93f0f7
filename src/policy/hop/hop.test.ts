// The hop rules (hop.ts): what a request brings in, what an attempt and an answer send out, how a response reads.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../core/types.js';
import { RetryPolicy } from '../retry/retry.js';
import { encodeAbsoluteDeadline } from './deadline.js';
import {
  ATTEMPT_HEADER,
  answerClaimHeaders,
  attemptHeaders,
  CLAIM_HEADER,
  CRITERIA_MET_HEADER,
  deadlinePassed,
  HOP_REQUEST_HEADERS,
  type InboundHop,
  readInboundHop,
  relayedStatus,
  responseOutcome,
  sentDeadlineMs,
  UNTRUSTED_INBOUND,
} from './hop.js';

const NOW = 1_700_000_000_000;
const MAX = 300_000;
const absolute = (atMs: number) => encodeAbsoluteDeadline(atMs);

describe('readInboundHop', () => {
  it('reads nothing from a request without hop headers', () => {
    expect(readInboundHop({}, NOW, MAX)).toEqual({
      deadlineMs: null,
      fromSeawallHop: false,
      attempt: null,
      malformed: false,
      capped: false,
      skewed: false,
    });
    expect(readInboundHop(new Headers({ 'content-type': 'text/plain' }), NOW, MAX).fromSeawallHop).toBe(false);
  });

  it('marks a request carrying the attempt header as from a Seawall hop, with or without a deadline', () => {
    expect(ATTEMPT_HEADER).toBe('x-seawall-attempt');
    expect(readInboundHop({ [ATTEMPT_HEADER]: '1' }, NOW, MAX)).toMatchObject({
      deadlineMs: null,
      fromSeawallHop: true,
    });
    expect(readInboundHop(new Headers({ [ATTEMPT_HEADER]: '2' }), NOW, MAX).fromSeawallHop).toBe(true);
    expect(readInboundHop({ [ATTEMPT_HEADER]: '1', 'grpc-timeout': '250m' }, NOW, MAX)).toMatchObject({
      deadlineMs: NOW + 250,
      fromSeawallHop: true,
    });
    expect(HOP_REQUEST_HEADERS).toContain(ATTEMPT_HEADER);
  });

  it("reads the caller's attempt number; a malformed one is no number but still a hop marker", () => {
    for (const n of [1, 2, 8, 9, 12, 999999]) {
      expect(readInboundHop({ [ATTEMPT_HEADER]: String(n) }, NOW, MAX)).toMatchObject({
        attempt: n,
        fromSeawallHop: true,
      });
    }
    expect(readInboundHop({ [ATTEMPT_HEADER]: ' 3 ', 'grpc-timeout': '1S' }, NOW, MAX).attempt).toBe(3);
    for (const bad of ['0', '-1', '1.5', '1e3', '01', '1000000', 'x', '', '1, 2']) {
      expect(readInboundHop({ [ATTEMPT_HEADER]: bad }, NOW, MAX), bad).toMatchObject({
        attempt: null,
        fromSeawallHop: true,
      });
    }
    expect(readInboundHop({}, NOW, MAX).attempt).toBeNull();
    // Shared answers for the usual numbers without a deadline: the same object each time.
    expect(readInboundHop({ [ATTEMPT_HEADER]: '2' }, NOW, MAX)).toBe(
      readInboundHop({ [ATTEMPT_HEADER]: '2' }, NOW, MAX),
    );
  });

  it('reads a relative grpc-timeout as now + timeout, and the Envoy expected timeout likewise', () => {
    expect(readInboundHop({ 'grpc-timeout': '1500m' }, NOW, MAX)).toEqual({
      deadlineMs: NOW + 1500,
      fromSeawallHop: false,
      attempt: null,
      malformed: false,
      capped: false,
      skewed: false,
    });
    expect(readInboundHop({ 'grpc-timeout': '2S' }, NOW, MAX).deadlineMs).toBe(NOW + 2000);
    expect(readInboundHop({ 'x-envoy-expected-rq-timeout-ms': '700' }, NOW, MAX).deadlineMs).toBe(NOW + 700);
  });

  it('reads an absolute deadline alone', () => {
    expect(readInboundHop({ 'x-request-deadline': absolute(NOW + 4000) }, NOW, MAX)).toMatchObject({
      deadlineMs: NOW + 4000,
      skewed: false,
    });
  });

  it('lets the relative deadline win over an absolute one, and flags a skew beyond 1 s', () => {
    const both = (absoluteAtMs: number) =>
      readInboundHop({ 'grpc-timeout': '1000m', 'x-request-deadline': absolute(absoluteAtMs) }, NOW, MAX);
    expect(both(NOW + 3000)).toEqual({
      deadlineMs: NOW + 1000,
      fromSeawallHop: false,
      attempt: null,
      malformed: false,
      capped: false,
      skewed: true,
    });
    expect(both(NOW - 5000)).toMatchObject({ deadlineMs: NOW + 1000, skewed: true });
    // Within the tolerance (1,000 ms either way, inclusive): not skewed.
    expect(both(NOW + 2000)).toMatchObject({ deadlineMs: NOW + 1000, skewed: false });
    expect(both(NOW + 2001)).toMatchObject({ deadlineMs: NOW + 1000, skewed: true });
    expect(both(NOW)).toMatchObject({ deadlineMs: NOW + 1000, skewed: false });
    expect(both(NOW - 1)).toMatchObject({ deadlineMs: NOW + 1000, skewed: true });
  });

  it('reads a malformed deadline as none, flagged, and keeps the hop marker', () => {
    for (const headers of [
      { 'grpc-timeout': 'soon' },
      { 'grpc-timeout': '123456789S' },
      { 'x-request-deadline': 'tomorrow' },
      { 'x-request-deadline': '-5' },
      { 'x-envoy-expected-rq-timeout-ms': '-1' },
      { 'grpc-timeout': ['1S', '2S'] },
    ]) {
      expect(readInboundHop(headers, NOW, MAX), JSON.stringify(headers)).toEqual({
        deadlineMs: null,
        fromSeawallHop: false,
        attempt: null,
        malformed: true,
        capped: false,
        skewed: false,
      });
    }
    expect(readInboundHop({ 'grpc-timeout': 'soon', [ATTEMPT_HEADER]: '1' }, NOW, MAX)).toMatchObject({
      deadlineMs: null,
      fromSeawallHop: true,
      malformed: true,
    });
  });

  it('caps a deadline at maxDeadlineMs from now, relative or absolute', () => {
    expect(readInboundHop({ 'grpc-timeout': '10S' }, NOW, 5000)).toMatchObject({
      deadlineMs: NOW + 5000,
      capped: true,
    });
    expect(readInboundHop({ 'x-request-deadline': absolute(NOW + 60_000) }, NOW, 5000)).toMatchObject({
      deadlineMs: NOW + 5000,
      capped: true,
    });
    expect(readInboundHop({ 'grpc-timeout': '5S' }, NOW, 5000)).toMatchObject({
      deadlineMs: NOW + 5000,
      capped: false,
    });
  });

  it('never throws, whatever the headers', () => {
    const odd = [{ 'grpc-timeout': '' }, { 'x-request-deadline': '1e99' }, { 'grpc-timeout': '99999999H' }];
    for (const headers of odd) expect(() => readInboundHop(headers, NOW, MAX)).not.toThrow();
    expect(() => readInboundHop({ 'grpc-timeout': '1S' }, Number.NaN, MAX)).not.toThrow();
  });
});

describe("RetryPolicy.start's inbound: what a call inherits from the request it is made for", () => {
  const policy = () => new RetryPolicy({ maxAttempts: 3, budget: false, deadline: false });

  it('nothing, outside a request or when the request brought nothing (and untrusted requests bring nothing)', () => {
    for (const inbound of [null, UNTRUSTED_INBOUND, { deadlineMs: null, fromSeawallHop: false }]) {
      const call = policy().start(NOW, {}, inbound);
      expect([call.deadlineMs, call.maxAttempts]).toEqual([null, 3]);
    }
  });

  it('the inbound deadline bounds the call, and only ever shortens it', () => {
    const inbound: InboundHop = { deadlineMs: NOW + 800, fromSeawallHop: false };
    expect(policy().start(NOW, {}, inbound).deadlineMs).toBe(NOW + 800);
    expect(policy().start(NOW, { deadlineMs: NOW + 300 }, inbound).deadlineMs).toBe(NOW + 300);
    expect(policy().start(NOW, { deadlineMs: NOW + 5000 }, inbound).deadlineMs).toBe(NOW + 800);
    expect(policy().start(NOW, { inheritedDeadlineMs: NOW + 200 }, inbound).deadlineMs).toBe(NOW + 200);
  });

  it('refuses an inbound deadline that is not a finite number (a hand-made context), before the call starts', () => {
    const p = policy();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => p.start(NOW, {}, { deadlineMs: bad, fromSeawallHop: false })).toThrow(/inbound\.deadlineMs/);
    }
    expect(p.stats().calls).toBe(0);
  });

  it('the hop marker makes the call one attempt (the outermost hop retries), unless oneLayer is false', () => {
    const inbound: InboundHop = { deadlineMs: null, fromSeawallHop: true };
    expect(policy().start(NOW, {}, inbound).maxAttempts).toBe(1);
    expect(policy().start(NOW, { oneLayer: false }, inbound).maxAttempts).toBe(3);
  });
});

describe('deadlinePassed', () => {
  it('is true from the deadline on: equal has passed, 1 ms before has not', () => {
    expect(deadlinePassed(NOW, NOW)).toBe(true);
    expect(deadlinePassed(NOW, NOW - 1)).toBe(false);
    expect(deadlinePassed(NOW, NOW + 1)).toBe(true);
  });
});

describe('what an attempt sends', () => {
  it('sends the deadline only when the policy propagates it', () => {
    expect(sentDeadlineMs(NOW + 10, true)).toBe(NOW + 10);
    expect(sentDeadlineMs(NOW + 10, false)).toBeNull();
    expect(sentDeadlineMs(null, true)).toBeNull();
  });

  it('marks each attempt, and sends the deadline in both forms', () => {
    expect(attemptHeaders(1, null, NOW)).toEqual({ [ATTEMPT_HEADER]: '1' });
    expect(attemptHeaders(2, NOW + 1500, NOW)).toEqual({
      [ATTEMPT_HEADER]: '2',
      'x-request-deadline': absolute(NOW + 1500),
      'grpc-timeout': '1500m',
    });
    expect(attemptHeaders(3, NOW - 10, NOW)['grpc-timeout']).toBe('0m');
  });
});

describe('what an answer sends', () => {
  it('relays the error status it got, or 504 when it got none', () => {
    expect(relayedStatus(0)).toBe(504);
    expect(relayedStatus(200)).toBe(504);
    expect(relayedStatus(399)).toBe(504);
    expect(relayedStatus(400)).toBe(400);
    expect(relayedStatus(503)).toBe(503);
    expect(relayedStatus(500)).toBe(500);
  });

  it('adds claim headers only to a 5xx: its own claimed, a relayed one as the call below said', () => {
    expect(answerClaimHeaders(200, null)).toBeNull();
    expect(answerClaimHeaders(499, 'criteria-met')).toBeNull();
    expect(answerClaimHeaders(500, null)).toEqual({ [CLAIM_HEADER]: '1' });
    expect(answerClaimHeaders(503, 'unclaimed')).toEqual({ [CLAIM_HEADER]: '0' });
    expect(answerClaimHeaders(504, 'criteria-met')).toEqual({ [CLAIM_HEADER]: '0', [CRITERIA_MET_HEADER]: '1' });
  });
});

describe('responseOutcome: the claim', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  const claimOf = (outcome: Outcome) => (outcome.kind === 'response' ? outcome.claim : 'not a response');

  it('reads the claim of a failure from a trusted callee', () => {
    expect(claimOf(responseOutcome(503, headers({ [CLAIM_HEADER]: '1' })))).toBe('claimed');
    expect(claimOf(responseOutcome(503, headers({ [CLAIM_HEADER]: '0' })))).toBe('unclaimed');
    expect(claimOf(responseOutcome(502, headers({ [CLAIM_HEADER]: '0', [CRITERIA_MET_HEADER]: '1' })))).toBe(
      'criteria-met',
    );
    expect(claimOf(responseOutcome(503, headers({})))).toBe('absent');
  });

  it('ignores the claim of a callee outside the trust boundary', () => {
    expect(claimOf(responseOutcome(503, headers({ [CLAIM_HEADER]: '0' }), false))).toBe('absent');
    expect(claimOf(responseOutcome(503, headers({ [CLAIM_HEADER]: '1' }), false))).toBe('absent');
    expect(claimOf(responseOutcome(503, headers({ [CRITERIA_MET_HEADER]: '1' }), false))).toBe('absent');
  });

  it('reads no claim on a success', () => {
    const outcome = responseOutcome(200, headers({ [CLAIM_HEADER]: '1' }));
    expect(outcome).toEqual({ kind: 'response', status: 200 });
    expect('claim' in outcome).toBe(false);
  });
});
