// The lab end to end, as CI runs it: bad and good on real processes and PostgreSQL, scaled down, under 2 minutes.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres } from '../../src/lab/postgres/cluster.js';
import { chromiumStatus, inspectCanvases, launchChromium, openReport } from '../report/chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const SHORT = join(ROOT, 'test/fixtures/lab/checkout-short.yaml');
const ci =
  process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== '0' && process.env.CI !== 'false';
const postgres = findPostgres();
const skip = postgres === null && !ci;

/** Lab service processes of this machine (the lab must leave none behind). */
function labProcesses(): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('lab/service-main'));
}
/** Throwaway cluster directories, and the lab's own temp dirs, left in the temp dir. */
function clusterDirs(): string[] {
  return readdirSync(tmpdir()).filter(
    (name) => name.startsWith('seawall-lab-') && !name.startsWith('seawall-lab-e2e-'),
  );
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function lab(args: string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'lab', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => {
      stderr += String(d);
      onStderr?.(stderr, child);
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(skip)(`seawall lab${skip ? ' (SKIPPED: PostgreSQL server binaries not found)' : ''}`, () => {
  const out = mkdtempSync(join(tmpdir(), 'seawall-lab-e2e-'));
  let run: Run;
  const before = { processes: 0, clusters: 0 };

  beforeAll(async () => {
    if (postgres === null) throw new Error('PostgreSQL is required under CI: apt-get install postgresql');
    before.processes = labProcesses().length;
    before.clusters = clusterDirs().length;
    run = await lab([SHORT, '--variant', 'bad,good', '--out', out]);
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs bad and good, exits 0 and prints the lab beside the simulator', () => {
    expect(run.stderr).not.toContain('lab problem');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^bad\s+never\/never\s/m);
    expect(run.stdout).toMatch(/^good\s+recovers\/recovers\s/m);
  });

  it('reproduces the incident: bad never recovers and storms member-api, good recovers, as the simulator says', () => {
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const [bad, good] = summary.runs;
    expect(bad.variant).toBe('bad');
    expect(bad.recoverySeconds).toBeNull();
    expect(bad.successRate.after).toBeLessThan(0.05);
    expect(bad.amplification['member-api'].after).toBeGreaterThan(10); // the seed's ~16×, counted on real sockets
    expect(good.recoverySeconds).not.toBeNull();
    expect(good.successRate.after).toBeGreaterThan(0.9);
    expect(good.amplification['member-api'].after).toBeLessThan(1.2);
    const verdicts = summary.comparison.map((c: { checks: { what: string; ok: boolean }[] }) => c.checks[0]);
    expect(verdicts).toEqual([
      { what: 'recovers', lab: 'never', sim: 'never', ok: true },
      { what: 'recovers', lab: 'recovers', sim: 'recovers', ok: true },
    ]);
    expect(summary.simulator.runs.map((r: { variant: string }) => r.variant)).toEqual(['bad', 'good']);
  });

  it("samples the same gauges as the simulator: bad's member-api queue grows through the failover in both", () => {
    const [header, ...lines] = readFileSync(join(out, 'timeseries.csv'), 'utf8').trim().split('\n');
    const columns = (header as string).split(',');
    const at = (source: string, t: number) => {
      const line = lines.find((l) => l.startsWith(`${source},bad,`) && l.includes(`,${t},member-api,`)) as string;
      const cells = line.split(',');
      return Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
    };
    for (const t of [25, 30, 34]) {
      const lab = Number(at('lab', t).queueLength);
      const sim = Number(at('simulator', t).queueLength);
      expect(lab, `queue at ${t} s`).toBeGreaterThan(sim * 0.8);
      expect(lab, `queue at ${t} s`).toBeLessThan(sim * 1.25);
      // inFlight counts what the service holds, queued or running, whether its caller still waits or not
      expect(Number(at('lab', t).inFlight)).toBeGreaterThanOrEqual(lab);
    }
    expect(Number(at('lab', 15).queueLength)).toBeLessThan(20);
  });

  it('leaves no service process and no database behind', () => {
    expect(labProcesses()).toHaveLength(before.processes);
    expect(clusterDirs()).toHaveLength(before.clusters);
  });

  const chromium = chromiumStatus();
  const noBrowser = !chromium.present && !chromium.required;
  it.skipIf(noBrowser)(
    `report.html sets lab and simulator side by side, charts drawn in Chromium${noBrowser ? ` (SKIPPED: ${chromium.reason})` : ''}`,
    async () => {
      if (!chromium.present) throw new Error(`Chromium is required under CI: ${chromium.reason}`);
      const browser = await launchChromium();
      try {
        const { page, consoleErrors, foreignRequests } = await openReport(browser, join(out, 'report.html'));
        const canvases = await inspectCanvases(page);
        expect(canvases.length).toBeGreaterThanOrEqual(8); // 4 per variant (lab and simulator) + load per service
        for (const canvas of canvases) {
          expect(canvas.painted, canvas.id).toBeGreaterThan(1000);
          expect(canvas.triggerAlpha, canvas.id).toBeGreaterThan(0);
        }
        const verdicts = await page.locator('table.verdicts tbody tr').count();
        expect(verdicts).toBe(14); // 7 checks × 2 variants
        // Verdict first: a row per variant and source; each variant's charts set the lab beside the simulator.
        expect(await page.locator('table.verdict-table tr.variant-row').count()).toBe(4);
        expect(await page.locator('.group-block[data-group="bad"] button.chip').allTextContents()).toEqual([
          'bad (lab)',
          'bad (simulator)',
        ]);
        expect(consoleErrors).toEqual([]);
        expect(foreignRequests).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );
});

/** Starts the lab on `good`, sends `signal` 2 s into the run; resolves with the run and the leftover counts before. */
async function interrupted(
  signal: NodeJS.Signals,
): Promise<{ run: Run; before: { processes: number; clusters: number } }> {
  const before = { processes: labProcesses().length, clusters: clusterDirs().length };
  let sent = false;
  const run = await lab([SHORT, '--variant', 'good'], (text, child) => {
    if (!sent && text.includes('lab: good:')) {
      sent = true;
      setTimeout(() => child.kill(signal), 2000);
    }
  });
  expect(sent).toBe(true);
  return { run, before };
}

/** Waits up to `ms` for the machine to be back to `before`, then checks it is. */
async function nothingLeft(before: { processes: number; clusters: number }, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (labProcesses().length === before.processes && clusterDirs().length === before.clusters) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(labProcesses()).toHaveLength(before.processes);
  expect(clusterDirs()).toHaveLength(before.clusters);
}

describe.skipIf(skip)('seawall lab interrupted', () => {
  it('stops every child process and removes its database on Ctrl-C', async () => {
    const { run, before } = await interrupted('SIGINT');
    expect(run.code === 130 || run.code === null).toBe(true);
    await nothingLeft(before, 500); // the lab itself cleans up before it exits
    expect(existsSync(CLI)).toBe(true);
  }, 60_000);

  it('leaves nothing behind when the lab itself is killed (SIGKILL: no handler runs)', async () => {
    const { run, before } = await interrupted('SIGKILL');
    expect(run.code).toBeNull();
    // The services exit when their IPC channel to the lab closes; the cluster's watchdog stops and removes it.
    await nothingLeft(before, 20_000);
  }, 60_000);
});
