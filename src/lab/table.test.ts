// The lab's terminal table on hand-built FIXTURE comparisons (no lab runs here): 100 columns unless --wide.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import type { RunSummary } from '../sim/metrics/summary.js';
import type { Check } from './compare.js';
import type { LabResult, LabVariantResult } from './run.js';
import { formatLabTable } from './table.js';

const WINDOWS = ['before', 'during', 'after'];

/** FIXTURE: every check compareRuns makes for checkout-incident, with invented lab and simulator figures. */
function variant(name: string, recovers: boolean): LabVariantResult {
  const run = fixtureResult().runs[0] as RunSummary;
  const checks: Check[] = [
    { what: 'recovers', lab: recovers ? 'recovers' : 'never', sim: recovers ? 'recovers' : 'never', ok: true },
    ...WINDOWS.map((w): Check => ({ what: `success ${w}`, lab: 0.999, sim: 1, ok: true })),
    ...WINDOWS.map((w): Check => ({ what: `member-api amplification ${w}`, lab: 15.81, sim: 15.92, ok: true })),
  ];
  return {
    variant: name,
    lab: run,
    sim: run,
    labTimeseries: [],
    simTimeseries: [],
    comparison: { agrees: true, checks },
    errors: [],
  };
}

function labResult(names: string[]): LabResult {
  return {
    scenario: 'checkout-incident',
    scale: 0.1,
    durationS: 120,
    windows: { before: [40, 50], during: [50, 65], after: [65, 80] },
    database: 'throwaway',
    variants: names.map((n, i) => variant(n, i % 2 === 0)),
  };
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
const NAMES = ['bad', 'a-jitter', 'b-bff-only', 'c-circuit-breaker', 'good', 'one-layer-jitter-deadline-header'];

describe('formatLabTable', () => {
  it('fits 100 columns, keeping the verdict, success per window and the load after the trigger', () => {
    const out = formatLabTable(labResult(NAMES));
    expect(widest(out)).toBeLessThanOrEqual(100);
    const header = out.split('\n').find((l) => l.startsWith('variant')) as string;
    expect(header.split(/\s{2,}/)).toEqual(['variant', 'recovers', 'before', 'during', 'after', 'after', 'agrees']);
    expect(out).toContain('recovers/recovers');
    expect(out).toMatch(/Left out to fit 100 columns: member-api × lab\/sim before, member-api × lab\/sim during/);
  });

  it('prints every check with --wide', () => {
    const out = formatLabTable(labResult(NAMES), { wide: true });
    const header = out.split('\n').find((l) => l.startsWith('variant')) as string;
    expect(header.split(/\s{2,}/)).toEqual(['variant', 'recovers', ...WINDOWS, ...WINDOWS, 'agrees']);
    expect(out).toContain('one-layer-jitter-deadline-header');
    expect(out).not.toContain('Left out');
  });
});
