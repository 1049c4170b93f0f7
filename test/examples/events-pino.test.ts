// examples/events/pino.ts runs as documented and logs every event its demo causes, as pino JSON lines.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('examples/events/pino.ts', () => {
  it('logs retries, a give-up, a shed and an execute retry as pino JSON lines', () => {
    // The example imports the package by its name ('seawall' resolves to this package's dist/): npm test builds first.
    expect(existsSync(join(ROOT, 'dist/index.js')), 'dist/ is missing: run npm run build').toBe(true);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'examples/events/pino.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const count = (msg: string, where: Record<string, unknown> = {}) =>
      lines.filter((l) => l.msg === msg && Object.entries(where).every(([k, v]) => l[k] === v)).length;
    expect(count('seawall:retry', { client: 'fetch' })).toBe(4);
    expect(count('seawall:give-up', { reason: 'attempts-exhausted' })).toBe(2);
    expect(count('seawall:shed', { service: 'member-api', status: 503 })).toBe(1);
    expect(count('seawall:retry', { client: 'execute', outcome: 'connect-failure' })).toBe(1);
    const executeRetry = lines.find((l) => l.client === 'execute') as { err: { code: string } };
    expect(executeRetry.err.code).toBe('ECONNREFUSED');
  });
});
