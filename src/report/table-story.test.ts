// The table tells the story alone: footnotes for its figures, a late recovery said in words, ties named, one load figure.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { loadFigure } from './after-trigger.js';
import type { SimulationResult } from './result.js';
import { summaryTableHtml } from './summary-table.js';
import { formatSummaryTable } from './table.js';
import { verdictRows, verdictTableHtml } from './verdict.js';

/** FIXTURE: windows after 15-20 s, the trigger ends at 15 s; good recovers at `recoveryS`. */
function withRecovery(recoveryS: number, afterSuccess: number): SimulationResult {
  const result = fixtureResult();
  const good = result.runs.find((r) => r.variant === 'good');
  if (good === undefined) throw new Error('fixture has no good');
  good.recoverySeconds = recoveryS;
  good.successRate.after = afterSuccess;
  return result;
}

describe('footnotes', () => {
  it('explains recovery s and wasted % under the table', () => {
    const out = formatSummaryTable(fixtureResult()).replace(/\n {2}/g, ' ');
    expect(out).toContain("recovery s: seconds from the trigger's end until success is back to 95 % of its level");
    expect(out).toContain("wasted %: share of member-api's executions whose answer nobody was waiting for any more.");
  });
});

describe('a late recovery', () => {
  it('is marked late, in words, when it came only after the after-trigger window ended', () => {
    const out = formatSummaryTable(withRecovery(6, 0));
    expect(out).toMatch(/^good .* 6\.0 late /m);
    expect(out.replace(/\n {2}/g, ' ')).toContain('late: recovered only after the after window ended');
  });

  it('is not marked when it came within the window', () => {
    const out = formatSummaryTable(withRecovery(2, 0.9));
    expect(out).not.toMatch(/\blate\b/);
  });

  it('says so beside the ✓ in the report verdict', () => {
    const result = withRecovery(6, 0);
    const rows = verdictRows(result, [{ name: 'all', variants: ['bad', 'good'] }], { deepest: 'member-api' });
    const html = verdictTableHtml(result, rows, { deepest: 'member-api', styles: {} });
    expect(html).toContain('recovers in 6.0 s <small>(late: after the after window)</small>');
  });
});

describe('ties', () => {
  it('names the variants that recover alike after the trigger: the table cannot tell them apart', () => {
    const result = fixtureResult();
    const bad = result.runs.find((r) => r.variant === 'bad');
    const good = result.runs.find((r) => r.variant === 'good');
    if (bad === undefined || good === undefined) throw new Error('fixture');
    Object.assign(bad, { recoverySeconds: good.recoverySeconds, successRate: { ...good.successRate } });
    const out = formatSummaryTable(result).replace(/\n {2}/g, ' ');
    expect(out).toMatch(
      /bad and good tie here \(99\.5 % after, recovery \S+ s\): this scenario does not tell them apart\./,
    );
    expect(formatSummaryTable(fixtureResult())).not.toContain('tie here');
  });
});

describe('the load column', () => {
  it('is as wide as its figures: its label "member-api load" runs on over the columns after it', () => {
    const out = formatSummaryTable(fixtureResult(), { maxWidth: 80 });
    expect(out).toMatch(/ {2}after {2}after {2}recovery s {2}wasted %\n/);
    expect(out).toMatch(/success % {14}member-api load\n/);
  });
});

describe('one name and one figure for the load', () => {
  it('the report summary table shows the load the terminal and the verdict show (after the trigger), not the total', () => {
    const result = fixtureResult();
    expect(loadFigure(result)).toEqual({ window: 'after', when: 'after the trigger' });
    const html = summaryTableHtml(result);
    expect(html).toContain('load, after the trigger');
    expect(html).toContain('<td>16.00</td>');
    expect(html).not.toContain('12.40');
    expect(formatSummaryTable(result)).toMatch(/member-api load/);
    const rows = verdictRows(result, [{ name: 'all', variants: ['bad', 'good'] }], { deepest: 'member-api' });
    expect(verdictTableHtml(result, rows, { deepest: 'member-api', styles: {} })).toContain('member-api load<br>');
  });
});
