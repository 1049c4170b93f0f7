// Context inheritance across a real two-hop chain, and the OpenTelemetry instruments (fake meter).
import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContext } from '../../../src/driver/context.js';
import { seawallHandler } from '../../../src/http/server/node.js';
import { SERVER_METRICS } from '../../../src/http/server/telemetry.js';
import { RetryPolicy } from '../../../src/policy/retry/retry.js';
import { deferred, listen, type Running, send, waitFor } from './server-helpers.js';

let running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

describe('context inheritance', () => {
  it('an inner Seawall-style call made while handling a request carries its deadline to the next hop', async () => {
    const innerSaw = deferred<{ deadlineMs: number | null; hop: boolean; attempt: number | null }>();
    const inner = await listen(
      seawallHandler(
        (_req, res) => {
          const ctx = currentContext();
          innerSaw.resolve({
            deadlineMs: ctx?.deadlineMs ?? null,
            hop: ctx?.fromSeawallHop ?? false,
            attempt: ctx?.attempt ?? null,
          });
          res.end('inner');
        },
        { workers: 2, meter: false },
      ),
    );
    running.push(inner);
    const outerDeadline = deferred<number | null>();
    const outer = await listen(
      seawallHandler(
        async (_req, res) => {
          // What the client driver does: start a call from the inbound context and send the plan's headers.
          const ctx = currentContext();
          outerDeadline.resolve(ctx?.deadlineMs ?? null);
          const call = new RetryPolicy({ maxAttempts: 1 }).start(Date.now(), { deadlineMs: ctx?.deadlineMs });
          const plan = call.beginAttempt(Date.now());
          if ('stop' in plan) throw new Error(`no attempt: ${plan.stop}`);
          const reply = await send(inner.port, { headers: plan.headers });
          res.end(reply.body);
        },
        { workers: 2, meter: false },
      ),
    );
    running.push(outer);
    // The edge caller gives 1.5 s, relative (grpc-timeout): the outer hop turns it into an absolute deadline.
    const reply = await send(outer.port, { headers: { 'grpc-timeout': '1500m' } });
    expect(reply.body).toBe('inner');
    const deadline = (await outerDeadline.promise) as number;
    const seen = await innerSaw.promise;
    expect(seen.hop).toBe(true);
    expect(seen.attempt).toBe(1); // the caller's attempt number reaches the handler
    // The inner hop lets grpc-timeout decide (the remaining time, rounded up, counted from its own arrival): the
    // same deadline plus the time in transit, never earlier. Far from a fresh 15 s or a lost deadline either way:
    // a few ms in transit against 13.5 s later (a fresh 15 s), so the bound leaves a second for a loaded machine.
    expect(seen.deadlineMs).not.toBeNull();
    expect(seen.deadlineMs as number).toBeGreaterThanOrEqual(deadline);
    expect((seen.deadlineMs as number) - deadline).toBeLessThan(1000);
  });
});

describe('OpenTelemetry instruments', () => {
  it('reports counters and gauges from stats() at collection time, and queue waits as a histogram in seconds', async () => {
    const observables = new Map<object, string>();
    const recorded: { name: string; value: number; attributes?: Record<string, string> }[] = [];
    let callback: ((r: { observe(o: object, v: number, a?: Record<string, string>): void }) => void) | undefined;
    const meter = {
      createHistogram: (name: string) => ({
        record: (value: number, attributes?: Record<string, string>) => recorded.push({ name, value, attributes }),
      }),
      createObservableCounter: (name: string) => {
        const o = { name };
        observables.set(o, name);
        return o;
      },
      createObservableUpDownCounter: (name: string) => {
        const o = { name };
        observables.set(o, name);
        return o;
      },
      addBatchObservableCallback: (cb: typeof callback) => {
        callback = cb;
      },
    };
    const listener = seawallHandler((_req, res) => res.end(), { workers: 1, name: 'member-api', meter });
    const server = await listen(listener);
    running.push(server);
    await send(server.port);
    await send(server.port, { headers: { 'grpc-timeout': 'junk' } });
    await waitFor(() => listener.stats().completed === 2);
    const collected: Record<string, number> = {};
    callback?.({
      observe: (o, v, a) => {
        const key = `${observables.get(o)}${a?.['seawall.stage'] ? `{${a['seawall.stage']}}` : ''}`;
        collected[key] = v;
        expect(a?.['seawall.server.name']).toBe('member-api');
      },
    });
    expect(collected).toMatchObject({
      [SERVER_METRICS.total]: 2,
      [SERVER_METRICS.admitted]: 2,
      [SERVER_METRICS.completed]: 2,
      [SERVER_METRICS.pendingOverflow]: 0,
      [`${SERVER_METRICS.dropped}{arrival}`]: 0,
      [`${SERVER_METRICS.cancelled}{running}`]: 0,
      [SERVER_METRICS.malformedHeaders]: 1,
      [SERVER_METRICS.active]: 0,
      [SERVER_METRICS.pendingActive]: 0,
    });
    expect(recorded).toEqual([
      { name: SERVER_METRICS.pendingTime, value: 0, attributes: { 'seawall.server.name': 'member-api' } },
      { name: SERVER_METRICS.pendingTime, value: 0, attributes: { 'seawall.server.name': 'member-api' } },
    ]);
  });

  it('accepts a real @opentelemetry/api Meter (type and runtime)', async () => {
    const listener = seawallHandler((_req, res) => res.end(), { workers: 1, meter: metrics.getMeter('test') });
    const server = await listen(listener);
    running.push(server);
    expect((await send(server.port)).status).toBe(200);
  });
});

describe("the caller's attempt number", () => {
  it('is in the context as sent (2 = a retry), null when malformed or when the caller is not trusted', async () => {
    const seen: (number | null)[] = [];
    const make = (trustDeadline: boolean) =>
      listen(
        seawallHandler(
          (_req, res) => {
            seen.push(currentContext()?.attempt ?? null);
            res.end();
          },
          { workers: 2, meter: false, trustDeadline },
        ),
      );
    const trusted = await make(true);
    const untrusted = await make(false);
    running.push(trusted, untrusted);
    await send(trusted.port, { headers: { 'x-seawall-attempt': '2' } });
    await send(trusted.port, { headers: { 'x-seawall-attempt': 'two' } });
    await send(trusted.port, {});
    await send(untrusted.port, { headers: { 'x-seawall-attempt': '3' } });
    expect(seen).toEqual([2, null, null, null]);
  });
});
