// Knock-outs of issue #26's guard events, execute() inside a hop, the README's policy and the quiet callee.

import type { Knockout } from './knockout.js';

const README_BLOCK = [
  "ts\nimport { Agent } from 'undici';",
  "import { RetryPolicy, createFetch, retryInterceptor } from 'seawall';",
  '',
  'const policy = new RetryPolicy({',
  "  maxAttempts: 3, perTryTimeout: '600ms', deadline: { patience: '2s', margin: '100ms' },   // 3 × 600 ms fit in 2 s",
  "  backoff: { kind: 'full-jitter', base: '50ms', cap: '500ms' },",
  "  budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 },",
  "  retryOn: ['timeout', 'connect-failure', ",
].join('\n');

export const EVENTS2_KNOCKOUTS: Knockout[] = [
  {
    id: 'readme-retry-on-reset',
    mechanism: "the README's recommended policy retries a GET whose instance died mid-request (reset in retryOn)",
    mark: 'readme-retry-on-reset',
    find: `${README_BLOCK}'reset', `,
    replace: README_BLOCK,
    tests: ['test/docs/readme-policy.test.ts'],
  },
];
