// Why each surviving mutant of the issue #12 policies (outlier) is equivalent: [mark, reason]
// (the `@eq` mark on the mutated line: tools/docs/mutation-doc.ts).

export const OUTLIER_REASONS: [string, string][] = [
  [
    'outlier-verdict-rank-verdict-rank',
    'the 5xx check meets the same limit as the gateway check before it (which, had it ejected, stops the 5xx check), so its verdict never ranks lower, and an equal rank is the same verdict',
  ],
  [
    'outlier-ejected-unejectedatms-multiplier',
    'a host not ejected with a multiplier above 0 was un-ejected, which set unejectedAtMs, so the null test (there for the type checker) never decides',
  ],
  [
    'outlier-cfg-successrateminimumhosts-cfg-failurepercentageminimumhosts',
    "a shortcut (Envoy's early exit): with fewer tracked hosts than both minimums fewer are analysable, so both analyses are skipped below anyway",
  ],
  [
    'outlier-srhosts-length',
    'one step past the end reads an undefined rate, and `undefined < threshold` is false, so nothing more is detected',
  ],
  [
    'outlier-oldest-forget-oldest',
    'evictOne runs only when the map holds maxHosts (at least 1) hosts, so the loop returns or sets oldest: the test is for the type checker',
  ],
  [
    'outlier-config-maxms-basems-maxms-basems',
    'a comparison with an undefined duration (one already reported) is false, so the undefined tests, there for the type checker, never decide',
  ],
];
