// Why each surviving mutant of the issue #12 policies (breaker) is equivalent: [mark, reason]
// (the `@eq` mark on the mutated line: tools/docs/mutation-doc.ts).

export const BREAKER_REASONS: [string, string][] = [
  [
    'breaker-head',
    'when the position falls in the newest bucket the loop below empties nothing and the head stays: the same as the early return',
  ],
  [
    'breaker-math-max-head-buckets',
    'starting two buckets earlier only empties slots the same loop empties anyway (bucket i and i + buckets share a slot): a slot emptied twice subtracts nothing the second time',
  ],
  [
    'breaker-current-open-openuntilms-infinity',
    'openUntilMs is Infinity in every state but open (half-opening sets it so, and a circuit closes only from half-open), so the test restates it',
  ],
  [
    'breaker-ratetrips-rate-calls-rate',
    'the window exists exactly when the failure rate is on (the constructor builds one from the other), so either null test alone decides: the pair is for the type checker',
  ],
];
