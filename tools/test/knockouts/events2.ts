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
  {
    id: 'execute-one-layer-off',
    mechanism: 'execute() inside a request from a Seawall hop retries its own work (a database is not a Seawall hop)',
    mark: 'execute-one-layer-off',
    find: 'export const EXECUTE_ONE_LAYER = false;',
    replace: 'export const EXECUTE_ONE_LAYER = true;',
    tests: ['src/execute/executor.hop.test.ts'],
  },
  {
    id: 'retry-one-layer-stop',
    mechanism: 'a call the one-layer rule held to one attempt stops one-layer, not attempts-exhausted',
    mark: 'retry-one-layer-stop',
    find: "if (this.oneLayerCapped && config.maxAttempts > 1) return this.stop('one-layer');",
    replace: '// (knocked out) the cap reads as attempts-exhausted',
    tests: ['src/policy/retry/retry.one-layer.test.ts'],
  },
  {
    id: 'retry-refused-stop',
    mechanism: 'an attempt a local guard refused (the first one too) ends the call refused, a give-up',
    mark: 'retry-refused-stop',
    find: "if (verdict.reason === 'shed-locally') return this.stop('refused');",
    replace: '// (knocked out) a refusal reads as not-retryable',
    tests: ['src/policy/retry/retry.test.ts'],
  },
  {
    id: 'server-abandoned-quiet',
    mechanism: 'an error caused by the caller abandoning the request (client gone, deadline passed) is not logged',
    mark: 'server-abandoned-quiet',
    find: 'return request !== undefined && request.aborted !== null && causedByAbandonment(error);',
    replace: 'return false;',
    tests: ['test/http/server/abandoned.test.ts'],
  },
  {
    id: 'retry-inbound-deadline-expired',
    mechanism: "a call ended by the inbound request's deadline stops deadline-exceeded, not aborted",
    mark: 'retry-inbound-deadline-expired',
    find: "if (this.stopReason === null) this.end('deadline-exceeded');",
    replace: "if (this.stopReason === null) this.end('aborted');",
    tests: ['test/http/server/abandoned.test.ts'],
  },
  {
    id: 'breaker-changes-recorded',
    mechanism: 'a circuit breaker transition is published on seawall:breaker and to onBreak (exact payload)',
    mark: 'breaker-changes-recorded',
    find: 'this.changes?.add(',
    replace: 'void (',
    tests: ['test/http/client/guard-events.test.ts'],
  },
  {
    id: 'outlier-changes-recorded',
    mechanism: 'an ejection is published on seawall:ejection and to onEject (exact payload)',
    mark: 'outlier-changes-recorded',
    find: 'this.changed(h, true, this.ejectionTimeMs(h));',
    replace: '// (knocked out) not recorded',
    tests: ['test/http/client/guard-events.test.ts'],
  },
  {
    id: 'guard-events-drained',
    mechanism: "the client drains its guards' changes after every pipeline step and publishes them",
    mark: 'guard-events-drained',
    find: 'this.events?.drain(this.name, this.breakerLog, this.ejectionLog);',
    replace: '// (knocked out) never drained',
    tests: ['test/http/client/guard-events.test.ts'],
  },
  {
    id: 'guard-refused-published',
    mechanism: 'an attempt a local guard refused (the first one too) is published on seawall:refused and to onRefused',
    mark: 'guard-refused-published',
    find: 'if (!admitted && events !== null',
    replace: 'if (false && !admitted && events !== null',
    tests: ['test/http/client/guard-events.test.ts'],
  },
  {
    id: 'server-abandoned-deadline-race',
    mechanism:
      "a call's deadline-exceeded at the request's own deadline is the deadline (504), whichever timer fired first",
    mark: 'server-abandoned-deadline-race',
    find: "if (request !== undefined && request.aborted === null && deadlineReached(error, request)) request.abort('deadline');",
    replace: 'void deadlineReached;',
    tests: ['src/http/server/abandoned.test.ts'],
  },
];
