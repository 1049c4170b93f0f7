// Knock-outs of issue #14's package: the explicit export lists, and the Istio output checked against the published schema.

import type { Knockout } from './knockout.js';

export const SURFACE_KNOCKOUTS: Knockout[] = [
  {
    id: 'surface-policy-explicit',
    mechanism: "seawall/policy exports an explicit list: a module's parse helpers do not leak onto the public surface",
    mark: 'surface-policy-explicit',
    find: "export type { Duration } from './core/duration.js';",
    replace: "export * from './core/duration.js';",
    tests: ['test/surface.test.ts'],
  },
  {
    id: 'surface-http-explicit',
    mechanism: "the drivers' internal metric-name tables stay off the package root",
    mark: 'surface-http-explicit',
    find: "export type { ClientSignals, ClientStats } from '../driver/upstream/stats.js';",
    replace:
      "export type { ClientSignals, ClientStats } from '../driver/upstream/stats.js';\nexport * from '../driver/upstream/telemetry.js';",
    tests: ['test/surface.test.ts'],
  },
  {
    id: 'istio-schema-retry-budget-typed',
    mechanism:
      "Seawall's Istio schema refuses every wrong value Istio's published schema refuses (retryBudget.minRetryConcurrency)",
    mark: 'istio-schema-retry-budget-typed',
    find: '  minRetryConcurrency: positiveInt32.optional(),',
    replace: '  minRetryConcurrency: z.unknown().optional(),',
    tests: ['src/mesh/istio/schema.published.test.ts'],
  },
  {
    id: 'istio-export-published-fields',
    // The models accept unknown fields and Seawall's schema does not type what it never reads: only the record sees it.
    mechanism: "every field the Istio export writes is one Istio's published schema knows and types",
    mark: 'istio-export-published-fields',
    find: 'route: [{ destination: { host: fqdn(edge.to, namespace) } }],',
    replace: 'route: [{ destination: { host: fqdn(edge.to, namespace) }, headers: { seconds: 5 } }],',
    tests: ['src/mesh/istio/schema.published.test.ts'],
  },
];
