// What the CLI needs from the simulator, as an interface: main.ts plugs in src/sim, tests plug in fakes.
import type { SimulationResult } from '../report/result.js';
import type { Topology } from '../report/topology-model.js';

export interface SimulateRunOptions {
  variants?: string[];
  seeds?: number[];
  onProgress?(done: number, total: number): void;
}

export interface ReportHints {
  /** Fault intervals [startS, endS]: shaded when the scenario has no `during` window. */
  faultIntervals: [number, number][];
  /** The deepest service (most calls away from the traffic), charted per variant. */
  focusService?: string;
  /** Each running variant's services and call policies, for the report's topology picture. */
  topologies?: Record<string, Topology>;
}

export interface SimulatorApi<S> {
  listBuiltinScenarios(): string[];
  /** A built-in name or a file path; throws the simulator's ScenarioError for a bad scenario. */
  loadScenario(nameOrPath: string): S;
  /** The scenario's variant names in file order. */
  variantNames(scenario: S): string[];
  /** Risky but valid settings, one line each naming its path (printed to stderr before the run). */
  warnings(scenario: S): string[];
  /** What the report needs from the scenario itself, for the variants that will run. */
  reportHints(scenario: S, variants: string[]): ReportHints;
  simulate(scenario: S, options: SimulateRunOptions): Promise<SimulationResult>;
  /** The scenario's problems, one line each naming its path, when `error` is the simulator's ScenarioError. */
  scenarioProblems(error: unknown): string[] | undefined;
}

/** Problems carried by an error that describes bad input rather than a bug: ScenarioError-like or ConfigError-like. */
export function problemsOf(error: unknown): string[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { problems, issues } = error as { problems?: unknown; issues?: unknown };
  if (Array.isArray(problems) && problems.every((p) => typeof p === 'string')) return problems;
  if (Array.isArray(issues)) {
    return issues.map((issue: { path?: unknown; message?: unknown }) => {
      const path = typeof issue?.path === 'string' && issue.path !== '' ? issue.path : '(root)';
      return `${path}: ${String(issue?.message)}`;
    });
  }
  return undefined;
}
