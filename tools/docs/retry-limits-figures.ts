// The figures of docs/policy.md's retry limits: Brooker's bucket and retry breaker, the rate budget, on the policy alone.
// Run: npx tsx tools/docs/retry-limits-figures.ts   (src/policy/retry/retry-limits.papers.test.ts asserts them)

import { fileURLToPath } from 'node:url';
import { createRandom, type Random } from '../../src/policy/core/random.js';
import { RetryPolicy } from '../../src/policy/retry/retry.js';
import type { RetryPolicyConfig } from '../../src/policy/retry/retry-config.js';

/** maxAttempts of every policy here: N = 2 retries, so the plain policy retries p + p² per request. */
export const ATTEMPTS = 3;

export function policyOf(config: RetryPolicyConfig, seed = 7): RetryPolicy {
  return new RetryPolicy({ maxAttempts: ATTEMPTS, backoff: 'none', ...config }, { random: createRandom(seed) });
}

/**
 * Sends `requests` calls, one every `gapMs` from `startMs`, through `policy`; each attempt fails (503) with
 * probability `pFail`, drawn from `failures`. Returns the retries sent and the retry chances (failed attempts
 * before the last allowed one).
 */
export function drive(
  policy: RetryPolicy,
  requests: number,
  pFail: number,
  failures: Random,
  gapMs: number,
  startMs = 0,
) {
  let chances = 0;
  for (let i = 0; i < requests; i++) {
    const now = startMs + i * gapMs;
    const call = policy.start(now);
    for (let attempt = 1; ; attempt++) {
      call.beginAttemptMs(now);
      const fails = failures.next() < pFail;
      if (fails && attempt < ATTEMPTS) chances++;
      if (call.onOutcomeMs({ kind: 'response', status: fails ? 503 : 200 }, now) < 0) break;
    }
  }
  return { retries: policy.stats().retries, chances };
}

/** Retries per request over 100,000 requests (one every 10 ms) at failure probability p, seed 42. */
export function retriesPerRequest(budget: RetryPolicyConfig['budget'], p: number): number {
  return drive(policyOf({ budget }), 100_000, p, createRandom(42), 10).retries / 100_000;
}

/**
 * The share of retry chances taken, for `clients` callers each with its own breaker (and no budget), together
 * sending 100 requests a second for 300 s at failure probability p (seed 11).
 */
export function retriedShare(clients: number, p: number, breaker: RetryPolicyConfig['retryBreaker']): number {
  const failures = createRandom(11);
  const gapMs = 10 * clients; // each client's own rate: 100 / clients a second
  let retries = 0;
  let chances = 0;
  for (let i = 0; i < clients; i++) {
    const r = drive(
      policyOf({ budget: false, retryBreaker: breaker }, i),
      30_000 / clients,
      p,
      failures,
      gapMs,
      i * 10,
    );
    retries += r.retries;
    chances += r.chances;
  }
  return retries / chances;
}

export const BROOKER_BUCKET = {
  kind: 'deposit-bucket',
  deposit: 0.1,
  cost: 1,
  maxTokens: 10,
  startFull: true,
} as const;
export const BROOKER_BREAKER = { failureRate: 0.2, window: '10s' } as const;
export const FAILURE_RATES = [0.01, 0.05, 0.1, 0.2, 0.5];
export const BREAKER_RATES = [0.05, 0.1, 0.15, 0.2, 0.25];

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The two tables of docs/policy.md. */
export function figures(): string {
  const f3 = (x: number) => x.toFixed(3);
  const bucket = table(
    [
      'failure rate',
      'no budget',
      'deposit bucket 0.1 / 1 / 10',
      'token bucket 10 / 0.1',
      'rate budget 20/s (100 calls/s)',
    ],
    FAILURE_RATES.map((p) => [
      `${p * 100} %`,
      f3(retriesPerRequest(false, p)),
      f3(retriesPerRequest(BROOKER_BUCKET, p)),
      f3(retriesPerRequest({ kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 }, p)),
      f3(retriesPerRequest({ kind: 'rate', perSecond: 20 }, p)),
    ]),
  );
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const breaker = table(
    ['failure rate', '1 client at 100/s', '10 clients at 10/s', '100 clients at 1/s'],
    BREAKER_RATES.map((p) => [
      `${p * 100} %`,
      pct(retriedShare(1, p, BROOKER_BREAKER)),
      pct(retriedShare(10, p, BROOKER_BREAKER)),
      pct(retriedShare(100, p, BROOKER_BREAKER)),
    ]),
  );
  return `${bucket}\n\n${breaker}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(figures());
