// The lab's report.html: verdict first, each variant a group of two (lab and simulator), the agreement table after it.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { asSimulationResult, labReportHtml } from './report.js';
import type { LabResult } from './run.js';

/** A hand-built LabResult from the report FIXTURE: the lab "measured" the fixture, the simulator predicted the same. */
function labFixture(): LabResult {
  const sim = fixtureResult();
  return {
    scenario: sim.scenario,
    scale: 0.1,
    durationS: sim.durationS,
    windows: sim.windows,
    database: 'throwaway PostgreSQL cluster',
    variants: ['bad', 'good'].map((variant) => {
      const run = sim.runs.find((r) => r.variant === variant);
      if (run === undefined) throw new Error(`fixture has no ${variant}`);
      const rows = sim.timeseries.filter((r) => r.variant === variant);
      return {
        variant,
        lab: run,
        sim: run,
        labTimeseries: rows,
        simTimeseries: rows,
        comparison: { agrees: true, checks: [{ what: 'recovers', lab: 'never', sim: 'never', ok: true }] },
        errors: [],
      };
    }),
  } as LabResult;
}

describe('labReportHtml', () => {
  const html = labReportHtml(labFixture(), { chartJsSource: '', command: 'npx seawall lab x' });

  it('groups each variant with its simulator prediction', () => {
    expect(asSimulationResult(labFixture()).variants?.map((v) => [v.name, v.group])).toEqual([
      ['bad (lab)', 'bad'],
      ['bad (simulator)', 'bad'],
      ['good (lab)', 'good'],
      ['good (simulator)', 'good'],
    ]);
    expect(html.match(/<div class="group-block"/g)).toHaveLength(2);
  });

  it('opens with the verdict table, then the lab-against-simulator checks, then the charts', () => {
    const verdict = html.indexOf('<table class="verdict-table">');
    const checks = html.indexOf('Lab against simulator');
    expect(verdict).toBeGreaterThan(0);
    expect(checks).toBeGreaterThan(verdict);
    expect(html.indexOf('<canvas')).toBeGreaterThan(checks);
    expect(html).toContain('data-variant="bad (lab)" data-verdict="never"');
    expect(html).toContain('data-variant="good (simulator)" data-verdict="recovers"');
  });
});
