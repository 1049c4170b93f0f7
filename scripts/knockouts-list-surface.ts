// Knock-outs of the public surface (issue #14): the explicit export lists keep internal helpers off it.

import type { Knockout } from './knockouts-list.js';

export const SURFACE_KNOCKOUTS: Knockout[] = [
  {
    id: 'surface-policy-explicit',
    mechanism: "seawall/policy exports an explicit list: a module's parse helpers do not leak onto the public surface",
    file: 'src/policy/index.ts',
    find: "export type { Duration } from './duration.js';",
    replace: "export * from './duration.js';",
    tests: ['test/surface.test.ts'],
  },
  {
    id: 'surface-http-explicit',
    mechanism: "the drivers' internal metric-name tables stay off the package root",
    file: 'src/http/index.ts',
    find: "export type { ClientSignals, ClientStats } from './upstream-stats.js';",
    replace:
      "export type { ClientSignals, ClientStats } from './upstream-stats.js';\nexport * from './upstream-telemetry.js';",
    tests: ['test/surface.test.ts'],
  },
];
