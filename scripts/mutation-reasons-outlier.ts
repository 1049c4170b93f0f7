// Why each surviving mutant of the issue #12 policies (outlier) is equivalent: [file, a fragment of the mutated line, reason].

export const OUTLIER_REASONS: [string, string, string][] = [
  [
    'outlier.ts',
    'if (VERDICT_RANK[v] > VERDICT_RANK[verdict]) verdict = v;',
    'the 5xx check meets the same limit as the gateway check before it (which, had it ejected, stops the 5xx check), so its verdict never ranks lower, and an equal rank is the same verdict',
  ],
  [
    'outlier.ts',
    'if (h.ejected || h.unejectedAtMs === null || h.multiplier === 0) continue;',
    'a host not ejected with a multiplier above 0 was un-ejected, which set unejectedAtMs, so the null test (there for the type checker) never decides',
  ],
  [
    'outlier.ts',
    'if (n < cfg.successRateMinimumHosts && n < cfg.failurePercentageMinimumHosts) return;',
    "a shortcut (Envoy's early exit): with fewer tracked hosts than both minimums fewer are analysable, so both analyses are skipped below anyway",
  ],
  [
    'outlier.ts',
    'for (let i = 0; i < srHosts.length; i++) {',
    'one step past the end reads an undefined rate, and `undefined < threshold` is false, so nothing more is detected',
  ],
  [
    'outlier.ts',
    'if (oldest !== undefined) this.forget(oldest);',
    'evictOne runs only when the map holds maxHosts (at least 1) hosts, so the loop returns or sets oldest: the test is for the type checker',
  ],
  [
    'outlier-config.ts',
    'if (maxMs !== undefined && baseMs !== undefined && maxMs < baseMs) {',
    'a comparison with an undefined duration (one already reported) is false, so the undefined tests, there for the type checker, never decide',
  ],
];
