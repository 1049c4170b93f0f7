// Policy core benchmarks: ns per decision for budgets, backoff, a whole RetryPolicy cycle and LoadShedder, beside baselines.
import {
  type BackoffConfig,
  backoffDelay,
  createRandom,
  LoadShedder,
  type Outcome,
  PercentBudget,
  RetryPolicy,
  resolveBackoff,
  TokenBucket,
} from '../src/policy/index.js';
import { type BenchCase, type BenchRow, measure } from './harness.js';

/**
 * Baseline: the seed's own retry decision written inline with no abstraction (budget check, full jitter,
 * Retry-After floor, deadline check) — what a hand-rolled helper costs, so Seawall's overhead is visible.
 */
class SeedBaseline {
  tokens = 10;
  decide(failed: boolean, attempt: number, nowMs: number, deadlineMs: number, u: number): number {
    if (!failed) {
      this.tokens = Math.min(10, this.tokens + 0.1);
      return -1;
    }
    this.tokens = Math.max(0, this.tokens - 1);
    if (attempt >= 3 || !(this.tokens > 5)) return -1;
    const wait = u * Math.min(500, 50 * 2 ** attempt);
    return nowMs + wait >= deadlineMs ? -1 : wait;
  }
}

let sink = 0;

function backoffCases(): BenchCase[] {
  const configs: [string, BackoffConfig][] = [
    ['exponential', { kind: 'exponential', base: 50, cap: 500 }],
    ['full-jitter', { kind: 'full-jitter', base: 50, cap: 500 }],
    ['equal-jitter', { kind: 'equal-jitter', base: 50, cap: 500 }],
    ['decorrelated-jitter', { kind: 'decorrelated-jitter', base: 50, cap: 500 }],
    ['envoy', { kind: 'envoy', base: 25 }],
    ['grpc', { kind: 'grpc', initial: 1000, max: 120_000, multiplier: 1.6 }],
  ];
  const random = createRandom(1);
  return configs.map(([name, config]) => {
    const resolved = resolveBackoff(config);
    return {
      name: `backoffDelay ${name}`,
      baseline: 'Math.random() draw',
      run(batch: number) {
        let previous = 0;
        let acc = 0;
        for (let i = 0; i < batch; i++) {
          previous = backoffDelay(resolved, (i & 3) + 1, previous, random.next());
          acc += previous;
        }
        sink += acc;
      },
    };
  });
}

function cycleCases(): BenchCase[] {
  const unavailable: Outcome = { kind: 'response', status: 503 };
  const ok: Outcome = { kind: 'response', status: 200 };
  const policy = new RetryPolicy(
    {
      maxAttempts: 3,
      perTryTimeout: '800ms',
      deadline: { patience: '2s', margin: '100ms' },
      backoff: { kind: 'full-jitter', base: '50ms', cap: '500ms' },
      budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },
      retryOn: ['timeout', 429, 502, 503, 504],
    },
    { random: createRandom(1) },
  );
  const budget = policy.budgetFor('');
  const baseline = new SeedBaseline();
  const random = createRandom(2);
  return [
    {
      name: 'seed baseline: inline budget+jitter decision',
      run(batch: number) {
        let acc = 0;
        for (let i = 0; i < batch; i++) acc += baseline.decide((i & 7) === 0, 1, i, i + 1900, random.next());
        sink += acc;
      },
    },
    {
      name: 'RetryPolicy start→beginAttempt→onOutcome→stop (success)',
      baseline: 'seed baseline: inline budget+jitter decision',
      run(batch: number) {
        let acc = 0;
        for (let i = 0; i < batch; i++) {
          const call = policy.start(i);
          const plan = call.beginAttempt(i);
          if (!('stop' in plan)) acc += plan.perTryTimeoutMs;
          call.onOutcome(ok, i + 1);
        }
        sink += acc;
      },
    },
    {
      name: 'RetryPolicy retry decision: start→attempt→503→retryAfterMs→abort',
      baseline: 'seed baseline: inline budget+jitter decision',
      run(batch: number) {
        let acc = 0;
        for (let i = 0; i < batch; i++) {
          const call = policy.start(i);
          call.beginAttempt(i);
          const d = call.onOutcome(unavailable, i + 1);
          if ('retryAfterMs' in d) acc += d.retryAfterMs;
          call.abort(i + 2);
          // keep the bucket above the threshold so every iteration takes the retry path
          for (let k = 0; k < 10; k++) budget.recordSuccess();
        }
        sink += acc;
      },
    },
    {
      name: 'RetryPolicy 503 → retry → success (two attempts)',
      baseline: 'seed baseline: inline budget+jitter decision',
      run(batch: number) {
        let acc = 0;
        for (let i = 0; i < batch; i++) {
          const call = policy.start(i);
          call.beginAttempt(i);
          const d = call.onOutcome(unavailable, i + 1);
          if ('retryAfterMs' in d) {
            call.beginAttempt(i + 1 + d.retryAfterMs);
            call.onOutcome(ok, i + 2 + d.retryAfterMs);
            acc += d.retryAfterMs;
          }
          for (let k = 0; k < 10; k++) budget.recordSuccess();
        }
        sink += acc;
      },
    },
  ];
}

export async function run(): Promise<BenchRow[]> {
  const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
  const percent = new PercentBudget({ percent: 20, minConcurrency: 3 });
  const primitives: BenchCase[] = [
    {
      name: 'Math.random() draw',
      run(batch) {
        let acc = 0;
        for (let i = 0; i < batch; i++) acc += Math.random();
        sink += acc;
      },
    },
    {
      name: 'TokenBucket onFailure+allowRetry+onSuccess',
      run(batch) {
        for (let i = 0; i < batch; i++) {
          bucket.onFailure();
          if (bucket.allowRetry()) sink++;
          bucket.onSuccess();
        }
      },
    },
    {
      name: 'PercentBudget acquire+release',
      run(batch) {
        for (let i = 0; i < batch; i++) {
          percent.callStarted();
          if (percent.acquireRetry()) percent.retryEnded();
          percent.callEnded();
        }
      },
    },
    ...backoffCases(),
  ];
  const shedder = new LoadShedder<number>({ workers: 50, queueLimit: 200, retryAfter: '200ms' });
  const shedCases: BenchCase[] = [
    {
      name: 'LoadShedder admit+dequeue+onFinish (queued path)',
      run(batch) {
        for (let i = 0; i < batch; i++) {
          const a = shedder.admit(i, i + 1000, i);
          if (a.verdict === 'run') shedder.onFinish();
          else if (a.verdict === 'queued') {
            if (shedder.running >= 50) shedder.onFinish();
            const next = shedder.dequeue(i);
            if (next?.verdict === 'run') shedder.onFinish();
          }
        }
        sink += shedder.queued;
      },
    },
  ];
  // Fill the workers so admissions take the queued path.
  for (let i = 0; i < 50; i++) shedder.admit(0, null, -1);
  return [
    ...(await measure('policy', primitives)),
    ...(await measure('policy', cycleCases())),
    ...(await measure('policy', shedCases)),
  ].map((row) => ({ ...row, sink: sink > -1 ? undefined : sink }));
}
