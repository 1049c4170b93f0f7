// The `seawall lab` command: runs the lab, prints the lab-against-simulator table, writes summary, series and report.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../lab/errors.js';
import { labReportHtml } from '../lab/report.js';
import { type LabResult, runLab } from '../lab/run.js';
import { formatLabTable } from '../lab/table.js';
import { csvLine, TIMESERIES_COLUMNS } from '../report/csv.js';
import { loadScenario } from '../sim/scenario/load.js';
import type { LabCommand } from './args.js';

interface Io {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  loadChartJs(): string;
  version: string;
}

/** summary.json: the simulator's format (`runs`: the lab's RunSummaries), the simulator's beside it, the checks. */
export function labSummaryJson(result: LabResult): string {
  return `${JSON.stringify(
    {
      scenario: result.scenario,
      source: 'lab',
      scale: result.scale,
      durationS: result.durationS,
      windows: result.windows,
      database: result.database,
      runs: result.variants.map((v) => v.lab),
      simulator: { runs: result.variants.map((v) => v.sim) },
      comparison: result.variants.map((v) => ({ variant: v.variant, ...v.comparison, errors: v.errors })),
    },
    null,
    2,
  )}\n`;
}

/** Runs the command; a LabError is one line on stderr and exit code 1 (scenario errors go up to runCli's report). */
export async function runLabCommand(command: LabCommand, io: Io): Promise<number> {
  try {
    return await run(command, io);
  } catch (error) {
    if (!(error instanceof LabError)) throw error;
    io.stderr.write(`seawall: lab: ${error.message}\n`);
    if (error.logTail !== undefined && error.logTail !== '') io.stderr.write(`${error.logTail}\n`);
    return 1;
  }
}

async function run(command: LabCommand, io: Io): Promise<number> {
  const scenario = loadScenario(command.target);
  if (command.durationMs !== undefined) {
    const lastWindowEnd = Math.max(0, ...Object.values(scenario.windows).map(([, end]) => end));
    if (command.durationMs < lastWindowEnd) {
      throw new LabError(
        'lab-options',
        `--duration ${command.durationMs / 1000} s ends before ${command.target}'s windows do (${lastWindowEnd / 1000} s)`,
      );
    }
    scenario.durationMs = command.durationMs;
  }
  // A directory that cannot be written is found now, not after minutes of lab.
  if (command.out !== undefined) {
    try {
      mkdirSync(command.out, { recursive: true });
    } catch (error) {
      throw new LabError('lab-options', `--out: cannot create ${command.out}: ${(error as Error).message}`);
    }
  }
  const result = await runLab({
    scenario,
    ...(command.variants.length > 0 ? { variants: command.variants } : {}),
    ...(command.scale !== undefined ? { scale: command.scale } : {}),
    ...(command.db !== undefined ? { db: command.db } : {}),
    ...(command.seed !== undefined ? { seed: command.seed } : {}),
    onProgress: (line) => io.stderr.write(`${line}\n`),
  });
  if (command.json) io.stdout.write(labSummaryJson(result));
  else io.stdout.write(formatLabTable(result, { wide: command.wide }));
  if (command.out !== undefined) {
    mkdirSync(command.out, { recursive: true });
    writeFileSync(join(command.out, 'summary.json'), labSummaryJson(result));
    const lines = [csvLine(['source', ...TIMESERIES_COLUMNS])];
    for (const v of result.variants) {
      for (const [source, rows] of [
        ['lab', v.labTimeseries],
        ['simulator', v.simTimeseries],
      ] as const) {
        for (const row of rows) lines.push(csvLine([source, ...TIMESERIES_COLUMNS.map((c) => row[c])]));
      }
    }
    writeFileSync(join(command.out, 'timeseries.csv'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(command.out, 'report.html'),
      labReportHtml(result, { chartJsSource: io.loadChartJs(), command: command.reproduce, version: io.version }),
    );
    io.stderr.write(`seawall: wrote ${join(command.out, 'summary.json')}, timeseries.csv and report.html\n`);
  }
  const problems = result.variants.flatMap((v) => v.errors.map((e) => `${v.variant}: ${e}`));
  for (const p of problems.slice(0, 20)) io.stderr.write(`seawall: lab problem: ${p}\n`);
  return 0;
}
