// How many cases a property test runs: 10,000 in the suite; fewer under mutation testing, where it runs per mutant.

/** `runs` (10,000 by default), or SEAWALL_PROPERTY_RUNS when set (vitest.policy.config.ts sets it for Stryker). */
export function propertyRuns(runs = 10_000): { numRuns: number } {
  const override = Number(process.env.SEAWALL_PROPERTY_RUNS);
  return { numRuns: Number.isInteger(override) && override > 0 ? Math.min(override, runs) : runs };
}
