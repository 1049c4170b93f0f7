// loadScenario reads a scenario, and each extends: parent, through the bounded reader: a 5 MB file is refused by size.
// (FIFOs and devices are in read-file.test.ts and, through the CLI, test/cli/simulate-files.test.ts: here a reader
// knocked out to readFileSync must fail fast, not block the worker on a FIFO or fill memory from /dev/zero.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario, ScenarioError } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-load-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const big = join(dir, 'big.yaml');
writeFileSync(big, `# ${'x'.repeat(5 * 1024 * 1024 - 3)}\n`);

function problems(path: string): string[] {
  try {
    loadScenario(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).problems;
  }
  throw new Error(`${path} loaded`);
}

describe('loadScenario bounds the files it reads', () => {
  it('refuses a 5 MB scenario by its size', () => {
    expect(problems(big)).toEqual(['(root): 5 MB is more than the 4 MB a scenario may be']);
  });

  it('refuses a 5 MB extends: parent, naming the parent file', () => {
    const child = join(dir, 'child.yaml');
    writeFileSync(child, 'extends: ./big.yaml\nname: child\n');
    expect(problems(child)).toEqual([`extends: ${big}: 5 MB is more than the 4 MB a scenario may be`]);
  });
});
