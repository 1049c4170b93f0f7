// Tests for the terminal summary table, on a hand-built FIXTURE result (not simulator output).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import type { RunSummary, SimulationResult } from './result.js';
import {
  formatPercent,
  formatRecovery,
  formatRunRecovery,
  formatSummaryTable,
  renderTextTable,
  summaryColumns,
} from './table.js';
import { packParts, truncateMiddle, wrapText } from './text-table.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes is the point
const ANSI_ESCAPE = /\x1b\[/;
const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
/** The data rows of a table printed by formatSummaryTable: after the header line, up to the blank line. */
function tableLines(text: string): { header: string[]; rows: string[] } {
  const lines = text.split('\n');
  const headerAt = lines.findIndex((l) => l.startsWith('variant'));
  const end = lines.indexOf('', headerAt);
  return { header: (lines[headerAt] as string).split(/\s{2,}/), rows: lines.slice(headerAt + 1, end) };
}

describe('formatSummaryTable (fixture result)', () => {
  // A 100-column terminal: every default column fits (80 columns is below, with its own tests).
  const text = formatSummaryTable(fixtureResult({ seeds: [1, 2] }), { maxWidth: 100 });
  const lines = text.trimEnd().split('\n');

  it('prints a headline naming the scenario, its windows, the seeds and the engine effort', () => {
    expect(lines[0]).toBe('fixture-checkout: 30 s simulated; windows before 5-10 s, during 10-15 s, after 15-20 s;');
    expect(lines[1]).toBe('  4 runs (seeds 1, 2), 1,234,567 events in 0.32 s');
  });

  it('has one row per variant × seed, in the result order, and a mean row per variant', () => {
    const rows = tableLines(text).rows.map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['bad 1', 'bad 2', 'bad mean', 'good 1', 'good 2', 'good mean']);
  });

  it('shows by default success per window, the deepest service after the trigger, recovery and waste', () => {
    expect(lines[3]).toMatch(/success %\s+member-api load/);
    expect(tableLines(text).header).toEqual([
      'variant',
      'seed',
      'before',
      'during',
      'after',
      'after',
      'recovery s',
      'wasted %',
    ]);
  });

  it('prints the load after the trigger, not the whole run: 16.00 for bad, where the total is 12.40', () => {
    const bad = tableLines(text).rows[0]?.trim().split(/\s+/);
    expect(bad).toEqual(['bad', '1', '99.0', '1.0', '1.2', '16.00', 'never', '73.7']);
    expect(text).not.toContain('12.40');
    expect(text).toContain('member-api load: attempts arriving at member-api per user request, in the after window.');
  });

  it('formats the figures: percent with one decimal, ratios with two, seconds with one', () => {
    expect(tableLines(text).rows[3]?.trim().split(/\s+/)).toEqual([
      'good',
      '1',
      '99.0',
      '42.0',
      '99.5',
      '1.00',
      '0.5',
      '0.8',
    ]);
  });

  it('gives each variant of several seeds a mean±spread row, the spread reaching the farthest seed', () => {
    const result = fixtureResult({ seeds: [1, 2, 3] });
    const runs = result.runs.filter((r) => r.variant === 'good');
    // FIXTURE: three seeds of good with after-trigger load 1.0, 1.2 and 1.5: mean 1.2333, farthest seed 0.2667 away.
    runs.forEach((run, i) => {
      (run.amplification['member-api'] as Record<string, number>).after = [1, 1.2, 1.5][i] as number;
      run.recoverySeconds = [0.5, 1, 3][i] as number;
    });
    const mean = tableLines(formatSummaryTable(result, { maxWidth: 100 })).rows.find((l) => /^good\s+mean/.test(l));
    expect(mean?.trim().split(/\s+/)).toEqual([
      'good',
      'mean',
      '99.0±0.0',
      '42.0±0.0',
      '99.5±0.0',
      '1.23±0.27',
      '≤3.0', // the one verdict over seeds: the slowest seed counts, not the mean
      '0.8±0.0',
    ]);
    expect(formatSummaryTable(result)).toMatch(/spread is the largest distance of a seed\s+from the mean/);
  });

  it('says how many seeds never recovered when only some did', () => {
    const result = fixtureResult({ seeds: [1, 2, 3] });
    const second = result.runs.filter((r) => r.variant === 'good')[1] as RunSummary;
    second.recoverySeconds = null;
    expect(tableLines(formatSummaryTable(result)).rows.find((l) => /^good\s+mean/.test(l))).toContain('1/3 never');
  });

  it('prints no seed column and no mean rows for a single seed', () => {
    const single = formatSummaryTable(fixtureResult());
    expect(tableLines(single).header).not.toContain('seed');
    expect(single).not.toContain('mean');
    expect(single).toContain('(seed 1)');
  });

  it('right-aligns numbers: every row ends in the same column as the header', () => {
    const { rows } = tableLines(text);
    const header = lines.find((l) => l.startsWith('variant')) as string;
    for (const line of rows) expect(line.length).toBe(header.length);
  });

  it('uses no colour unless asked, and ANSI colour when asked', () => {
    expect(text).not.toMatch(ANSI_ESCAPE);
    const coloured = formatSummaryTable(fixtureResult(), { color: true });
    expect(coloured).toMatch(ANSI_ESCAPE);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI escapes
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(formatSummaryTable(fixtureResult()));
  });

  it('neutralises control characters in names taken from a scenario file', () => {
    const out = formatSummaryTable(fixtureResult({ hostileVariant: 'evil\x1b[2Jname\n' }), { wide: true });
    expect(out).not.toMatch(ANSI_ESCAPE);
    expect(out).toContain('evil?[2Jname?');
  });
});

