// Seawall holds no process resources: timers are cleared when a call ends, unref'd while pending, and a process exits by itself.

import { createHook } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { delay, rejection, startServer, type TestServer, within } from '../../support/loopback.js';
import { waitFor } from '../server/server-helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Watches Timeout resources whose delay is `delayMs` (a value only Seawall's timers use in the test). */
function watchTimers(delayMs: number) {
  const live = new Map<number, { hasRef(): boolean }>();
  let created = 0;
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === delayMs) {
        created++;
        live.set(id, resource as { hasRef(): boolean });
      }
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return { live, created: () => created, stop: () => hook.disable() };
}

describe('timers', () => {
  it('clears the per-try timer as soon as the attempt ends', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    const timers = watchTimers(4321);
    try {
      const fetch = createFetch({ policy: new RetryPolicy({ perTryTimeout: 4321 }) });
      await (await fetch(server.origin)).text();
      // Destroy hooks run asynchronously (~1 ms); a timer left running would live its 4.3 s.
      await waitFor(() => timers.live.size === 0, 2000, 'the per-try timer to be destroyed');
      expect(timers.created()).toBe(1);
    } finally {
      timers.stop();
    }
  });

  it("sleeps on a ref'd timer (an awaited call keeps the process alive), unref'd with unrefBackoff, cleared on abort", async () => {
    server = await startServer((_req, res) => res.writeHead(503, { 'retry-after': '4.321' }).end());
    const timers = watchTimers(4321);
    try {
      for (const unrefBackoff of [false, true]) {
        const controller = new AbortController();
        const policy = new RetryPolicy({ backoff: 'none', deadline: { patience: '10s' } });
        const call = createFetch({ policy, unrefBackoff })(server.origin, { signal: controller.signal });
        await waitFor(() => policy.stats().retries === 1, 3000, 'the retry after the first 503'); // now sleeping
        const sleeping = [...timers.live.values()];
        expect(sleeping).toHaveLength(1);
        expect(sleeping[0]?.hasRef()).toBe(!unrefBackoff);
        controller.abort();
        await within(rejection(call), 1000, 'the call to end when aborted during its 4.3 s sleep');
        // Destroyed ~1 ms after the abort; a sleep the abort did not clear would live its 4.3 s.
        await waitFor(() => timers.live.size === 0, 2000, 'the backoff timer to be destroyed after the abort');
      }
    } finally {
      timers.stop();
    }
  });

  it('never lets a per-try timer hold the process', async () => {
    server = await startServer(() => {}); // never answers
    const timers = watchTimers(4321);
    try {
      const call = createFetch({ policy: new RetryPolicy({ perTryTimeout: 4321 }) })(server.origin);
      await delay(50);
      expect([...timers.live.values()].map((t) => t.hasRef())).toEqual([false]);
      await server.close();
      server = undefined;
      await rejection(call);
    } finally {
      timers.stop();
    }
  });
});

describe('process lifetime', () => {
  it('lets a child process that made calls exit by itself, even with a fire-and-forget call left sleeping', async () => {
    const seen = new Map<string, number>();
    server = await startServer((req, res) => {
      const n = (seen.get(req.url ?? '') ?? 0) + 1;
      seen.set(req.url ?? '', n);
      if (req.url === '/hang') return; // never answers
      if (req.url === '/retry-later') return res.writeHead(503, { 'retry-after': '30' }).end();
      res.writeHead(n === 1 ? 503 : 200).end('x');
    });
    const script = fileURLToPath(new URL('./child-client.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, server.origin], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    // Exit after "done": 0.05–0.5 s idle, up to 2.2 s measured with both cores busy (process teardown); a timer that
    // held the process would hold it for the 30 s backoff. The child is killed 8 s after "done" (30 s without one).
    const EXIT_BOUND_MS = 8000;
    let doneAt = 0;
    let childStats = { perTryTimeouts: -1 };
    let kill = setTimeout(() => child.kill(), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      const done = /^done (.*)$/m.exec(String(d));
      if (done === null) return;
      childStats = JSON.parse(done[1] as string);
      doneAt = Date.now();
      clearTimeout(kill);
      kill = setTimeout(() => child.kill(), EXIT_BOUND_MS);
    });
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => {
        clearTimeout(kill);
        resolve(c);
      });
    });
    const exitLagMs = Date.now() - doneAt;
    expect(stderr).toBe('');
    expect(doneAt, `the child printed "done" within 30 s; requests seen: ${JSON.stringify([...seen])}`).toBeGreaterThan(
      0,
    );
    expect(code, `the child exited by itself within ${EXIT_BOUND_MS} ms of "done" (exit code; null: killed)`).toBe(0);
    expect(exitLagMs).toBeLessThan(EXIT_BOUND_MS);
    expect(seen.get('/flaky-fetch')).toBe(2);
    expect(childStats.perTryTimeouts).toBe(6); // each /hang call timed out on all 3 attempts
  });
});
