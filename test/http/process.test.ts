// Seawall holds no process resources: timers are cleared when a call ends, unref'd while pending, and a process exits by itself.

import { createHook } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch } from '../../src/http/index.js';
import { RetryPolicy } from '../../src/policy/index.js';
import { delay, rejection, startServer, type TestServer } from './servers.js';

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
      await delay(20); // destroy hooks run asynchronously
      expect(timers.created()).toBe(1);
      expect(timers.live.size).toBe(0);
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
        await delay(100);
        const sleeping = [...timers.live.values()];
        expect(sleeping).toHaveLength(1);
        expect(sleeping[0]?.hasRef()).toBe(!unrefBackoff);
        controller.abort();
        await rejection(call);
        await delay(20);
        expect(timers.live.size).toBe(0);
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
    let doneAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      if (String(d).includes('done')) doneAt = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => {
      const kill = setTimeout(() => child.kill(), 20_000);
      child.on('exit', (c) => {
        clearTimeout(kill);
        resolve(c);
      });
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(doneAt).toBeGreaterThan(0);
    expect(Date.now() - doneAt).toBeLessThan(1500);
    expect(seen.get('/flaky-fetch')).toBe(2);
    expect(seen.get('/hang')).toBe(6);
  });
});
