// Why each surviving mutant of the issue #12 policies (breaker) is equivalent: [file, a fragment of the mutated line, reason].

export const BREAKER_REASONS: [string, string, string][] = [
  [
    'breaker.ts',
    'if (!(n > this.head)) {',
    'when the position falls in the newest bucket the loop below empties nothing and the head stays: the same as the early return',
  ],
  [
    'breaker.ts',
    'for (let i = Math.max(this.head + 1, n - this.buckets + 1); i <= n; i++) {',
    'starting two buckets earlier only empties slots the same loop empties anyway (bucket i and i + buckets share a slot): a slot emptied twice subtracts nothing the second time',
  ],
  [
    'breaker.ts',
    "return this.current === 'open' ? this.openUntilMs : Infinity;",
    'openUntilMs is Infinity in every state but open (half-opening sets it so, and a circuit closes only from half-open), so the test restates it',
  ],
  [
    'breaker.ts',
    'const rateTrips = w !== null && rate !== null && w.calls >= rate.minimumCalls;',
    'the window exists exactly when the failure rate is on (the constructor builds one from the other), so either null test alone decides: the pair is for the type checker',
  ],
];
