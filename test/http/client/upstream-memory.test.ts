// Memory grows with use, not with configuration (issue #25): 1,100 upstreams with a 10,000-call breaker window, measured.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('per-upstream breaker memory', () => {
  it('holds a few kilobytes per upstream scope after a few calls, where a window allocated up front takes 160 kB each', async () => {
    const script = fileURLToPath(new URL('./upstream-memory-child.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 60_000 });
    const m = JSON.parse(stdout) as { scopes: number; grewBytes: number; rss: number; windowBytes: number };
    // The client keeps the 1,024 most recently used scopes (MAX_TRACKED_UPSTREAMS).
    expect(m.scopes).toBe(1024);
    expect(m.windowBytes).toBe(1024 * 128);
    // Up front: 1,024 × 160 kB = 164 MB of windows. Grown on use: the scopes' own objects, a few MB in all.
    expect(m.grewBytes, JSON.stringify(m)).toBeLessThan(16_000_000);
  }, 90_000);
});
