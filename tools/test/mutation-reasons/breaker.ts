// Why each surviving mutant of the issue #12 policies (breaker) is equivalent: [mark, reason]
// (the `@eq` mark on the mutated line: tools/docs/mutation-doc.ts).

export const BREAKER_REASONS: [string, string][] = [
  [
    'breaker-head',
    'when the position falls in the newest bucket the loop below empties nothing and the head stays: the same as the early return',
  ],
  [
    'breaker-ratetrips-rate-calls-rate',
    'the window exists exactly when the failure rate is on (the constructor builds one from the other), so either null test alone decides: the pair is for the type checker',
  ],
];
