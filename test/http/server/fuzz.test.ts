// Fuzzed deadline and Retry-After headers: the header reader never throws, never yields a bad deadline, and a real
// server keeps answering whatever arrives.
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerGate } from '../../../src/http/server/core.js';
import { seawallHandler } from '../../../src/http/server/node.js';
import { encodeAbsoluteDeadline, encodeGrpcTimeout } from '../../../src/policy/hop/deadline.js';
import { parseRetryAfter, serverWait } from '../../../src/policy/hop/retry-after.js';
import { listen, type Running, send } from './server-helpers.js';

const MAX_DEADLINE_MS = 60_000;

/** Header values a real client could send: visible ASCII and spaces (no CR/LF), plus near-miss encodings. */
const headerText = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'0123456789.-+eE mMSHunNaIfity:,x'.split('')), maxLength: 24 }),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  fc.integer({ min: -1e6, max: 1e8 }).map((n) => encodeGrpcTimeout(n)),
  fc.double({ noNaN: false }).map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.integer({ min: -1e9, max: 4e9 }).map((s) => encodeAbsoluteDeadline(s * 1000)),
  fc.constantFrom('NaN', 'Infinity', '-0', '1e3', '0x10', '', ' 5m', '5m ', '99999999H', '123456789S'),
);

const seawallHeaders = fc.record(
  {
    'grpc-timeout': headerText,
    'x-envoy-expected-rq-timeout-ms': headerText,
    'x-request-deadline': headerText,
    'x-seawall-attempt': headerText,
    'retry-after': headerText,
  },
  { requiredKeys: [] },
);

describe('fuzzed inbound headers', () => {
  it('the header reader never throws and yields no deadline or one within maxDeadline (node and Fetch headers)', () => {
    const gate = new ServerGate({ workers: 1, maxDeadline: MAX_DEADLINE_MS, meter: false });
    let reads = 0;
    fc.assert(
      fc.property(seawallHeaders, fc.boolean(), (headers, fetchStyle) => {
        const before = Date.now();
        const request = fetchStyle
          ? gate.arrive(new Headers(headers as Record<string, string>), '127.0.0.1')
          : gate.arrive(headers as Record<string, string>, '127.0.0.1', true);
        reads++;
        const d = request.deadlineMs;
        if (d !== null) {
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeLessThanOrEqual(Date.now() + MAX_DEADLINE_MS);
        }
        expect(request.fromSeawallHop).toBe(headers['x-seawall-attempt'] !== undefined);
        expect(before).toBeLessThanOrEqual(Date.now());
      }),
      { numRuns: 5000 },
    );
    const s = gate.stats();
    expect(s.malformedHeaders + s.cappedDeadlines).toBeLessThanOrEqual(reads);
    expect(s.malformedHeaders).toBeGreaterThan(0);
  });

  it('the hints the middleware sends always read back (policy reader) as the configured wait, in whole ms', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 86_400_000, noNaN: true }), (retryAfterMs) => {
        const gate = new ServerGate({ workers: 1, queueLimit: 0, retryAfter: retryAfterMs, meter: false });
        gate.admit(gate.arrive({}, undefined, true), { resume() {} });
        const refusal = gate.admit(gate.arrive({}, undefined, true), { resume() {} });
        if (typeof refusal === 'string' || refusal.status !== 503) throw new Error('expected a 503');
        const headers = refusal.headers;
        expect(headers['retry-after']).toMatch(/^\d+$/); // RFC 9110 delay-seconds
        const read = serverWait(headers['retry-after'], headers['retry-after-ms'], 0);
        if (!read.ok) throw new Error(`unreadable hints ${JSON.stringify(headers)}`);
        // whole ms, never less than configured (a server's wait is a minimum)
        expect(read.delayMs).toBe(Math.ceil(retryAfterMs));
        // a client that reads only Retry-After waits at least as long, and less than a second more
        const coarse = parseRetryAfter(headers['retry-after'], 0);
        expect(coarse.ok && coarse.delayMs >= read.delayMs && coarse.delayMs - read.delayMs < 1000).toBe(true);
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('fuzzed headers against a real server', () => {
  let server: Running;
  let listener: ReturnType<typeof seawallHandler>;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    listener = seawallHandler((_req, res) => res.end('ok'), { workers: 4, queueLimit: 64, meter: false });
    server = await listen(listener);
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  it('answers every request (200, or 504 for a deadline already passed) and stays balanced', async () => {
    await fc.assert(
      fc.asyncProperty(seawallHeaders, async (headers) => {
        const reply = await send(server.port, { headers: headers as Record<string, string>, agent });
        expect([200, 504]).toContain(reply.status);
      }),
      { numRuns: 400 },
    );
    const s = listener.stats();
    expect(s.offered).toBe(400);
    expect(s.offered).toBe(s.started + s.shed + s.droppedOnArrival + s.dropped + s.cancelled + s.queued);
    expect((await send(server.port)).status).toBe(200);
  });

  it('sends a parseable Retry-After for fuzzed retryAfter settings changed at run time', async () => {
    const shedding = seawallHandler(() => {}, { workers: 1, queueLimit: 0, meter: false });
    const s = await listen(shedding);
    try {
      void send(s.port).catch(() => {}); // holds the only worker forever
      await new Promise((r) => setTimeout(r, 20));
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 86_400_000 }), async (ms) => {
          shedding.update({ retryAfter: ms });
          const reply = await send(s.port, { agent });
          expect(reply.status).toBe(503);
          const read = serverWait(reply.headers['retry-after'], reply.headers['retry-after-ms'], Date.now());
          expect(read).toEqual({ ok: true, delayMs: ms, bounded: false });
          expect(reply.headers['retry-after']).toBe(String(Math.ceil(ms / 1000)));
        }),
        { numRuns: 100 },
      );
    } finally {
      await s.close();
    }
  });
});
