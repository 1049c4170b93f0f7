// A process that only uses execute (test fixture): retries, a give-up, a caller abort mid-backoff; then it must exit.

import { createExecutor } from '../../src/execute/executor.js';
import { RetryPolicy } from '../../src/policy/retry/retry.js';

const refused = () => Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
const policy = new RetryPolicy({
  maxAttempts: 3,
  perTryTimeout: '20s',
  budget: false,
  backoff: { kind: 'constant', delay: 5 },
});
const executor = createExecutor({ policy, upstream: 'child' });

let calls = 0;
await executor.execute(() => {
  if (++calls < 3) throw refused();
  return 'ok';
});
await executor.execute(() => Promise.reject(refused())).catch(() => {});
// A 20 s backoff sleep cut short by the caller: the sleep's ref'd timer must go with the call.
const slow = createExecutor({
  policy: new RetryPolicy({
    maxAttempts: 2,
    budget: false,
    backoff: { kind: 'constant', delay: '20s' },
    deadline: { patience: '60s' },
  }),
});
const controller = new AbortController();
const sleeping = slow.execute(() => Promise.reject(refused()), { signal: controller.signal }).catch(() => {});
setTimeout(() => controller.abort(), 50);
await sleeping;
const { retries, stops } = slow.stats().policy;
process.stdout.write(`done ${JSON.stringify({ stops: executor.stats().policy.stops, slow: { retries, stops } })}\n`);
