// docs/results.md's formatter (tools/results-*.ts) on small hand-made results: no simulation runs here.

import { describe, expect, it } from 'vitest';
import type { RunSummary, SimulationResult, TimeseriesRow } from '../../src/sim/index.js';
import {
  Claims,
  mdTable,
  num,
  pct,
  type Results,
  recoveryVerdict,
  zeroStretch,
} from '../../tools/docs/results/format.js';
import { headline } from '../../tools/docs/results/incident.js';

/** FIXTURE: invented figures in the shape of a checkout-incident run. */
function run(variant: string, seed: number, recoverySeconds: number | null, during: number): RunSummary {
  const member = { before: 1.01, during: 3, after: recoverySeconds === null ? 15.8 : 1.01, total: 9.28 };
  return {
    variant,
    seed,
    userRequests: 84_000,
    successRate: { before: 1, during, after: recoverySeconds === null ? 0 : 1 },
    p99Ms: { before: 227, during: 1063.9, after: 250 },
    goodputPerS: { before: 700, during: 300, after: 700 },
    amplification: { 'member-api': member },
    deepestService: 'member-api',
    trigger: { startS: 50, endS: 65 },
    recoverySeconds,
    wastedWorkFraction: 0.622,
    retryRadius: { max: 0, mean: 0 },
    edges: {},
  };
}

function result(runs: RunSummary[], timeseries: TimeseriesRow[] = []): SimulationResult {
  const windows: Record<string, [number, number]> = { before: [40, 50], during: [50, 65], after: [65, 80] };
  return { scenario: 'fixture', durationS: 120, windows, engine: { events: 0, wallMs: 0 }, runs, timeseries };
}

function bin(t: number, successRate: number): TimeseriesRow {
  const rest = { queueLength: 0, inFlight: 0, wasted: 0, budgetTokens: null, arrivals: 700, goodput: 0 };
  return { variant: 'v', seed: 1, t, service: 'checkout-bff', successRate, ...rest };
}

describe('results.md formatting', () => {
  it('formats numbers with thousands separators and a unit, whatever the locale', () => {
    expect(num(1063.9)).toBe('1,064');
    expect(num(6024.4)).toBe('6,024');
    expect(num(-0.0001, 1)).toBe('0.0');
    expect(num(-2.5, 1)).toBe('−2.5');
    expect(pct(0.4071)).toBe('40.7 %');
  });

  it('renders a Markdown table with right-aligned columns and escaped pipes', () => {
    expect(mdTable(['a', 'b'], [['x|y', '1']], [1])).toBe('| a | b |\n| --- | ---: |\n| x\\|y | 1 |');
  });

  it("gives each seed's recovery and flags seeds that disagree", () => {
    const r = result([run('good', 1, 0, 0.4), run('good', 2, 1, 0.4), run('odd', 1, 3, 0.4), run('odd', 2, null, 0)]);
    expect(recoveryVerdict(r, 'good')).toBe('recovers ×2 (0.0 / 1.0 s)');
    expect(recoveryVerdict(r, 'odd')).toBe('**split**: recovers with seed 1, never with 2');
    const calm = result([{ ...run('calm', 1, null, 1), trigger: null }]);
    expect(recoveryVerdict(calm, 'calm')).toBe('no trigger');
  });

  it('measures the stretch of 1 s bins below 5 % success around the end of the trigger', () => {
    const rows = [bin(50, 1), bin(51, 0.01), bin(52, 0), bin(53, 0.02), bin(54, 0.9)];
    expect(zeroStretch(rows, 52)).toEqual({ startS: 51, afterS: 2, totalS: 3 });
    expect(zeroStretch(rows, 54)).toEqual({ startS: 54, afterS: 0, totalS: 0 });
  });

  it('puts one row per variant in the headline table, seed 1, and checks the verdicts it states', () => {
    const variants = ['bad', 'a-jitter', 'b-bff-only'].flatMap((v) => [run(v, 1, null, 0.05), run(v, 2, null, 0.05)]);
    const incident = result([...variants, run('good', 1, 0, 0.407), run('good', 2, 0, 0.41)]);
    const claims = new Claims();
    const text = headline({ seeds: [1, 2], incident } as Results, claims);
    expect(text).toContain(
      '| `good` | 100.0 % | 40.7 % | 100.0 % | 1,064 | 9.28× | 1.01× | 0.0 s | 62.2 % | recovers ×2 (0.0 / 0.0 s) |',
    );
    expect(text).toContain('| `bad` | 100.0 % | 5.0 % | 0.0 % | 1,064');
    expect(claims.broken).toEqual([]);
  });
});
