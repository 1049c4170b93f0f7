// What the terminal shows: the table and lint fit its width (80 when unknown; --wide as before), typos of scenario
// names get a suggestion, a directory given as a scenario gets a plain message, mesh export says a note once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import type { SimulationResult } from '../report/result.js';
import { listBuiltinScenarios, loadScenario } from '../sim/scenario/load.js';
import { type CliIo, EXIT_FAILURE, EXIT_USAGE, runCli } from './run.js';
import type { SimulatorApi } from './simulator-api.js';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

function io(columns?: number): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: {
      isTTY: columns !== undefined,
      ...(columns !== undefined ? { columns } : {}),
      write: (t: string) => out.push(t),
    },
    stderr: { isTTY: false, write: (t: string) => err.push(t) },
    env: { NO_COLOR: '1' },
    version: '1.2.3',
    loadChartJs: () => '',
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

/** A fixture whose names are as long as checkout-incident's, so the table has to work to fit. */
function longNames(): SimulationResult {
  const result = fixtureResult({ seeds: [1] });
  for (const run of result.runs)
    run.variant = run.variant === 'bad' ? 'one-layer-jitter-deadline-header' : 'good-no-queue-limit';
  return result;
}

const fake: SimulatorApi<{ name: string }> = {
  listBuiltinScenarios: () => ['checkout-incident', 'checkout-total-failure'],
  loadScenario: (name) => ({ name }),
  variantNames: () => ['one-layer-jitter-deadline-header', 'good-no-queue-limit'],
  warnings: () => [],
  reportHints: () => ({ faultIntervals: [] }),
  scenarioProblems: () => undefined,
  simulate: async () => longNames(),
};

async function cli(argv: string[], columns?: number, sim: SimulatorApi<{ name: string }> = fake) {
  const stream = io(columns);
  const code = await runCli(argv, stream, sim);
  return { code, stdout: stream.out(), stderr: stream.err() };
}

describe('the summary table fits the terminal', () => {
  it('fits 80 columns when the width is unknown (a pipe), every line', async () => {
    const { stdout } = await cli(['simulate', 'checkout-incident']);
    expect(widest(stdout)).toBeLessThanOrEqual(80);
    expect(stdout).toMatch(/before\s+during\s+after/);
  });

  it.each([60, 80, 100, 132])('fits a terminal of %i columns', async (columns) => {
    const { stdout } = await cli(['simulate', 'checkout-incident'], columns);
    expect(widest(stdout)).toBeLessThanOrEqual(columns);
  });

  it('uses the room of a wide terminal: names are not cut at 132 columns', async () => {
    const { stdout } = await cli(['simulate', 'checkout-incident'], 132);
    expect(stdout).toContain('one-layer-jitter-deadline-header ');
  });

  it('--wide (or --wide=true) prints every column with no width limit, as before', async () => {
    const wide = await cli(['simulate', 'checkout-incident', '--wide'], 80);
    expect(widest(wide.stdout)).toBeGreaterThan(100);
    expect(wide.stdout).toContain('p99 ms');
    expect((await cli(['simulate', 'checkout-incident', '--wide=true'], 80)).stdout).toBe(wide.stdout);
  });
});

describe('help fits 80 columns', () => {
  it.each([
    ['--help'],
    ['simulate', '--help'],
    ['mesh', 'import', '--help'],
    ['mesh', 'export', '--help'],
    ['lint', '--help'],
    ['lab', '--help'],
  ])('%j', async (...argv) => {
    const { stdout } = await cli(argv);
    expect(widest(stdout)).toBeLessThanOrEqual(80);
  });

  it('gives each mesh subcommand its own page', async () => {
    const importHelp = (await cli(['mesh', 'import', '--help'])).stdout;
    const exportHelp = (await cli(['mesh', 'export', '--help'])).stdout;
    expect(importHelp).toMatch(/^Usage: seawall mesh import/);
    expect(importHelp).not.toContain('--namespace');
    expect(exportHelp).toMatch(/^Usage: seawall mesh export/);
    expect(exportHelp).not.toContain('--map');
  });
});

describe('scenario names and paths', () => {
  it('suggests the built-in closest to a misspelt name', async () => {
    const { code, stderr } = await cli(['simulate', 'checkout-incidnet']);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr.split('\n')[0]).toBe(
      "seawall: no scenario file or built-in named 'checkout-incidnet'; did you mean checkout-incident? (built-ins: checkout-incident, checkout-total-failure)",
    );
  });

  it('suggests the variant closest to a misspelt one', async () => {
    const { stderr } = await cli(['simulate', 'checkout-incident', '--variant', 'good-no-queue-limt']);
    expect(stderr).toContain("'good-no-queue-limt' (did you mean good-no-queue-limit?)");
  });

  const dir = mkdtempSync(join(tmpdir(), 'seawall-dir-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says plainly that a directory is not a scenario, naming files in it', async () => {
    writeFileSync(join(dir, 'a.yaml'), 'name: a\n');
    const { code, stderr } = await cli(['simulate', dir]);
    expect(code).toBe(EXIT_FAILURE);
    expect(stderr).toBe(
      `seawall: '${dir}' is a directory, not a scenario: give a scenario file in it, e.g. ${dir}/a.yaml, or a built-in name (seawall simulate --list)\n`,
    );
  });

  it('the loader says the same for lint, mesh export and the lab (one message)', () => {
    expect(() => loadScenario(`${dir}/`)).toThrow(/is a directory, not a scenario: give a scenario file in it/);
    expect(listBuiltinScenarios()).toContain('checkout-incident');
    expect(() => loadScenario('checkout-incidnet')).toThrow(/did you mean checkout-incident\?/);
  });
});

describe('lint fits the terminal', () => {
  it('wraps each finding at spaces into 80 columns when the width is unknown, nothing cut', async () => {
    const wrapped = await cli(['lint', 'checkout-incident', '--variant', 'bad']);
    const wide = await cli(['lint', 'checkout-incident', '--variant', 'bad', '--wide']);
    expect(widest(wrapped.stdout)).toBeLessThanOrEqual(80);
    expect(widest(wide.stdout)).toBeGreaterThan(300);
    // The same words, only the line breaks differ: nothing is cut, no word is broken.
    const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');
    expect(words(wrapped.stdout)).toEqual(words(wide.stdout));
    expect(wrapped.stdout).toMatch(/\n {4}\S/);
    expect(wrapped.code).toBe(wide.code);
  });

  it('fits a 100-column terminal too', async () => {
    expect(widest((await cli(['lint', 'checkout-incident'], 100)).stdout)).toBeLessThanOrEqual(100);
  });
});

describe('mesh export says a repeated note once, with the calls it applies to', () => {
  it('groups the same note on two edges into one line', async () => {
    const { stderr } = await cli(['mesh', 'export', 'checkout-incident', '--variant', 'good', '--format', 'istio']);
    const lines = stderr.split('\n').filter((l) => l.includes('propagateDeadline'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^checkout-incident \[good\]: dropped: checkout-bff -> coupon-api, coupon-api -> member-api: propagateDeadline: /,
      ),
    ]);
  });
});
