// Knock-outs of issue #25 items 1 and 3: no answer crashes a call or leaves it pending; a failed TLS handshake is a failed connect.

import type { Knockout } from './knockout.js';

const VERDICTS = ['src/execute/executor.verdicts.test.ts'];
const RESULTS = ['test/http/client/hostile-results.test.ts'];
const TLS = ['test/http/client/tls-handshake.test.ts'];

export const HOSTILE2_CLIENT_KNOCKOUTS: Knockout[] = [
  {
    id: 'execute-verdict-checked',
    mechanism:
      'an Outcome verdict of a wrong shape (retryAfterMs: 100) ends the call with a TypeError naming the field',
    mark: 'execute-verdict-checked',
    find: "if ('kind' in verdict) return checkedOutcome(verdict);",
    replace: "if ('kind' in verdict) return verdict;",
    tests: VERDICTS,
  },
  {
    id: 'client-decision-fault-contained',
    mechanism: 'an outcome the policy throws on still ends the call once (no unhandled rejection, nothing pending)',
    mark: 'client-decision-fault-contained',
    find: 'return this.fault(attempt, outcome, payload, fault);',
    replace: 'throw fault;',
    tests: VERDICTS,
  },
  {
    id: 'retry-after-odd-shapes',
    mechanism: 'the hint parsers read a header value of no header shape (a number) as absent instead of throwing',
    mark: 'retry-after-odd-shapes',
    find: 'Array.isArray(value) ? value : [];',
    replace: 'value;',
    tests: ['src/policy/hop/retry-after.shapes.test.ts'],
  },
  {
    id: 'fetch-result-checked',
    mechanism: "createFetch's fetch option resolving to null or a non-Response ends the call with an error naming it",
    mark: 'fetch-result-checked',
    find: 'this.runner.settle(attempt, LOCAL_ERROR, undefined, error);',
    replace: 'this.onValidResponse(attempt, result as Response);',
    tests: RESULTS,
  },
  {
    id: 'fetch-result-contained',
    mechanism: 'a throw while reading what the fetch option resolved to ends the attempt, never an unhandled rejection',
    mark: 'fetch-result-contained',
    find: 'this.runner.settle(attempt, LOCAL_ERROR, undefined, error);',
    replace: 'throw error;',
    tests: RESULTS,
  },
  {
    id: 'undici-result-checked',
    mechanism: 'a dispatcher below retryInterceptor reporting a head no response has ends the call with a TypeError',
    mark: 'undici-result-checked',
    find: '!Number.isInteger(status) || status < 100 || status > 599 || !Array.isArray(rawHeaders)',
    replace: 'false',
    tests: RESULTS,
  },
  {
    id: 'tls-handshake-connect-failure',
    mechanism: 'a failed TLS handshake is a connect failure: a POST goes to another endpoint, outlier detection ejects',
    mark: 'tls-handshake-connect-failure',
    find: 'if (isHandshakeFailure(code, coded.message)) {',
    replace: 'if (false) {',
    tests: [...TLS, 'src/driver/outcome.handshake.test.ts'],
  },
];
