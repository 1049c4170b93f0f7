// `npm run hostile`: tries Seawall as a hostile client and an unlucky day would, on loopback, and prints the figures.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import {
  createFetch,
  RetryPolicy,
  retryInterceptor,
  type SeawallClientOptions,
  seawallConnector,
  seawallHandler,
} from '../../src/index.js';
import { encodeAbsoluteDeadline } from '../../src/policy/index.js';

type Row = [string, string, string];
const rows: Row[] = [];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const quick = (config = {}) =>
  new RetryPolicy({ backoff: { kind: 'full-jitter', base: 1, cap: 5 }, budget: false, ...config });

async function listen(handler: http.RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(handler);
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function pipelined(port: number, paths: string[], closeAfterMs: number): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
  await sleep(closeAfterMs);
  socket.destroy();
}

async function pipelining(): Promise<void> {
  const listener = seawallHandler((req, res) => void (req.url === '/ok' && res.end('ok')), {
    workers: 4,
    queueLimit: 8,
    meter: false,
  });
  const server = await listen(listener);
  for (let round = 0; round < 10; round++) {
    await Promise.all(Array.from({ length: 20 }, () => pipelined(server.port, ['/hold', '/hold', '/hold'], 5)));
  }
  await sleep(500);
  const s = listener.stats();
  const ok = await fetch(`http://127.0.0.1:${server.port}/ok`).then((r) => r.status);
  rows.push([
    'HTTP/1.1 pipelining: 200 connections × 3 pipelined requests whose handler never answers, closed after 5 ms',
    `${s.offered} offered; 500 ms later running ${s.running}, queued ${s.queued}; a normal request: ${ok}`,
    'every slot released when the connection closes',
  ]);
  await server.close();
}

/** A 503 whose body never ends; reports bytes written and when its connection closed. */
function endless503(headers: Record<string, string>, report: { written: number; startedMs: number; closedMs: number }) {
  const chunk = Buffer.alloc(64 * 1024, 120);
  return (res: ServerResponse) => {
    report.startedMs = Date.now();
    res.on('close', () => (report.closedMs = Date.now()));
    res.writeHead(503, headers);
    const pump = () => {
      while (!res.destroyed && report.written < 1024 ** 3) {
        report.written += chunk.length;
        if (!res.write(chunk)) return;
      }
    };
    res.on('drain', pump);
    pump();
  };
}

type Call = (options: SeawallClientOptions, url: string) => Promise<unknown>;
const drivers: Record<string, Call> = {
  createFetch: async (options, url) => (await createFetch(options)(url)).arrayBuffer(),
  retryInterceptor: async (options, url) => {
    const agent = new Agent();
    try {
      return await (await request(url, { dispatcher: agent.compose(retryInterceptor(options)) })).body.arrayBuffer();
    } finally {
      await agent.close();
    }
  },
};

async function endlessBodies(): Promise<void> {
  for (const [name, call] of Object.entries(drivers)) {
    const report = { written: 0, startedMs: 0, closedMs: 0 };
    let n = 0;
    const flood = endless503({ 'retry-after-ms': '1500' }, report);
    const server = await listen((_req, res) => (++n === 1 ? flood(res) : res.end('ok')));
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    await call({ policy: quick() }, `http://127.0.0.1:${server.port}/`);
    const rssAfter = process.memoryUsage().rss;
    rows.push([
      `endless 503 body, ${name}, 1.5 s backoff`,
      `connection closed ${report.closedMs - report.startedMs} ms after the 503; the server wrote ${(report.written / 1048576).toFixed(1)} MB (socket buffers included); client RSS ${((rssAfter - rssBefore) / 1048576).toFixed(0)} MB more`,
      'drained ≤ drain.maxBytes (64 KiB), then closed',
    ]);
    await server.close();
  }
}

async function absurdHints(): Promise<void> {
  for (const [name, call] of Object.entries(drivers)) {
    const server = await listen((_req, res) => res.writeHead(503, { 'grpc-retry-pushback-ms': '2147483647' }).end());
    const started = Date.now();
    const error = (await call({ policy: quick(), rejectOnGiveUp: true }, `http://127.0.0.1:${server.port}/`).catch(
      (e: unknown) => e,
    )) as { reason?: string };
    rows.push([
      `grpc-retry-pushback-ms: 2147483647, ${name}`,
      `call ended in ${Date.now() - started} ms (${error.reason})`,
      'capped by maxRetryAfter (300 s): stop',
    ]);
    await server.close();
  }
  for (const [name, call] of Object.entries(drivers)) {
    let n = 0;
    const hits: number[] = [];
    const server = await listen((_req, res) => {
      hits.push(Date.now());
      if (++n > 1) return res.end('ok');
      res.setHeader('retry-after', ['0', '1']);
      res.writeHead(503).end();
    });
    await call({ policy: quick() }, `http://127.0.0.1:${server.port}/`);
    rows.push([
      `Retry-After sent twice ("0" and "1"), ${name}`,
      `retried after ${(hits[1] as number) - (hits[0] as number)} ms`,
      'one reading: the longest valid wait',
    ]);
    await server.close();
  }
}

