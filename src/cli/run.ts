// The `seawall` command without process globals: argv + streams + simulator in, exit code out.
import { existsSync } from 'node:fs';
import { closestName } from '../policy/core/config-error.js';
import { summaryJson } from '../report/result.js';
import { formatSummaryTable, terminalWidth } from '../report/table.js';
import { isRunLimitError } from '../sim/model/live-limit.js';
import { listedProblems, scenarioIsDirectory, scenarioNotFound } from '../sim/scenario/errors.js';
import { directoryListing } from '../sim/scenario/read-file.js';
import { type Command, parseCommandLine, reproduceCommand, type SimulateCommand, UsageError } from './args.js';
import { helpText } from './help.js';
import { writeReportFiles } from './output.js';
import { createProgressBar, type ProgressStream } from './progress.js';
import { problemsOf, type SimulatorApi } from './simulator-api.js';

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  env: Record<string, string | undefined>;
  version: string;
  /** The Chart.js UMD source for report.html (read only when --out is given). */
  loadChartJs(): string;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Raised for a user mistake that is not about the command line (exit 1, message only). */
class UserError extends Error {}

const PROGRAM = 'seawall';

/** Whether stdout should get ANSI colour: a TTY, NO_COLOR unset, and not a dumb terminal. */
export function useColor(stream: ProgressStream, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
}

function loadOrExplain<S>(sim: SimulatorApi<S>, target: string): S {
  const builtins = sim.listBuiltinScenarios();
  if (!builtins.includes(target) && !existsSync(target)) throw new UsageError(scenarioNotFound(target, builtins));
  const directory = builtins.includes(target) ? null : directoryListing(target);
  if (directory !== null) throw new UserError(scenarioIsDirectory(target, directory));
  try {
    return sim.loadScenario(target);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      throw new UserError(`cannot read scenario '${target}': ${(error as Error).message}`);
    }
    throw error;
  }
}

async function runSimulate<S>(command: SimulateCommand, io: CliIo, sim: SimulatorApi<S>): Promise<number> {
  if (command.target === undefined) {
    const builtins = sim.listBuiltinScenarios();
    io.stdout.write(command.json ? `${JSON.stringify(builtins)}\n` : builtins.map((b) => `${b}\n`).join(''));
    return EXIT_OK;
  }
  const scenario = loadOrExplain(sim, command.target);
  const known = sim.variantNames(scenario);
  if (command.list) {
    io.stdout.write(command.json ? `${JSON.stringify(known)}\n` : known.map((v) => `${v}\n`).join(''));
    return EXIT_OK;
  }
  const unknown = command.variants.filter((v) => !known.includes(v));
  if (unknown.length > 0) {
    const names = unknown
      .map((v) => {
        const best = closestName(v, known);
        return best === undefined ? `'${v}'` : `'${v}' (did you mean ${best}?)`;
      })
      .join(', ');
    throw new UsageError(
      `unknown variant${unknown.length > 1 ? 's' : ''} ${names} in ${command.target}; known: ${known.join(', ')}`,
    );
  }
  for (const warning of sim.warnings(scenario)) io.stderr.write(`${command.target}: warning: ${warning}\n`);
  const progress = createProgressBar(io.stderr);
  const runCount = (command.variants.length || known.length) * (command.seeds?.length ?? 1);
  let last: [number, number] = [0, runCount];
  // Keeps the elapsed time moving while runs execute off the main thread (progress arrives per finished run).
  const ticker = setInterval(() => progress.update(...last), 250);
  ticker.unref();
  let result: Awaited<ReturnType<SimulatorApi<S>['simulate']>>;
  try {
    result = await sim.simulate(scenario, {
      ...(command.variants.length > 0 ? { variants: command.variants } : {}),
      ...(command.seeds !== undefined ? { seeds: command.seeds } : {}),
      onProgress(done, total) {
        last = [done, total];
        progress.update(done, total);
      },
    });
  } finally {
    clearInterval(ticker);
    progress.finish();
  }
  if (command.json) io.stdout.write(summaryJson(result));
  else {
    io.stdout.write(
      formatSummaryTable(result, {
        color: useColor(io.stdout, io.env),
        wide: command.wide,
        maxWidth: terminalWidth(io.stdout.columns),
      }),
    );
  }
  if (command.outDir !== undefined) {
    let files: string[];
    try {
      files = writeReportFiles(command.outDir, result, {
        command: reproduceCommand(command),
        version: io.version,
        chartJsSource: io.loadChartJs(),
        ...sim.reportHints(scenario, command.variants.length > 0 ? command.variants : known),
      });
    } catch (error) {
      throw new UserError(`cannot write the report to '${command.outDir}': ${(error as Error).message}`);
    }
    io.stderr.write(`${PROGRAM}: wrote ${files.join(', ')}\n`);
  }
  return EXIT_OK;
}

function dispatch<S>(command: Command, io: CliIo, sim: SimulatorApi<S>): Promise<number> | number {
  switch (command.kind) {
    case 'help':
      io.stdout.write(helpText(command.topic, io.version));
      return EXIT_OK;
    case 'version':
      io.stdout.write(`${io.version}\n`);
      return EXIT_OK;
    case 'simulate':
      return runSimulate(command, io, sim);
    case 'lab':
      // Loaded only for this command: pg, the lab's processes and its report stay out of the other commands.
      return import('./lab.js').then((lab) => lab.runLabCommand(command, io));
    case 'mesh-import':
    case 'mesh-export':
    case 'lint':
      // Loaded only for these commands: the Istio models and the mesh code stay out of `simulate`'s start-up.
      return import('./mesh.js').then((mesh) => mesh.runMeshCommand(command, io));
  }
}

/** Runs the command line; every user error becomes message lines on stderr and an exit code, never a stack trace. */
export async function runCli<S>(argv: readonly string[], io: CliIo, sim: SimulatorApi<S>): Promise<number> {
  let target: string | undefined;
  try {
    const command = parseCommandLine(argv);
    if (command.kind === 'simulate' || command.kind === 'lab') target = command.target;
    return await dispatch(command, io, sim);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\nRun '${PROGRAM} --help' for usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof UserError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    // @ko cli-run-limit-line
    if (isRunLimitError(error)) {
      // A run that reached its bound on live work (maxLive): the figure, when, where, what to change; no stack.
      io.stderr.write(
        `${target ?? 'scenario'}: ${error.message}\n${PROGRAM}: the run was stopped; nothing was written\n`,
      );
      return EXIT_FAILURE;
    }
    const problems = sim.scenarioProblems(error) ?? problemsOf(error);
    if (problems !== undefined) {
      const where = target ?? 'scenario';
      const lines = problems.length > 0 ? problems : [(error as Error).message];
      // The first problems are listed and the rest counted: a random 4 MB file would print 1.8 MB.
      io.stderr.write(
        listedProblems(lines)
          .map((line) => `${where}: ${line}\n`)
          .join(''),
      );
      const count = lines.length.toLocaleString('en-US');
      io.stderr.write(
        `${PROGRAM}: ${where} is not a valid scenario (${count} problem${lines.length === 1 ? '' : 's'})\n`,
      );
      return EXIT_FAILURE;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`${PROGRAM}: internal error: ${message}\n`);
    if (io.env.SEAWALL_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    else io.stderr.write(`This is a bug in seawall; set SEAWALL_DEBUG=1 to see where it happened.\n`);
    return EXIT_FAILURE;
  }
}
