// FIXTURE for report tests: a hand-built SimulationResult (invented numbers, not simulator output).
import type { RunSummary, SimulationResult, TimeseriesRow } from '../../src/report/result.js';

const SERVICES = ['checkout-bff', 'coupon-api', 'member-api'] as const;

/** Fixture run: a variant whose shape is given by hand (the numbers mean nothing beyond the tests). */
function fixtureRun(variant: string, seed: number, recovers: boolean): RunSummary {
  return {
    variant,
    seed,
    userRequests: 14_000,
    successRate: { before: 0.99, during: recovers ? 0.42 : 0.01, after: recovers ? 0.995 : 0.0123 },
    p99Ms: { before: 120.4, during: recovers ? 752 : 2000, after: recovers ? 130 : 2000 },
    goodputPerS: { before: 693, during: recovers ? 294 : 7, after: recovers ? 696.5 : 8.6 },
    amplification: {
      'checkout-bff': { before: 1, during: 1, after: 1, total: 1 },
      'coupon-api': { before: 1.01, during: recovers ? 1.2 : 4, after: recovers ? 1 : 4, total: recovers ? 1.05 : 3.2 },
      'member-api': {
        before: 1.02,
        during: recovers ? 1.2 : 16,
        after: recovers ? 1 : 16,
        total: recovers ? 1.06 : 12.4,
      },
    },
    deepestService: 'member-api',
    trigger: { startS: 10, endS: 15 },
    recoverySeconds: recovers ? 0.5 : null,
    wastedWorkFraction: recovers ? 0.008 : 0.737,
    retryRadius: { max: 0, mean: 0 },
    edges: {},
  };
}

/** Fixture time series: 1 s bins over 30 s; the trigger (10-15 s) hurts both variants, only `good` comes back. */
function fixtureSeries(variant: string, seed: number, recovers: boolean): TimeseriesRow[] {
  const rows: TimeseriesRow[] = [];
  for (let t = 0; t < 30; t++) {
    const inTrigger = t >= 10 && t < 15;
    const broken = inTrigger || (!recovers && t >= 10);
    const success = broken ? (recovers ? 0.42 : 0.01) : 0.99;
    SERVICES.forEach((service, depth) => {
      const fanOut = broken && !recovers ? 4 ** depth : 1;
      rows.push({
        variant,
        seed,
        t,
        service,
        arrivals: 700 * fanOut + seed + depth,
        successRate: service === 'checkout-bff' ? success : null,
        goodput: service === 'checkout-bff' ? Math.round(700 * success) : null,
        queueLength: service === 'member-api' && broken ? (recovers ? 200 : 5000 + 100 * t) : 0,
        inFlight: 50,
        wasted: service === 'member-api' && broken && !recovers ? 250 : 0,
        budgetTokens: service === 'checkout-bff' && recovers ? (inTrigger ? 5.4 : 10) : null,
      });
    });
  }
  return rows;
}

/** A hand-built result: variants `bad` and `good` (and optionally a hostile name), the given seeds. */
export function fixtureResult(options: { seeds?: number[]; hostileVariant?: string } = {}): SimulationResult {
  const seeds = options.seeds ?? [1];
  const variants: [string, boolean][] = [
    ['bad', false],
    ['good', true],
  ];
  if (options.hostileVariant !== undefined) variants.push([options.hostileVariant, true]);
  const runs: RunSummary[] = [];
  const timeseries: TimeseriesRow[] = [];
  for (const [variant, recovers] of variants) {
    for (const seed of seeds) {
      runs.push(fixtureRun(variant, seed, recovers));
      timeseries.push(...fixtureSeries(variant, seed, recovers));
    }
  }
  return {
    scenario: 'fixture-checkout',
    description: 'A hand-built fixture: <three> services & a 5 s trigger.',
    durationS: 30,
    windows: { before: [5, 10], during: [10, 15], after: [15, 20] },
    variants: variants.map(([name, recovers]) => ({
      name,
      group: name === 'bad' ? 'seed' : recovers && name === 'good' ? 'fix' : 'other ideas',
      description: `${name === 'bad' ? 'The seed' : 'A variant'} (recovers: ${recovers}).`,
    })),
    engine: { events: 1_234_567, wallMs: 321.5 },
    runs,
    timeseries,
  };
}
