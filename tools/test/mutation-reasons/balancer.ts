// Why each surviving mutant of the issue #12 policies (balancer) is equivalent: [mark, reason]
// (the `@eq` mark on the mutated line: tools/docs/mutation-doc.ts).

export const BALANCER_REASONS: [string, string][] = [
  [
    'balancer-previous-previous-usable-previous',
    'the bounds only restate the usable test: a typed array read outside the list is undefined, never 1, so an out-of-range previous is left alone either way (the usable test and count are killed)',
  ],
  [
    'balancer-index-index-inflight-length',
    'a typed array drops a write outside its bounds (and at a fractional index), so an index the bounds would stop changes no load either way',
  ],
  [
    'balancer-step-step-step',
    'one more step comes back to the cursor’s endpoint, already found unusable at step 0, and pick() only calls this with a usable endpoint, found first',
  ],
  [
    'balancer-count-nthusable',
    'a shortcut: with one usable endpoint the second draw comes out as −1, which names no endpoint and whose load (undefined) never compares less, so the first draw, endpoint 0 of one, is returned anyway (the draws were checked before)',
  ],
  [
    'balancer-usable-length',
    'one more iteration reads the typed array past its end, undefined, never 1: it counts nothing and returns nothing',
  ],
  [
    'balancer-math-min-math-floor',
    'a defensive clamp that never binds: for a draw u < 1 and a whole k, u · k rounds below k (checked at the largest double below 1 for every k up to 1,000,000), so ⌊u · k⌋ ≤ k − 1 already',
  ],
];
