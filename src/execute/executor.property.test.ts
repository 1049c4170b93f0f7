// Property: execute makes no decision of its own — for any run of attempt results it ends as RetryCall, fed directly, does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../test/support/property-runs.js';
import { SeawallError } from '../driver/errors.js';
import type { StopReason } from '../policy/core/types.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { type ExecuteVerdict, verdictOutcome } from './classify.js';
import { execute } from './executor.js';

const VERDICTS: ExecuteVerdict[] = [
  'success',
  'retry',
  'fail',
  { retryAfterMs: 0 },
  { kind: 'reset' },
  { kind: 'reset', stage: 'before-request' },
  { kind: 'timeout' },
  { kind: 'connect-failure' },
  { kind: 'response', status: 500 },
  { kind: 'response', status: 404 },
];

/** The policy of both sides: no waits and no budget, so nothing but the verdicts decides (no jitter draw matters). */
const policy = () => new RetryPolicy({ maxAttempts: 6, backoff: 'none', budget: false, deadline: false });

/** What RetryCall itself decides for these verdicts, attempt after attempt. */
function expected(verdicts: ExecuteVerdict[], idempotent: boolean, maxAttempts: number) {
  const call = policy().start(0, { method: 'execute', idempotent, maxAttempts });
  for (const verdict of verdicts) {
    const plan = call.beginAttempt(0);
    if ('stop' in plan) return { reason: plan.stop, attempts: call.attempts };
    const decision = call.onOutcome(verdictOutcome(verdict), 0);
    if ('stop' in decision) return { reason: decision.stop, attempts: call.attempts };
  }
  throw new Error('ran out of verdicts');
}

describe('execute and RetryCall agree', () => {
  it('ends with the stop reason and attempt count RetryCall gives for the same results', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...VERDICTS), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        async (verdicts, idempotent, maxAttempts) => {
          const want = expected(verdicts, idempotent, maxAttempts);
          let reason: StopReason = 'succeeded';
          let attempts = 0;
          let calls = 0;
          try {
            await execute(
              policy(),
              ({ attempt }) => {
                calls++;
                return attempt;
              },
              { idempotent, maxAttempts, classify: (a) => (a.thrown ? 'fail' : verdicts[(a.value as number) - 1]) },
            );
            attempts = calls;
          } catch (error) {
            expect(error).toBeInstanceOf(SeawallError);
            reason = (error as SeawallError).reason;
            attempts = (error as SeawallError).attempts;
          }
          expect({ reason, attempts }).toEqual(want);
          expect(calls).toBe(want.attempts);
        },
      ),
      propertyRuns(300),
    );
  });
});
