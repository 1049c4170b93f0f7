// Runs one docs program (a module of blocks marked <!-- run -->) in a child node, loopback only, bounded in time and output.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './blocks.js';
import { type DocModule, runnableText } from './check-ts.js';

export const RUN_TIMEOUT_MS = 20_000;
const MAX_OUTPUT = 64 * 1024;
const GUARD = pathToFileURL(join(ROOT, 'test/docs/loopback-guard.ts')).href;

export interface RunResult {
  /** null when killed at the timeout. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Writes the module into `dir` (inside the repository, so its third-party imports resolve) and runs it. */
export function runModule(module: DocModule, dir: string, timeoutMs = RUN_TIMEOUT_MS): Promise<RunResult> {
  const file = join(dir, module.fileName.split('/').at(-1) as string);
  writeFileSync(file, runnableText(module));
  const started = performance.now();
  return new Promise((resolve) => {
    // @ko docs-run-loopback-only
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', GUARD, file], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_NO_WARNINGS: undefined, SEAWALL_DISABLE_RETRIES: undefined },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += String(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += String(d);
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    kill.unref();
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}