async function skewAndAborts(): Promise<void> {
  const listener = seawallHandler((_req, res) => res.end('ok'), { workers: 8, meter: false });
  const server = await listen(listener);
  const statuses = new Map<number, number>();
  for (let i = 0; i < 200; i++) {
    const behind = Date.now() - 2500;
    const response = await fetch(`http://127.0.0.1:${server.port}/`, {
      headers: { 'grpc-timeout': '2000m', 'x-request-deadline': encodeAbsoluteDeadline(behind + 2000) },
    });
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  rows.push([
    'a caller whose clock is 2.5 s behind, 200 requests (grpc-timeout 2 s + x-request-deadline)',
    `${[...statuses].map(([s, c]) => `${c} × ${s}`).join(', ')}; deadlineSkew ${listener.stats().deadlineSkew}`,
    'the relative deadline decides',
  ]);
  const policy = new RetryPolicy({ budget: { kind: 'percent', percent: 20, minConcurrency: 3 } });
  const aborted = AbortSignal.abort();
  for (let i = 0; i < 1000; i++)
    await createFetch({ policy })(`http://127.0.0.1:${server.port}/`, { signal: aborted }).catch(() => 0);
  const s = policy.stats();
  rows.push([
    '1,000 calls whose signal was aborted before they started',
    `calls ${s.calls}, active ${s.active}, aborted ${s.stops.aborted}, attempts ${s.attempts}; free retry slots ${policy.budgetFor(`http://127.0.0.1:${server.port}`).level()}`,
    'they end in the policy; counters add up',
  ]);
  await server.close();
}

async function unsafeReplays(): Promise<void> {
  for (const name of Object.keys(drivers)) {
    let seen = 0;
    const server = await listen((req, res) => {
      seen++;
      req.resume();
      req.on('end', () => res.socket?.resetAndDestroy());
    });
    const url = `http://127.0.0.1:${server.port}/`;
    const agent = new Agent();
    const post =
      name === 'createFetch'
        ? createFetch({ policy: quick() })(url, { method: 'POST', body: 'pay' })
        : request(url, {
            dispatcher: agent.compose(retryInterceptor({ policy: quick() })),
            method: 'POST',
            body: 'pay',
          });
    const error = (await post.catch((e: unknown) => e)) as { reason?: string };
    rows.push([
      `POST whose connection resets after the server read the body, ${name}`,
      `the server saw it ${seen} time(s); ${error.reason}`,
      'sent once (the server may have acted)',
    ]);
    await agent.close();
    await server.close();
  }
}

async function lateThrow(): Promise<void> {
  const body = Buffer.alloc(8 * 1024 * 1024, 97);
  const server = await listen(
    seawallHandler(
      async (_req, res) => {
        res.end(body);
        throw new Error('late');
      },
      { meter: false, onError: () => {} },
    ),
  );
  const received = (await (await fetch(`http://127.0.0.1:${server.port}/`)).arrayBuffer()).byteLength;
  rows.push([
    'a handler that throws after res.end() of 8 MB',
    `${(received / 1048576).toFixed(1)} MB received`,
    'the finished response stands',
  ]);
  await server.close();
}

async function hungHandshake(): Promise<void> {
  const tls = { rejectUnauthorized: false };
  for (const withConnector of [true, false]) {
    const closes: number[] = [];
    const server = net.createServer((s) => {
      s.resume();
      s.on('error', () => {});
      s.on('close', () => closes.push(Date.now()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ connect: withConnector ? seawallConnector(tls) : { ...tls, timeout: 3000 } });
    const started = Date.now();
    const error = (await request(`https://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, {
      dispatcher: agent.compose(retryInterceptor({ policy: quick({ perTryTimeout: 200, maxAttempts: 2 }) })),
      method: 'POST',
      body: 'pay',
    }).catch((e: unknown) => e)) as { reason?: string; attempts?: number };
    const endedMs = Date.now() - started;
    while (closes.length < 2 && Date.now() - started < 4000) await sleep(20);
    rows.push([
      `hung TLS handshake, POST, per-try timeout 200 ms, ${withConnector ? 'seawallConnector' : "undici's connector (connect timeout 3 s)"}`,
      `${error.attempts} attempts, ${error.reason}, call ended after ${endedMs} ms; sockets closed ${closes.map((t) => t - started).join(' / ')} ms after the start`,
      withConnector
        ? 'never sent, so retried; each abandoned socket closed at once'
        : 'never sent, so retried; sockets wait for undici',
    ]);
    await agent.destroy();
    server.close();
  }
}

async function fuzzedHeaders(): Promise<void> {
  const listener = seawallHandler((_req: IncomingMessage, res: ServerResponse) => res.end('ok'), {
    workers: 4,
    queueLimit: 64,
    meter: false,
  });
  const server = await listen(listener);
  const value = fc.oneof(fc.stringMatching(/^[ -~]{0,30}$/), fc.stringMatching(/^-?\d{0,12}(\.\d{0,4})?[HMSmun]?$/));
  const samples = fc.sample(
    fc.record({ 'grpc-timeout': value, 'x-request-deadline': value, 'x-envoy-expected-rq-timeout-ms': value }),
    { numRuns: 2000, seed: 9 },
  );
  const statuses = new Map<number, number>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  for (const headers of samples) {
    const status = await new Promise<number>((resolve) => {
      const req = http.get({ port: server.port, host: '127.0.0.1', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(-1));
    });
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  agent.destroy();
  const s = listener.stats();
  rows.push([
    '2,000 requests with fuzzed deadline headers (seeded)',
    `${[...statuses].map(([st, c]) => `${c} × ${st}`).join(', ')}; malformed ${s.malformedHeaders}; running ${s.running}`,
    'every request answered; garbage reads as no deadline',
  ]);
  await server.close();
}

const cases = [
  pipelining,
  endlessBodies,
  absurdHints,
  skewAndAborts,
  unsafeReplays,
  lateThrow,
  hungHandshake,
  fuzzedHeaders,
];
for (const run of cases) await run();
console.log(`Seawall hostile cases, ${new Date().toISOString()} (node ${process.version})\n`);
console.log('| case | what happened | rule |\n|---|---|---|');
for (const [c, what, rule] of rows) console.log(`| ${c} | ${what} | ${rule} |`);
