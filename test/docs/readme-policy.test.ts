// The README's recommended RetryPolicy, run against a real server killed mid-request: its retryOn keeps `reset`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch, SeawallError } from '../../src/http/index.js';
import { type RetryCondition, RetryPolicy } from '../../src/policy/index.js';
import { startServer, type TestServer } from '../support/loopback.js';
import { ROOT } from './blocks.js';

/** The retryOn of the first block under "## Protect outbound calls" in README.md, as written. */
function readmeRetryOn(): RetryCondition[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Protect outbound calls'));
  const list = /retryOn: (\[[^\]]*\])/.exec(section)?.[1];
  if (list === undefined) throw new Error('README.md: no retryOn under "## Protect outbound calls"');
  return JSON.parse(list.replaceAll("'", '"')) as RetryCondition[];
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose first request kills its connection once the request has arrived (the instance died mid-request). */
async function killedOnce(): Promise<TestServer> {
  const server = await startServer((req, res, _hit, n) => {
    if (n === 1) req.socket.destroy();
    else res.end('ok');
  });
  servers.push(server);
  return server;
}

const policyWith = (retryOn: RetryCondition[]) =>
  new RetryPolicy({
    maxAttempts: 3,
    perTryTimeout: '600ms',
    backoff: { kind: 'full-jitter', base: 1, cap: 5 },
    retryOn,
  });

describe("the README's recommended policy", () => {
  it('retries a GET whose server was killed mid-request, and it answers 200 on the second attempt', async () => {
    const retryOn = readmeRetryOn();
    expect(retryOn).toContain('reset');
    const server = await killedOnce();
    const fetch = createFetch({ policy: policyWith(retryOn), telemetry: false });
    const response = await fetch(`${server.origin}/coupons`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(server.hits).toHaveLength(2);
  });

  it('(the same server, the list without reset: not-retryable after 1 attempt, the failure the README avoids)', async () => {
    const server = await killedOnce();
    const retryOn = readmeRetryOn().filter((c) => c !== 'reset');
    const fetch = createFetch({ policy: policyWith(retryOn), telemetry: false });
    const error = await fetch(`${server.origin}/coupons`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SeawallError);
    expect((error as SeawallError).reason).toBe('not-retryable');
    expect((error as SeawallError).attempts).toBe(1);
  });
});
