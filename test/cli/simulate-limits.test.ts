import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../support/cli-child.js';

/** The stop takes about 9 s here (tsx's start and a million arrivals, on a loaded 2-core box); unbounded, 76 s. */
const LIMIT_MS = 60_000;
/** The stop peaks at about 380 MB; unbounded, the same run peaked at 1.6 GB (killed here at twice this bound). */
const RSS_LIMIT_KB = 600 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'seawall-simulate-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Run = CliRun;

const simulate = (target: string): Promise<Run> => runCli(['simulate', target, '--json'], LIMIT_MS, RSS_LIMIT_KB);

describe('seawall simulate holds at most maxLive requests and events at once', () => {
  it(
    'stops 1,000,000 requests/s into one worker with an unbounded queue at 1,000,000, with the figure and the fix',
    async () => {
      const file = join(dir, 'flood.yaml');
      writeFileSync(
        file,
        'name: flood\nduration: 6s\ntraffic: [{ to: server, rate: 1000000 }]\n' +
          'services:\n  server: { workers: 1, serviceTime: { dist: constant, value: 10ms } }\n',
      );
      const run = await simulate(file);
      expect(run.signal, `killed after ${run.ms} ms: ${run.stderr.slice(0, 300)}`).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^${file.replaceAll('.', '\\.')}: variant default, seed 1: stopped at 1(\\.\\d+)? s of 6 s: 1,000,00\\d requests and events held at once .*more than maxLive 1,000,000 \\(about 250 MB\\); server held 99\\d,\\d{3} requests \\(99\\d,\\d{3} queued for 1 worker, queueLimit unbounded\\)\\. To run it: give services\\.server a queueLimit, lower the traffic rate, or raise the top-level maxLive$`,
          'm',
        ),
      );
      expect(run.stderr).toMatch(/^seawall: the run was stopped; nothing was written$/m);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).not.toMatch(/internal error/);
      expect(run.ms).toBeLessThan(LIMIT_MS);
      expect(run.maxRssKb).not.toBeNull();
      expect(run.maxRssKb as number).toBeLessThan(RSS_LIMIT_KB);
    },
    LIMIT_MS + 10_000,
  );
});
