// `seawall simulate` on files that are no scenario (/dev/zero, a FIFO, one through extends:, 5 MB): a clear refusal, fast.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../support/cli-child.js';

/** A refusal takes 1–7 s here (tsx's start, on a loaded 2-core box); a knocked-out reader hangs until this kills it. */
const LIMIT_MS = 25_000;
/** Far above a refusal (about 150 MB with tsx), far below reading /dev/zero or a 5 MB scenario (GBs, 100s of MB). */
const RSS_LIMIT_KB = 400 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'seawall-simulate-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Run = CliRun;

const simulate = (target: string): Promise<Run> => runCli(['simulate', target], LIMIT_MS, RSS_LIMIT_KB);

function expectRefused(run: Run, line: RegExp): void {
  expect(run.signal, `killed after ${LIMIT_MS} ms: ${run.stderr.slice(0, 300)}`).toBeNull();
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(line);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toMatch(/internal error/);
  expect(run.ms).toBeLessThan(LIMIT_MS);
  expect(run.maxRssKb).not.toBeNull();
  expect(run.maxRssKb as number).toBeLessThan(RSS_LIMIT_KB);
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('seawall simulate reads only a regular file of at most 4 MB', () => {
  it('refuses /dev/zero as a character device', async () => {
    const run = await simulate('/dev/zero');
    expectRefused(run, /^\/dev\/zero: \(root\): not a regular file \(a character device\)$/m);
  });

  it('refuses a FIFO without opening it (no writer: the open would block forever)', async () => {
    const path = fifo('pipe.yaml');
    expectRefused(await simulate(path), /: \(root\): not a regular file \(a FIFO\)$/m);
  });

  it('refuses a FIFO named by extends:, naming the parent file', async () => {
    const parent = fifo('parent.yaml');
    const child = join(dir, 'child.yaml');
    writeFileSync(child, `extends: ./parent.yaml\nname: child\n`);
    const run = await simulate(child);
    expectRefused(
      run,
      new RegExp(`child\\.yaml: extends: ${parent.replaceAll('.', '\\.')}: not a regular file \\(a FIFO\\)$`, 'm'),
    );
  });

  it('refuses a 5 MB file by its size, before reading it', async () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(5 * 1024 * 1024 - 3)}\n`);
    expectRefused(await simulate(big), /big\.yaml: \(root\): 5 MB is more than the 4 MB a scenario may be$/m);
  });
});
