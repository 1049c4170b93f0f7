// Knock-outs of issue #14's terminal table and scenario checks: the 100-column fit, the load after the trigger,
// the mean rows, "no trigger", variants that name unknown services, and policy problems beside schema problems.

import type { Knockout } from './knockout.js';

export const CLI_KNOCKOUTS: Knockout[] = [
  {
    id: 'table-fits-width',
    mechanism: "the terminal tables (simulate's and the lab's) fit 100 columns: long names cut, columns left out",
    mark: 'table-fits-width',
    find: '  if (totalWidth(widths) > maxWidth) {',
    replace: '  if (false) {',
    tests: ['src/report/table.test.ts', 'test/report/builtin-widths.test.ts', 'src/lab/table.test.ts'],
  },
  {
    id: 'table-names-cut-in-the-middle',
    mechanism: 'a variant name too long for the table keeps its end, so names with a common prefix stay apart',
    mark: 'table-names-cut-in-the-middle',
    find: '    const cut = columns[i]?.shrinkTo !== undefined ? truncateMiddle(text, w) : truncate(text, w);',
    replace: '    const cut = truncate(text, w);',
    tests: ['src/report/table.test.ts'],
  },
  {
    id: 'table-load-after-trigger',
    mechanism: "the table shows the deepest service's load after the trigger (the README's 15.8), not the whole run's",
    mark: 'table-load-after-trigger',
    find: '      formatRatio(loadOf(run, run.deepestService, shape.load)),',
    replace: '      formatRatio(run.amplification[run.deepestService]?.total),',
    tests: ['src/report/table.test.ts'],
  },
  {
    id: 'table-mean-rows',
    mechanism: 'with several seeds each variant gets a mean±spread row',
    mark: 'table-mean-rows',
    find: '    if (runs.length > 1) rows.push(meanRow(runs, shape));',
    replace: '',
    tests: ['src/report/table.test.ts'],
  },
  {
    id: 'table-no-trigger',
    mechanism: 'a run without faults reads "no trigger" for recovery, not "never"',
    mark: 'table-no-trigger',
    find: "  return run.trigger === null ? 'no trigger' : formatRecovery(run.recoverySeconds);",
    replace: '  return formatRecovery(run.recoverySeconds);',
    tests: ['src/report/table.test.ts'],
  },
  {
    id: 'summary-trigger',
    mechanism: 'the summary reports the trigger (null without faults, or when they start after the run)',
    mark: 'summary-trigger',
    find: '  const faults = allFaults.filter((f) => f.startMs < durationMs);',
    replace: '  const faults = allFaults;',
    tests: ['src/sim/model/model.test.ts'],
  },
  {
    id: 'lab-no-trigger',
    mechanism: 'the one verdict over seeds (lab, report, table) reads "no trigger" as its own verdict, not as "never"',
    mark: 'lab-no-trigger',
    find: '    if (run.trigger === null) continue;',
    replace: '',
    tests: ['src/lab/compare.test.ts', 'src/report/verdict.test.ts', 'src/sim/metrics/verdict.test.ts'],
  },
  {
    id: 'scenario-variant-new-service',
    mechanism: 'a variant naming a service the top level lacks is an error with the closest name, not a new service',
    mark: 'scenario-variant-new-service',
    find: '          overlay: baseServices === null ? overlay : withoutNewServices(overlay, baseServices, link, problems),',
    replace: '          overlay,',
    tests: ['src/sim/scenario/load.test.ts'],
  },
  {
    id: 'scenario-policy-with-schema',
    mechanism: 'a model the schema refused still gets its policy blocks checked: both kinds of problem in one run',
    mark: 'scenario-policy-with-schema',
    find: '      checkPolicyBlocks(merged, policyProblems);',
    replace: '',
    tests: ['src/sim/scenario/load.test.ts'],
  },
];
