// docs/client.md's runnable endpoints example does what the page says it prints (run as written, in a child process).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const DOC = fileURLToPath(new URL('../../../docs/client.md', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../../src/index.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'seawall-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first ```ts block after `marker`. */
function blockAfter(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/client.md no longer says "${marker}"`);
  const match = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (match === null) throw new Error(`no ts block after "${marker}"`);
  return match[1] as string;
}

describe("docs/client.md's runnable example", () => {
  it('prints 14 attempts sent, 2 retries and one ejection, and the failing endpoint ejected', async () => {
    const doc = readFileSync(DOC, 'utf8');
    const source = blockAfter(doc, 'Runnable on one machine (save as `try.mts`');
    expect(source).toContain("from 'seawall';");
    const file = join(dir, 'try.mts');
    // The package's name resolves to this checkout's source (the test runs before any install of the package).
    writeFileSync(file, source.replace("from 'seawall';", `from ${JSON.stringify(PACKAGE)};`));
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const kill = setTimeout(() => child.kill(), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(kill);
    expect(stderr).toBe('');
    expect(code, 'the example exited by itself (null: killed after 20 s)').toBe(0);
    expect(stdout).toContain('upstream_rq_total: 14,');
    expect(stdout).toContain('upstream_rq_retry: 2,');
    expect(stdout).toContain("'outlier_detection.ejections_active': 1,");
    expect(stdout).toMatch(/\{ endpoint: 'http:\/\/127\.0\.0\.1:\d+', ejected: true, inFlight: 0 \}/);
    expect(doc.replace(/\s+/g, ' ')).toContain(
      "It prints `upstream_rq_total: 14, upstream_rq_retry: 2, 'outlier_detection.ejections_active': 1, ...`",
    );
  });
});
