// The verdict table: recovered or not by meaning (never by the size of a number), per variant, grouped, over seeds.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { variantGroups, variantStyles } from './groups.js';
import type { SimulationResult } from './result.js';
import { verdictRows, verdictTableHtml, verdictWindows } from './verdict.js';

const deepest = 'member-api';

function rowsOf(result: SimulationResult) {
  return verdictRows(result, variantGroups(result), { deepest });
}

describe('verdictRows', () => {
  it('says per variant whether it recovers, with success by window and load at the deepest service after', () => {
    const rows = rowsOf(fixtureResult());
    expect(rows.map((r) => [r.group, r.variant, r.verdict, r.recoveryS])).toEqual([
      ['seed', 'bad', 'never', null],
      ['fix', 'good', 'recovers', 0.5],
    ]);
    expect(rows[0]?.success).toEqual({ before: 0.99, during: 0.01, after: 0.0123 });
    expect(rows[0]?.load).toBe(16);
    expect(rows[1]?.load).toBe(1);
    expect(rows[1]?.description).toBe('A variant (recovers: true).');
  });

  it('over several seeds: recovers only if every seed did, "some seeds" if some did; figures are means', () => {
    const result = fixtureResult({ seeds: [1, 2] });
    const good = result.runs.find((r) => r.variant === 'good' && r.seed === 2);
    if (good === undefined) throw new Error('fixture lost its good run');
    good.recoverySeconds = null;
    good.successRate.after = 0.5;
    const rows = rowsOf(result);
    expect(rows.find((r) => r.variant === 'good')).toMatchObject({ verdict: 'some-seeds', recovered: 1, seeds: 2 });
    expect(rows.find((r) => r.variant === 'good')?.success.after).toBeCloseTo((0.995 + 0.5) / 2, 9);
  });

  it("has no recovery verdict where the summary says there was no trigger (not 'never')", () => {
    const result = fixtureResult();
    for (const run of result.runs) {
      run.trigger = null;
      run.recoverySeconds = null;
    }
    expect(rowsOf(result).map((r) => r.verdict)).toEqual(['no-trigger', 'no-trigger']);
    // One variant without faults beside one with them: each judged by its own runs.
    const mixed = fixtureResult();
    const bad = mixed.runs.find((r) => r.variant === 'bad');
    if (bad === undefined) throw new Error('fixture lost its bad run');
    bad.trigger = null;
    expect(rowsOf(mixed).map((r) => r.verdict)).toEqual(['no-trigger', 'recovers']);
  });

  it('shows before, during and after when the scenario has them, else its windows', () => {
    expect(verdictWindows(fixtureResult())).toEqual(['before', 'during', 'after']);
    expect(verdictWindows({ windows: { steady: [1, 2] } })).toEqual(['steady']);
  });
});

describe('verdictTableHtml', () => {
  const result = fixtureResult();
  const groups = variantGroups(result);
  const html = verdictTableHtml(result, rowsOf(result), { deepest, styles: variantStyles(groups) });

  it('has a group row, then a row per variant marked recovered or not', () => {
    expect(html.match(/<tr class="group-row">/g)).toHaveLength(2);
    expect(html).toContain('<tr class="variant-row" data-variant="bad" data-verdict="never">');
    expect(html).toContain('<tr class="variant-row" data-variant="good" data-verdict="recovers">');
    expect(html).toContain('<td class="verdict never"><span class="mark">✗</span> never recovers</td>');
    expect(html).toContain('<td class="verdict recovers"><span class="mark">✓</span> recovers in 0.5 s</td>');
  });

  it('colours the verdict, not the numbers: a low success during the trigger is no red mark on a variant that recovers', () => {
    const goodRow = html.split('\n').find((line) => line.includes('data-variant="good"')) ?? '';
    expect(goodRow).toContain('42.0 %');
    expect(goodRow).not.toMatch(/class="[^"]*\b(bad|never)\b/);
    const badRow = html.split('\n').find((line) => line.includes('data-variant="bad"')) ?? '';
    expect(badRow.match(/class="[^"]*\bnever\b/g)).toHaveLength(1);
  });
});
