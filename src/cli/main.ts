#!/usr/bin/env node
// The `seawall` executable: wires process streams, package.json's version and the simulator into runCli.
import { readFileSync } from 'node:fs';
import { loadChartJsSource } from '../report/chartjs.js';
import { listBuiltinScenarios, loadScenario, type Scenario, ScenarioError, simulate } from '../sim/index.js';
import { reportHintsFor } from './report-hints.js';
import { runCli } from './run.js';
import type { SimulatorApi } from './simulator-api.js';

/** The package's version, read from package.json beside dist/ (or src/) at run time. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

const simulator: SimulatorApi<Scenario> = {
  listBuiltinScenarios,
  loadScenario,
  variantNames: (scenario) => scenario.variants.map((v) => v.name),
  warnings: (scenario) => scenario.warnings,
  reportHints: reportHintsFor,
  simulate: (scenario, options) => simulate(scenario, options),
  scenarioProblems: (error) => (error instanceof ScenarioError ? [...error.located] : undefined),
};

// A closed pipe (`seawall simulate x | head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    version: packageVersion(),
    loadChartJs: loadChartJsSource,
  },
  simulator,
);
