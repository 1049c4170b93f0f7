// The simulator's public surface: re-exports only.

export type { EdgeSummary } from './metrics/edges.js';
export type { RunSummary, TimeseriesRow } from './metrics/summary.js';
export { RunLimitError } from './model/live-limit.js';
export {
  type RunOptions,
  runVariant,
  type ServiceDetail,
  type SimulationResult,
  simulate,
  type VariantInfo,
  type VariantRun,
} from './run.js';
export { listBuiltinScenarios, loadScenario, parseScenario, ScenarioError } from './scenario/load.js';
export type { ModelSpec, Scenario, VariantSpec } from './scenario/types.js';