describe('recovery without a trigger', () => {
  it('reads "no trigger", not "never", when the run had no fault to recover from', () => {
    const result = fixtureResult();
    for (const run of result.runs) {
      run.trigger = null;
      run.recoverySeconds = null;
    }
    const out = formatSummaryTable(result);
    expect(tableLines(out).rows.join('\n')).not.toContain('never');
    expect(tableLines(out).rows.every((l) => l.includes('no trigger'))).toBe(true);
    expect(formatRunRecovery({ trigger: null, recoverySeconds: null })).toBe('no trigger');
    expect(formatRunRecovery({ trigger: { startS: 1, endS: 2 }, recoverySeconds: null })).toBe('never');
  });

  it('shows the whole-run load when no window follows the trigger, and says so', () => {
    const result: SimulationResult = { ...fixtureResult(), windows: { steady: [0, 30] } };
    for (const run of result.runs) run.trigger = null;
    const out = formatSummaryTable(result);
    expect(tableLines(out).header).toContain('total');
    expect(out).toMatch(/over the\s+whole run/);
  });
});

describe('--wide', () => {
  const result = fixtureResult({ seeds: [1, 2] });
  for (const run of result.runs) {
    run.edges = {
      'checkout-bff -> coupon-api': { upstreamRqTotal: 10, upstreamRqRetry: 1, retryRatio: 0.1 },
    } as RunSummary['edges'];
  }
  const text = formatSummaryTable(result, { wide: true });

  it('prints every column: success, p99 and goodput per window, every service × every window and total', () => {
    const columns = summaryColumns(result, { wide: true });
    const windows = ['before', 'during', 'after'];
    for (const group of ['success %', 'p99 ms', 'goodput /s']) {
      expect(columns.filter((c) => c.group === group).map((c) => c.header)).toEqual(windows);
    }
    for (const service of ['checkout-bff', 'coupon-api', 'member-api']) {
      expect(columns.filter((c) => c.group === `${service} load`).map((c) => c.header)).toEqual([...windows, 'total']);
    }
    expect(columns.map((c) => c.header)).toEqual(
      expect.arrayContaining(['recovery s', 'wasted %', 'max', 'mean', 'checkout-bff -> coupon-api']),
    );
    expect(tableLines(text).header).toHaveLength(columns.length);
  });

  it('prints the figures the compact table leaves out: p99 and the whole-run load', () => {
    expect(tableLines(text).rows[0]).toContain('12.40');
    expect(tableLines(text).rows[0]).toContain('2000');
    expect(widest(text)).toBeGreaterThan(100);
  });
});

