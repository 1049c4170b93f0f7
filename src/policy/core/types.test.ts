// The give-up set beside the stop reasons (types.ts GIVE_UP_REASONS): which stops are a give-up, decided once.

import { describe, expect, it } from 'vitest';
import { GIVE_UP_REASONS, isGiveUp, STOP_REASONS, type StopReason } from './types.js';

describe('GIVE_UP_REASONS', () => {
  // docs/events.md: a give-up is the policy stopping to retry a failure it would have retried.
  it.each<[StopReason, boolean]>([
    ['succeeded', false],
    ['not-retryable', false],
    ['unsafe-to-retry', false], // the request's traits forbid a replay: the response is the answer
    ['body-not-replayable', true],
    ['attempts-exhausted', true],
    ['budget-exhausted', true],
    ['server-pushback', true],
    ['deadline-would-pass', true],
    ['deadline-exceeded', true],
    ['aborted', false],
    ['unclaimed-error', false], // the hop below retried it and gave up itself: one give-up, not one per layer
    ['one-layer', true], // the one-layer rule forbade the retry (the outermost hop retries)
    ['refused', true], // a local guard refused the attempt, the first one too (docs/events.md)
  ])('%s is a give-up: %s', (reason, giveUp) => {
    expect(isGiveUp(reason)).toBe(giveUp);
  });

  it('decides every stop reason (a new one must be placed here)', () => {
    expect([...GIVE_UP_REASONS].every((r) => STOP_REASONS.includes(r))).toBe(true);
    expect(STOP_REASONS).toHaveLength(13);
  });
});
