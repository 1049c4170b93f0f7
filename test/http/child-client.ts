// A process that uses Seawall's fetch and undici interceptor against a given server, then stops: it must exit by itself.
import { Agent, request } from 'undici';
import { createFetch, retryInterceptor } from '../../src/http/index.js';
import { RetryPolicy } from '../../src/policy/index.js';

const origin = process.argv[2] as string;
const policy = new RetryPolicy({
  perTryTimeout: 50,
  budget: false,
  backoff: { kind: 'full-jitter', base: 1, cap: 5 },
  deadline: { patience: '60s' },
});
const fetch = createFetch({ policy });
const dispatcher = new Agent().compose(retryInterceptor({ policy }));

await (await fetch(`${origin}/flaky-fetch`)).text(); // 503, a backoff sleep, then 200
await (await request(`${origin}/flaky-undici`, { dispatcher })).body.text();
await fetch(`${origin}/hang`).catch(() => undefined); // per-try timeouts until the attempts run out
await request(`${origin}/hang`, { dispatcher }).catch(() => undefined);
// A fire-and-forget call left sleeping in a 30 s backoff with unrefBackoff: it does not hold the process either.
void createFetch({ policy, unrefBackoff: true })(`${origin}/retry-later`).catch(() => undefined);
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write('done\n');