/** A fixture result with `services` services named by `name(i)` and these variant names and seeds. */
function shaped(variants: string[], seeds: number[], services: string[], windows: string[]): SimulationResult {
  const base = fixtureResult().runs[0] as RunSummary;
  const perWindow = (x: number) => Object.fromEntries([...windows, 'total'].map((w) => [w, x]));
  const runs = variants.flatMap((variant) =>
    seeds.map(
      (seed): RunSummary => ({
        ...base,
        variant,
        seed,
        successRate: perWindow(0.987654),
        amplification: Object.fromEntries(services.map((s) => [s, perWindow(15.8123)])),
        deepestService: services[services.length - 1] as string,
      }),
    ),
  );
  const spans = Object.fromEntries(windows.map((w, i): [string, [number, number]] => [w, [i * 10, i * 10 + 10]]));
  return { ...fixtureResult(), scenario: 'shaped', windows: spans, runs, timeseries: [] };
}

describe('fits 80 columns by default (a terminal of unknown width)', () => {
  const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/);

  it('for any variant and service names, 1 or 3 seeds, up to 12 windows (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
        fc.constantFrom([1], [1, 2, 3]),
        fc.uniqueArray(name, { minLength: 1, maxLength: 5 }),
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/), { minLength: 1, maxLength: 12 }),
        (variants, seeds, services, windows) => {
          const out = formatSummaryTable(shaped(variants, [...seeds], services, windows));
          expect(widest(out)).toBeLessThanOrEqual(80);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('says which columns it left out, and keeps variant names apart by their ends', () => {
    const windows = Array.from({ length: 12 }, (_, i) => `window-number-${i}`);
    const out = formatSummaryTable(
      shaped(
        ['one-layer-jitter-deadline-header-budget', 'one-layer-jitter-deadline-header-queue'],
        [1],
        ['member-api'],
        windows,
      ),
    );
    expect(out).toMatch(/Left out to fit 80 columns: success % window-number-\d+/);
    const names = tableLines(out).rows.map((l) => l.split(/\s+/)[0]);
    expect(new Set(names).size).toBe(2);
    expect(names.every((n) => n?.includes('…'))).toBe(true);
  });
});

describe('renderTextTable', () => {
  it('widens a column when its group label is longer than the columns under it', () => {
    const out = renderTextTable(
      [
        { header: 'a', align: 'left' },
        { header: 'b', group: 'a long group label', align: 'right' },
      ],
      [['x', '1']],
    );
    const [group, header, row] = out.trimEnd().split('\n');
    expect(group).toBe('   a long group label');
    expect(header?.length).toBe(group?.length);
    expect(row?.endsWith('1')).toBe(true);
  });

  it('cuts every line at the width when even the columns that must stay do not fit', () => {
    const out = renderTextTable([{ header: 'x'.repeat(150), align: 'left' }], [['y'.repeat(150)]], { maxWidth: 100 });
    expect(widest(out)).toBe(100);
  });
});

describe('text helpers', () => {
  it.each([
    ['short', 10, 'short'],
    ['one-layer-jitter-deadline-header', 14, 'one-lay…header'],
    ['abc', 2, 'a…'],
  ])('truncateMiddle(%s, %i) = %s', (text, width, expected) => {
    expect(truncateMiddle(text, width)).toBe(expected);
    expect(truncateMiddle(text, width).length).toBeLessThanOrEqual(width);
  });

  it('wraps words and parts into the width, indenting the continuation lines', () => {
    expect(wrapText('aaa bbb ccc', 7, '  ')).toEqual(['aaa bbb', '  ccc']);
    expect(wrapText('a-very-long-word', 6)).toEqual(['a-ver…']);
    expect(packParts(['a: 1', 'b 2', 'c 3'], 10)).toEqual(['a: 1; b 2;', '  c 3']);
  });
});

describe('formatters', () => {
  it.each([
    [0.995, '99.5'],
    [1, '100.0'],
    [0, '0.0'],
    [Number.NaN, '-'],
    [undefined, '-'],
  ])('formatPercent(%s) = %s', (input, expected) => {
    expect(formatPercent(input)).toBe(expected);
  });

  it('formats a recovery that never happened as never', () => {
    expect(formatRecovery(null)).toBe('never');
    expect(formatRecovery(1.25)).toBe('1.3');
  });
});
