// Tests for the terminal summary table, on a hand-built FIXTURE result (not simulator output).
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { formatPercent, formatRecovery, formatSummaryTable, renderTextTable, summaryColumns } from './table.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes is the point
const ANSI_ESCAPE = /\x1b\[/;

describe('formatSummaryTable (fixture result)', () => {
  const text = formatSummaryTable(fixtureResult({ seeds: [1, 2] }));
  const lines = text.trimEnd().split('\n');

  it('prints a headline naming the scenario, its windows and the engine effort', () => {
    expect(lines[0]).toBe(
      'fixture-checkout: 30 s simulated; windows before 5-10 s, during 10-15 s, after 15-20 s; 4 runs, 1,234,567 events in 0.32 s',
    );
  });

  it('has one row per variant × seed, in the result order', () => {
    const rows = lines.slice(4).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['bad 1', 'bad 2', 'good 1', 'good 2']);
  });

  it('groups the columns: success and p99 per window, amplification per service, recovery and waste', () => {
    expect(lines[2]).toMatch(/success %\s+p99 ms\s+amplification \(total\)/);
    expect(lines[3]?.split(/\s{2,}/)).toEqual([
      'variant',
      'seed',
      'before',
      'during',
      'after',
      'before',
      'during',
      'after',
      'checkout-bff',
      'coupon-api',
      'member-api',
      'recovery s',
      'wasted %',
    ]);
  });

  it('formats the figures: percent with one decimal, p99 in whole ms, ratios with two decimals, never for null', () => {
    expect(lines[4]?.trim().split(/\s+/)).toEqual([
      'bad',
      '1',
      '99.0',
      '1.0',
      '1.2',
      '120',
      '2000',
      '2000',
      '1.00',
      '3.20',
      '12.40',
      'never',
      '73.7',
    ]);
    expect(lines[6]?.trim().split(/\s+/)).toEqual([
      'good',
      '1',
      '99.0',
      '42.0',
      '99.5',
      '120',
      '752',
      '130',
      '1.00',
      '1.05',
      '1.06',
      '0.5',
      '0.8',
    ]);
  });

  it('right-aligns numbers: every row ends in the same column as the header', () => {
    const width = lines[3]?.length;
    for (const line of lines.slice(4)) expect(line.length).toBe(width);
  });

  it('uses no colour unless asked, and ANSI colour when asked', () => {
    expect(text).not.toMatch(ANSI_ESCAPE);
    const coloured = formatSummaryTable(fixtureResult(), { color: true });
    expect(coloured).toMatch(ANSI_ESCAPE);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI escapes
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(formatSummaryTable(fixtureResult()));
  });

  it('neutralises control characters in names taken from a scenario file', () => {
    const out = formatSummaryTable(fixtureResult({ hostileVariant: 'evil\x1b[2Jname\n' }));
    expect(out).not.toMatch(ANSI_ESCAPE);
    expect(out).toContain('evil?[2Jname?');
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

  it('derives its columns from the result (windows and services)', () => {
    const columns = summaryColumns(fixtureResult());
    expect(columns.filter((c) => c.group === 'amplification (total)').map((c) => c.header)).toEqual([
      'checkout-bff',
      'coupon-api',
      'member-api',
    ]);
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
