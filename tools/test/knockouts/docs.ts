// Knock-outs of the docs checker (test/docs/): each removes what lets it catch a broken code block.

import type { Knockout } from './knockout.js';

const CHECKERS = ['test/docs/checkers.test.ts'];

export const DOCS_KNOCKOUTS: Knockout[] = [
  {
    id: 'docs-run-loopback-only',
    mechanism: 'a docs program the test runs cannot connect or listen off 127.0.0.1 (the preloaded guard)',
    mark: 'docs-run-loopback-only',
    find: "['--import', 'tsx', '--import', GUARD, file]",
    replace: "['--import', 'tsx', file]",
    tests: CHECKERS,
  },
  {
    id: 'docs-continued-imports-merged',
    mechanism: 'a continued docs block may import again what the block before it imported (the imports are merged)',
    mark: 'docs-continued-imports-merged',
    find: 'if (imports.includes(generated)) continue;',
    replace: '// (knocked out) every import kept',
    tests: CHECKERS,
  },
  {
    id: 'docs-policy-warnings',
    mechanism: "a RetryPolicy config written in the docs fails on Seawall's own warnings, not only on errors",
    mark: 'docs-policy-warnings',
    find: 'for (const issue of [...result.issues, ...result.warnings]) {',
    replace: 'for (const issue of result.issues) {',
    tests: CHECKERS,
  },
  {
    id: 'docs-fragment-read',
    mechanism:
      "a scenario fragment of the docs is read as the top level, not hidden under the base scenario's variants",
    mark: 'docs-fragment-read',
    find: "if (!('variants' in fragment)) delete base.variants;",
    replace: '// (knocked out) the base keeps its variants',
    tests: CHECKERS,
  },
  {
    id: 'docs-scenario-warnings',
    mechanism: "a scenario in the docs fails on the simulator's warnings, not only on its errors",
    mark: 'docs-scenario-warnings',
    find: 'return scenario.warnings.filter((w) => !inherited.has(w))',
    replace: 'return scenario.warnings.filter(() => false)',
    tests: CHECKERS,
  },
];
