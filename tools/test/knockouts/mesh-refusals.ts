// Knock-outs of issue #24 items 8 and 11: what Envoy and Istio refuse is refused on import, fields read as the meshes
// read them, and lint's worst case with a percent budget's floor.

import type { Knockout } from './knockout.js';

const REFUSALS = ['src/mesh/import.refusals.test.ts'];

export const MESH_REFUSAL_KNOCKOUTS: Knockout[] = [
  {
    id: 'envoy-duration-truncates-to-ms',
    mechanism: 'Envoy durations are read as whole ms, truncated: a 1 ns route timeout is no deadline',
    mark: 'envoy-duration-truncates-to-ms',
    find: 'return read.ok ? Math.floor(read.ms) : 0;',
    replace: 'return read.ok ? read.ms : 0;',
    tests: REFUSALS,
  },
  {
    id: 'envoy-backoff-max-below-base',
    mechanism: 'a retry_back_off whose max_interval is below its base_interval is refused, as Envoy refuses it',
    mark: 'envoy-backoff-max-below-base',
    find: 'if (max < base) {',
    replace: 'if (false) {',
    tests: REFUSALS,
  },
  {
    id: 'envoy-max-ejection-below-base',
    mechanism: 'outlier detection with max_ejection_time below base_ejection_time (or its 30 s default) is refused',
    mark: 'envoy-max-ejection-below-base',
    find: 'if (max < base) {',
    replace: 'if (false) {',
    tests: REFUSALS,
  },
  {
    id: 'istio-duration-at-least-1ms',
    mechanism:
      "Istio's durations under 1 ms (a route timeout of 0s among them) are refused, as its webhook refuses them",
    mark: 'istio-duration-at-least-1ms',
    find: 'if (read.ms < 1) return',
    replace: 'if (read.ms < 0) return',
    tests: REFUSALS,
  },
  {
    id: 'istio-retry-policy-with-zero-attempts',
    mechanism:
      'an Istio retry policy with attempts 0 (or unset) beside perTryTimeout, retryOn or retryRemoteLocalities is refused',
    mark: 'istio-retry-policy-with-zero-attempts',
    find: 'if (set.length > 0) {',
    replace: 'if (false) {',
    tests: REFUSALS,
  },
  {
    id: 'istio-min-retry-concurrency-zero-is-default',
    mechanism: "Istio's retryBudget.minRetryConcurrency 0 is read as Istio writes it: the default 3",
    mark: 'istio-min-retry-concurrency-zero-is-default',
    find: 'minConcurrency: min > 0 ? min : ISTIO_MIN_RETRY_CONCURRENCY,',
    replace: 'minConcurrency: tp.retryBudget.minRetryConcurrency ?? ISTIO_MIN_RETRY_CONCURRENCY,',
    tests: REFUSALS,
  },
  {
    id: 'envoy-export-at-least-1ms',
    mechanism: 'the Envoy export writes a positive duration as at least 1 ms, never one Envoy reads as 0 (off)',
    mark: 'envoy-export-at-least-1ms',
    find: 'return writeProtoDuration(Math.max(ms, 1));',
    replace: 'return writeProtoDuration(Math.max(ms, 1e-6));',
    tests: ['test/mesh/envoy-protos.test.ts'],
  },
  {
    id: 'lint-budget-floor-worst-case',
    mechanism:
      "lint's worst case with a percent budget counts min_retry_concurrency: below min ÷ percent in flight every retry passes",
    mark: 'lint-budget-floor-worst-case',
    find: 'return { worst: r.floor === null ? load : r.attempts, load };',
    replace: 'return { worst: load, load };',
    tests: ['src/mesh/lint/rules.test.ts'],
  },
];
