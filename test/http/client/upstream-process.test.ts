// A process that used endpoints, outlier detection, a circuit breaker and limits exits by itself: the client keeps no timer.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fail503, ok, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();

describe('process lifetime with upstream policies', () => {
  it('lets a child that balanced, ejected an endpoint and opened a breaker exit by itself', async () => {
    const [sick, well] = await start(fail503, ok);
    const script = fileURLToPath(new URL('./upstream-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, sick?.origin as string, well?.origin as string], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    // Exits within ~1 s of "done" when nothing holds it; the breaker's 30 s break or an ejection timer would hold it 30 s.
    const kill = setTimeout(() => child.kill(), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(kill);
    expect(stderr).toBe('');
    expect(code, 'the child exited by itself (null: killed after 15 s)').toBe(0);
    const done = /^done (.*)$/m.exec(stdout);
    expect(JSON.parse(done?.[1] ?? '{}')).toEqual({ ejected: 1, refused: 'breaker-open' });
  });
});
