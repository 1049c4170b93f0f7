// Knock-outs of issue #25 item 9: each algorithm is what its name says (AWS, gRPC A6, Finagle, Envoy), one per rule.

import type { Knockout } from './knockout.js';

export const ALGORITHM_KNOCKOUTS: Knockout[] = [
  {
    id: 'decorrelated-first-from-base',
    mechanism:
      "decorrelated jitter's first retry draws from [base, 3·base] (AWS: sleep starts at base), not exactly base",
    mark: 'decorrelated-first-from-base',
    find: 'const sleepMs = n === 1 ? b.baseMs : previousDelayMs;',
    replace: 'const sleepMs = previousDelayMs;',
    tests: ['src/policy/retry/backoff.decorrelated.test.ts'],
  },
];
