// The lab command refuses what it can tell is wrong before it starts a process or a database.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabCommand } from './args.js';
import { parseCommandLine } from './args.js';
import { runLabCommand } from './lab.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-lab-cli-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io = {
    stdout: { write: () => true },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        return true;
      },
    },
    loadChartJs: () => '',
    version: 'test',
  };
  const code = await runLabCommand(parseCommandLine(argv) as LabCommand, io);
  return { code, stderr };
}

describe('seawall lab, before it starts anything', () => {
  it('refuses an --out that cannot be created (a file is in the way), with exit 1 and one line', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const started = Date.now();
    const { code, stderr } = await run(['lab', '--variant', 'good', '--out', join(file, 'sub')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^seawall: lab: --out: cannot create .*a-file\/sub: /);
    expect(Date.now() - started).toBeLessThan(5000); // no cluster was started
  });

  it('refuses a --duration shorter than the scenario windows, and an unknown variant', async () => {
    expect((await run(['lab', '--duration', '30s'])).stderr).toContain('--duration 30 s ends before checkout-incident');
    const unknown = await run(['lab', '--variant', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no variant named nope');
  });
});
