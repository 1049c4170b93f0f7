// Logs Seawall's diagnostics_channel events with pino: a retried fetch, a give-up, a shed 503, a retried execute().
// Run: npm run build && npx tsx examples/events/pino.ts   (prints one JSON line per event)

import diagnostics from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createExecutor, createFetch, RetryPolicy, SEAWALL_CHANNELS, seawallHandler } from 'seawall';

/** Subscribes `logger` to every Seawall channel; returns the function that unsubscribes. */
export function logSeawallEvents(logger: Logger): () => void {
  const levels: Record<string, 'info' | 'warn'> = {
    [SEAWALL_CHANNELS.retry]: 'info',
    [SEAWALL_CHANNELS.giveUp]: 'warn',
    [SEAWALL_CHANNELS.budgetRefused]: 'warn',
    [SEAWALL_CHANNELS.shed]: 'warn',
    [SEAWALL_CHANNELS.drop]: 'warn',
    [SEAWALL_CHANNELS.cancel]: 'info',
  };
  const unsubscribes = Object.entries(levels).map(([channel, level]) => {
    const onMessage = (message: unknown) => {
      // `error` goes under pino's `err`, which its error serializer prints with type, message and stack.
      const { error, ...fields } = message as { error?: unknown };
      logger[level](error === undefined ? fields : { ...fields, err: error }, channel);
    };
    diagnostics.subscribe(channel, onMessage);
    return () => diagnostics.unsubscribe(channel, onMessage);
  });
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function demo(): Promise<void> {
  const logger = pino({ base: undefined }, pino.destination({ sync: true }));
  const stop = logSeawallEvents(logger);
  const policy = new RetryPolicy({ maxAttempts: 3, backoff: { kind: 'full-jitter', base: '10ms', cap: '50ms' } });

  // An upstream that answers 503 twice, then 200; /down always 503.
  let hits = 0;
  const upstream = createServer((req, res) => {
    res.statusCode = req.url === '/down' || ++hits <= 2 ? 503 : 200;
    res.end();
  });
  // A Seawall-protected service with one worker and no queue: a second concurrent request is shed.
  const service = createServer(
    seawallHandler((_req, res) => setTimeout(() => res.end('ok'), 100), {
      workers: 1,
      queueLimit: 0,
      name: 'member-api',
    }),
  );
  const upstreamUrl = await listen(upstream);
  const serviceUrl = await listen(service);
  try {
    const fetch = createFetch({ policy, upstream: 'coupon-api', telemetry: false });
    await fetch(`${upstreamUrl}/coupons`); // two retries, then 200
    await fetch(`${upstreamUrl}/down`); // two retries, then a give-up (attempts-exhausted)
    await Promise.all([
      fetch(serviceUrl, { seawall: { maxAttempts: 1 } }),
      fetch(serviceUrl, { seawall: { maxAttempts: 1 } }),
    ]);

    let tries = 0;
    const db = createExecutor({ policy, upstream: 'member-db' });
    await db.execute(() => {
      if (++tries === 1)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      return 'row';
    });
  } finally {
    stop();
    upstream.closeAllConnections();
    service.closeAllConnections();
    await Promise.all([upstream, service].map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

await demo();
