// Knock-outs of issue #14's report: the success series' end, the verdict's meaning, the topology, groups per chart.

import type { Knockout } from './knockout.js';

export const REPORT_KNOCKOUTS: Knockout[] = [
  {
    id: 'sim-success-series-last-patience',
    mechanism: 'the success series leaves out the last patience of the run, whose users may still be waiting (no dip)',
    mark: 'sim-success-series-last-patience',
    find: '      const users = b <= lastJudged ? metrics.serviceCountAt(metrics.userArrivals, s, b) : 0;',
    replace: '      const users = metrics.serviceCountAt(metrics.userArrivals, s, b);',
    tests: ['src/sim/run.test.ts'],
  },
  {
    id: 'report-verdict-by-recovery',
    mechanism: "the report's verdict is recovered or not (recoverySeconds), not the size of a success figure",
    mark: 'report-verdict-by-recovery',
    find: '    const s = run.recoverySeconds;',
    replace:
      '    const s = ((run as { successRate?: Record<string, number> }).successRate?.during ?? 0) >= 0.5 ? 0 : null;',
    tests: ['src/report/verdict.test.ts'],
  },
  {
    id: 'report-topology-one-layer',
    mechanism: 'the topology marks a Seawall call inside a Seawall hop as one attempt, as the simulator runs it',
    mark: 'report-topology-one-layer',
    find: '    if (insideHop) lines.push(',
    replace: '    if (false) lines.push(',
    tests: ['src/report/topology.test.ts'],
  },
  {
    id: 'report-group-charts',
    mechanism: "each group's charts draw only that group's variants, never every variant on top of each other",
    mark: 'report-group-charts',
    find: '    return group.variants.map(function (v) {',
    replace: '    return data.variants.map(function (v) {',
    tests: ['src/report/report.browser.test.ts'],
  },
  {
    id: 'scenario-variant-group',
    mechanism: "a variant's `group` reaches the result (and the report's groups)",
    mark: 'scenario-variant-group',
    find: '    const group = declared.length > 0 ? (file.variants?.[name]?.group ?? null) : null;',
    replace: '    const group = null;',
    tests: ['src/sim/scenario/groups.test.ts', 'src/sim/run.test.ts'],
  },
  {
    id: 'verdict-slowest-seed',
    mechanism: "a variant's recovery over seeds is its slowest seed's (report, terminal table, lab), not a kinder one",
    mark: 'verdict-slowest-seed',
    find: '    if (slowestS === null || s > slowestS) slowestS = s;',
    replace: '    if (slowestS === null || s < slowestS) slowestS = s;',
    tests: ['src/sim/metrics/verdict.test.ts', 'src/report/table.test.ts'],
  },
];
