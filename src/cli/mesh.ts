// The `seawall mesh import`, `seawall mesh export` and `seawall lint` commands: options in, output and exit code out.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { groupedWarningLine, groupWarnings, MeshError, warningLine } from '../mesh/errors.js';
import { exportScenario, exportText, writeExport } from '../mesh/export.js';
import { importMesh } from '../mesh/import.js';
import { formatLint, hasErrors, lintJson, lintTarget } from '../mesh/lint/run.js';
import { terminalWidth, wrapText } from '../report/text-table.js';
import type { LintCommand, MeshExportCommand, MeshImportCommand } from './args.js';

interface Io {
  stdout: { write(chunk: string): unknown; columns?: number };
  stderr: { write(chunk: string): unknown };
}

const PROGRAM = 'seawall';

async function runImport(command: MeshImportCommand, io: Io): Promise<number> {
  const result = await importMesh(command.file, {
    maps: command.maps,
    ...(command.scenario !== undefined ? { scenario: command.scenario } : {}),
    ...(command.variant !== undefined ? { variant: command.variant } : {}),
    ...(command.out !== undefined ? { outPath: command.out } : {}),
  });
  if (command.out !== undefined) {
    mkdirSync(dirname(command.out), { recursive: true });
    writeFileSync(command.out, result.yaml);
  }
  if (command.json) {
    io.stdout.write(
      `${JSON.stringify({ yaml: result.yaml, out: command.out ?? null, warnings: result.warnings, unmapped: result.unmapped }, null, 2)}\n`,
    );
    return 0;
  }
  for (const w of result.warnings) io.stderr.write(`${command.file}: ${w.kind}: ${warningLine(w)}\n`);
  if (result.unmapped.length > 0) {
    io.stderr.write(
      `${command.file}: not mapped to a service (use --map HOST=SERVICE): ${result.unmapped.join(', ')}\n`,
    );
  }
  if (command.out !== undefined) {
    io.stderr.write(`${PROGRAM}: wrote ${command.out}; run it: npx seawall simulate ${command.out}\n`);
  } else io.stdout.write(result.yaml);
  return 0;
}

async function runExport(command: MeshExportCommand, io: Io): Promise<number> {
  const result = await exportScenario(command.target, {
    ...(command.variant !== undefined ? { variant: command.variant } : {}),
    format: command.format,
    ...(command.namespace !== undefined ? { namespace: command.namespace } : {}),
  });
  for (const g of groupWarnings(result.warnings))
    io.stderr.write(`${command.target} [${result.variant}]: ${g.kind}: ${groupedWarningLine(g)}\n`);
  if (command.out !== undefined) {
    const written = writeExport(result, command.out);
    io.stderr.write(`${PROGRAM}: wrote ${written.join(', ')}\n`);
  } else io.stdout.write(exportText(result));
  return 0;
}

/**
 * Lint's text fitted to the terminal: each finding a paragraph wrapped at spaces (continuations indented; a word
 * longer than a line is split, never cut). `--wide`: one line per finding, for grep.
 */
export function fitLint(text: string, wide: boolean, columns: number | undefined): string {
  if (wide) return text;
  const width = terminalWidth(columns);
  const lines = text.split('\n').slice(0, -1);
  // @ko lint-wraps-to-width
  const wrapped = lines.flatMap((line) => wrapText(line, width, '    ', 'break'));
  return `${wrapped.join('\n')}\n`;
}

async function runLint(command: LintCommand, io: Io): Promise<number> {
  const reports = await lintTarget(command.target, {
    ...(command.variant !== undefined ? { variant: command.variant } : {}),
    maps: command.maps,
  });
  io.stdout.write(command.json ? lintJson(reports) : fitLint(formatLint(reports), command.wide, io.stdout.columns));
  return hasErrors(reports) ? 1 : 0;
}

/** Runs one mesh or lint command; bad input becomes one line per problem on stderr and exit code 1. */
export async function runMeshCommand(
  command: MeshImportCommand | MeshExportCommand | LintCommand,
  io: Io,
): Promise<number> {
  try {
    if (command.kind === 'mesh-import') return await runImport(command, io);
    if (command.kind === 'mesh-export') return await runExport(command, io);
    return await runLint(command, io);
  } catch (error) {
    if (error instanceof MeshError) {
      io.stderr.write(error.problems.map((p) => `${p}\n`).join(''));
      io.stderr.write(
        `${PROGRAM}: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing written\n`,
      );
      return 1;
    }
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      io.stderr.write(`${PROGRAM}: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}
