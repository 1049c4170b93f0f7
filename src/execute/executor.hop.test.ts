// execute() inside a request from a Seawall hop, over real loopback HTTP: a database's refusal is retried where it runs.
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Loopback, listenLoopback } from '../../test/support/loopback.js';
import { currentContext } from '../driver/context.js';
import type { SeawallError } from '../driver/errors.js';
import { createFetch } from '../http/client/fetch.js';
import { seawallHandler } from '../http/server/node.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import type { ExecuteClassifier } from './classify.js';
import { createExecutor } from './executor.js';

/** PostgreSQL's serialization failure: the transaction was rolled back, nothing was done. */
function serializationFailure(): Error {
  return Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
}

/** docs/execute.md's PostgreSQL classifier, cut to what the test needs. */
const classifyPg: ExecuteClassifier = (attempted) => {
  if (!attempted.thrown) return 'success';
  return (attempted.error as { code?: unknown }).code === '40001' ? 'retry' : undefined;
};

const quick = (maxAttempts: number) =>
  new RetryPolicy({ maxAttempts, budget: false, backoff: { kind: 'full-jitter', base: 1, cap: 5 } });

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * member-api: a Seawall server whose handler runs a "transaction" under execute(), failing with 40001 `conflicts`
 * times; it answers 200 with the attempts, or 500 with the SeawallError's reason and attempts.
 */
async function memberApi(conflicts: number, oneLayer?: boolean): Promise<{ origin: string; seen: boolean[] }> {
  const db = createExecutor({
    policy: quick(3),
    upstream: 'member-db',
    classify: classifyPg,
    ...(oneLayer === undefined ? {} : { oneLayer }),
  });
  const seen: boolean[] = [];
  let runs = 0;
  const handler = seawallHandler(async (_req, res) => {
    seen.push(currentContext()?.fromSeawallHop === true);
    try {
      const attempts = await db.execute(({ attempt }) => {
        if (++runs <= conflicts) throw serializationFailure();
        return attempt;
      });
      res.end(JSON.stringify({ attempts }));
    } catch (error) {
      const e = error as SeawallError;
      res.statusCode = 500;
      res.end(JSON.stringify({ reason: e.reason, attempts: e.attempts }));
    }
  });
  server = await listenLoopback(createServer(handler));
  return { origin: server.origin, seen };
}

// The caller above: a Seawall hop (it sends x-seawall-attempt), making one attempt so the count is member-api's own.
const bff = createFetch({ policy: quick(1), telemetry: false, upstream: 'member-api' });

describe('execute() inside a request from a Seawall hop', () => {
  it('retries a 40001 the classifier calls retry, up to maxAttempts (the database is not a Seawall hop)', async () => {
    const api = await memberApi(2);
    const response = await bff(`${api.origin}/members/7`);
    expect(api.seen).toEqual([true]); // the request did come from a Seawall hop
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ attempts: 3 });
  });

  it('gives up attempts-exhausted after maxAttempts (3), not after 1, when every try conflicts', async () => {
    const api = await memberApi(10);
    const response = await bff(`${api.origin}/members/7`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ reason: 'attempts-exhausted', attempts: 3 });
  });

  it('with oneLayer: true makes one attempt and says so: one-layer, not attempts-exhausted', async () => {
    const api = await memberApi(10, true);
    const response = await bff(`${api.origin}/members/7`);
    expect(await response.json()).toEqual({ reason: 'one-layer', attempts: 1 });
  });
});
