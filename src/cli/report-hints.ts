// What report.html needs from the scenario itself (fault intervals, the deepest service, each variant's topology).
import { topologyOf } from '../report/topology-model.js';
import type { Scenario } from '../sim/index.js';
import { deepestService } from '../sim/metrics/summary.js';
import type { ReportHints } from './simulator-api.js';

/** The hints for the variants that will run, in the scenario's terms. */
export function reportHintsFor(scenario: Scenario, variants: readonly string[]): ReportHints {
  const running = scenario.variants.filter((v) => variants.includes(v.name));
  const first = running[0]?.model;
  return {
    faultIntervals: running.flatMap((v) =>
      v.model.faults.map((f): [number, number] => [f.startMs / 1000, f.endMs / 1000]),
    ),
    ...(first ? { focusService: first.services[deepestService(first)]?.name } : {}),
    topologies: Object.fromEntries(running.map((v) => [v.name, topologyOf(v.model)])),
  };
}
