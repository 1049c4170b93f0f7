// OpenLoopUsers: arrivals follow the Poisson clock whatever the server does, and each user leaves at its patience.
import { createServer, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../test/support/loopback.js';
import { createRandom } from '../policy/core/random.js';
import { OpenLoopUsers } from './load.js';
import { LAB_PARENT_HEADER } from './records.js';

const open: ServerResponse[] = [];
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const res of open.splice(0)) res.destroy();
  await close?.();
});

async function server(answer: (res: ServerResponse) => void) {
  const parents: string[] = [];
  const s = createServer((req, res) => {
    parents.push(String(req.headers[LAB_PARENT_HEADER]));
    answer(res);
  });
  const loopback = await listenLoopback(s);
  close = loopback.close;
  return { origin: loopback.origin, parents };
}

function users(origin: string, ratePerS: number, patienceMs: number | null, endMs: number) {
  const t0 = performance.now();
  return new OpenLoopUsers(
    [{ to: 'entry', ratePerS, patienceMs }],
    { entry: origin },
    createRandom(3),
    () => performance.now() - t0,
    endMs,
  );
}

describe('OpenLoopUsers', () => {
  it('keeps arriving at its rate while no answer comes back (open loop), and users give up at their patience', async () => {
    const s = await server((res) => open.push(res)); // never answers
    const load = users(s.origin, 200, 300, 1000);
    load.start();
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await load.stop();
    const n = load.records.arrivalMs.length;
    // 200/s for 1 s: Poisson, so about 200 (a closed loop with a few connections would have sent a handful).
    expect(n).toBeGreaterThan(140);
    expect(n).toBeLessThan(260);
    expect(s.parents.length).toBeGreaterThan(n - 10); // they all reached the server, none waited for a connection
    expect(load.records.success.every((x) => x === 0)).toBe(true);
    const waited = load.records.endMs.map((end, i) => end - (load.records.arrivalMs[i] as number));
    expect(Math.min(...waited)).toBeGreaterThanOrEqual(290);
    expect(Math.max(...waited)).toBeLessThan(1000);
  });

  it('records each answered user with its status, tagged u.<id> for the chain of waiting callers', async () => {
    const s = await server((res) => res.end('ok'));
    const load = users(s.origin, 100, 2000, 500);
    load.start();
    await new Promise((resolve) => setTimeout(resolve, 700));
    await load.stop();
    const n = load.records.arrivalMs.length;
    expect(n).toBeGreaterThan(20);
    expect(load.records.success.every((x) => x === 1)).toBe(true);
    expect(load.records.status.every((x) => x === 200)).toBe(true);
    expect([...s.parents].sort()).toEqual(Array.from({ length: n }, (_, i) => `u.${i}`).sort());
  });

  it('sends nothing at rate 0, and arrives faster from the moment a surge multiplies the rate', async () => {
    const s = await server((res) => res.end('ok'));
    const idle = users(s.origin, 0, null, 600);
    idle.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(idle.records.arrivalMs).toHaveLength(0);
    await idle.stop();
    const load = users(s.origin, 40, null, 2000);
    load.start();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    load.setMultiplier('entry', 5);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await load.stop();
    const first = load.records.arrivalMs.filter((t) => t < 1000).length; // about 40
    const second = load.records.arrivalMs.length - first; // about 200
    expect(second).toBeGreaterThan(3 * first);
  });
});
