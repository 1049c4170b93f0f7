// A process that uses Seawall's fetch and undici interceptor against a given server, then stops: it must exit by itself.
import { Agent, request } from 'undici';
import { createFetch, retryInterceptor } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';

const origin = process.argv[2] as string;
// A per-try timeout a loaded machine never hits for an answered request (at 50 ms it sometimes did: the flaky call
// used its 3 attempts and the child died); the hanging calls below cut theirs at 50 ms per call.
const policy = new RetryPolicy({
  perTryTimeout: '5s',
  budget: false,
  backoff: { kind: 'full-jitter', base: 1, cap: 5 },
  deadline: { patience: '60s' },
});
const fetch = createFetch({ policy });
const dispatcher = new Agent().compose(retryInterceptor({ policy }));

await (await fetch(`${origin}/flaky-fetch`)).text(); // 503, a backoff sleep, then 200
await (await request(`${origin}/flaky-undici`, { dispatcher })).body.text();
const hang = { perTryTimeout: 50 };
await fetch(`${origin}/hang`, { seawall: hang }).catch(() => undefined); // per-try timeouts until the attempts run out
await request(`${origin}/hang`, { dispatcher, seawall: hang }).catch(() => undefined);
// A fire-and-forget call left sleeping in a 30 s backoff with unrefBackoff: it does not hold the process either.
void createFetch({ policy, unrefBackoff: true })(`${origin}/retry-later`).catch(() => undefined);
await new Promise((resolve) => setTimeout(resolve, 100));
// What happened, from the policy: the server cannot count an attempt cut before its request reached it.
process.stdout.write(`done ${JSON.stringify({ perTryTimeouts: policy.stats().perTryTimeouts })}\n`);
