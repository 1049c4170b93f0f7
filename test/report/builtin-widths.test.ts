// Every built-in scenario's table fits 80 columns (a terminal of unknown width), with 1 and 3 seeds: its real variant, window and service names,
// under FIXTURE figures chosen to be as wide as the table's cells get (no simulation runs here; the CLI e2e test
// runs the checkout incident for real).
import { describe, expect, it } from 'vitest';
import type { RunSummary, SimulationResult } from '../../src/report/result.js';
import { formatSummaryTable } from '../../src/report/table.js';
import { listBuiltinScenarios, loadScenario } from '../../src/sim/index.js';
import { deepestService } from '../../src/sim/metrics/summary.js';

/** Per seed: 100 %, 0 % and 50 % success, loads of 123.45, 0 and 61.7, one seed never recovering. */
const WIDE = [
  { success: 1, load: 123.45, recovery: 123.4 },
  { success: 0, load: 0, recovery: null },
  { success: 0.5, load: 61.7, recovery: 0 },
];

function widestResult(name: string, seeds: number[]): SimulationResult {
  const scenario = loadScenario(name);
  const windows = Object.fromEntries(
    Object.entries(scenario.windows).map(([w, [from, to]]): [string, [number, number]] => [
      w,
      [from / 1000, to / 1000],
    ]),
  );
  const runs = scenario.variants.flatMap((variant) =>
    seeds.map((seed, i): RunSummary => {
      const figures = WIDE[i % WIDE.length] as (typeof WIDE)[number];
      const perWindow = (x: number) => Object.fromEntries([...Object.keys(windows), 'total'].map((w) => [w, x]));
      return {
        variant: variant.name,
        seed,
        userRequests: 1_000_000,
        successRate: perWindow(figures.success),
        p99Ms: perWindow(12_345),
        goodputPerS: perWindow(12_345.67),
        amplification: Object.fromEntries(variant.model.services.map((s) => [s.name, perWindow(figures.load)])),
        deepestService: variant.model.services[deepestService(variant.model)]?.name ?? '',
        trigger: { startS: 10, endS: 20 },
        recoverySeconds: figures.recovery,
        wastedWorkFraction: figures.success,
        retryRadius: { max: 12, mean: 11.5 },
        edges: {},
      };
    }),
  );
  return {
    scenario: scenario.name,
    durationS: scenario.durationMs / 1000,
    windows,
    engine: { events: 123_456_789, wallMs: 123_456 },
    runs,
    timeseries: [],
  };
}

describe('the summary table of every built-in scenario', () => {
  const names = listBuiltinScenarios();

  it('covers the built-ins', () => {
    expect(names).toContain('checkout-incident');
  });

  it.each(names.flatMap((n) => [[n, [1]] as const, [n, [1, 2, 3]] as const]))(
    'fits 80 columns: %s, seeds %j',
    (name, seeds) => {
      const out = formatSummaryTable(widestResult(name, [...seeds]));
      const widest = Math.max(...out.split('\n').map((l) => l.length));
      expect(widest).toBeLessThanOrEqual(80);
    },
  );
});
