// A process that calls through endpoints, p2c, outlier detection, a circuit breaker and limits, then stops: it must exit by itself.
import { Agent, request } from 'undici';
import { createFetch, retryInterceptor } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';

const [sick, well] = process.argv.slice(2) as [string, string];
const policy = new RetryPolicy({
  budget: false,
  backoff: { kind: 'full-jitter', base: 1, cap: 5 },
  perTryTimeout: '5s',
});
const options = {
  policy,
  endpoints: [sick, well],
  loadBalancer: 'p2c' as const,
  // A sweep falls due during the run (interval 50 ms): sweeps run at pick time, never on a timer.
  outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50, interval: 50, baseEjectionTime: '30s' },
  circuitBreaker: { failureThreshold: 50, breakDuration: '30s' },
  limits: { maxRequests: 4, maxRetries: 2 },
  seed: 3,
} as const;
const fetch = createFetch(options);
const dispatcher = new Agent().compose(retryInterceptor(options));
for (let i = 0; i < 10; i++) await (await fetch('http://svc.invalid/x')).text();
await new Promise((resolve) => setTimeout(resolve, 60));
for (let i = 0; i < 10; i++) await (await request('http://svc.invalid/x', { dispatcher })).body.text();
// A breaker left open with a 30 s break: it holds no timer either.
const tripped = createFetch({
  policy: { maxAttempts: 1 },
  endpoints: [sick],
  circuitBreaker: { failureThreshold: 1, breakDuration: '30s' },
});
await (await tripped('http://svc.invalid/x')).text();
const refused = await tripped('http://svc.invalid/x').then(
  () => 'sent',
  (error: { refusal?: string }) => error.refusal,
);
const stats = fetch.stats().signals;
process.stdout.write(`done ${JSON.stringify({ ejected: stats['outlier_detection.ejections_active'], refused })}\n`);
