// Tests for runCli with a fake simulator (returning a hand-built FIXTURE result): outputs, exit codes, errors.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import type { SimulationResult } from '../report/result.js';
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, runCli } from './run.js';
import type { SimulateRunOptions, SimulatorApi } from './simulator-api.js';

class FakeScenarioError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid scenario:\n${problems.join('\n')}`);
  }
}

interface FakeScenario {
  name: string;
  variants: string[];
}

function fakeSimulator(overrides: Partial<SimulatorApi<FakeScenario>> = {}) {
  const calls: SimulateRunOptions[] = [];
  const sim: SimulatorApi<FakeScenario> = {
    listBuiltinScenarios: () => ['fixture-checkout'],
    loadScenario: (name) => ({ name, variants: ['bad', 'good'] }),
    variantNames: (scenario) => scenario.variants,
    warnings: () => [],
    reportHints: () => ({ faultIntervals: [[10, 15]], focusService: 'member-api' }),
    scenarioProblems: (error) => (error instanceof FakeScenarioError ? error.problems : undefined),
    simulate: async (_scenario, options): Promise<SimulationResult> => {
      calls.push(options);
      options.onProgress?.(1, 1);
      return fixtureResult({ seeds: options.seeds ?? [1] });
    },
    ...overrides,
  };
  return { sim, calls };
}

function fakeIo(): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { isTTY: false, write: (t: string) => out.push(t) },
    stderr: { isTTY: false, write: (t: string) => err.push(t) },
    env: {},
    version: '1.2.3',
    loadChartJs: () => '/* chart.js stand-in */',
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

async function run(argv: string[], simulator = fakeSimulator()) {
  const io = fakeIo();
  const code = await runCli(argv, io, simulator.sim);
  return { code, stdout: io.out(), stderr: io.err(), calls: simulator.calls };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('runCli', () => {
  it('prints the version and help on stdout with exit 0', async () => {
    expect(await run(['--version'])).toMatchObject({ code: EXIT_OK, stdout: '1.2.3\n', stderr: '' });
    const help = await run(['--help']);
    expect(help.code).toBe(EXIT_OK);
    expect(help.stdout).toContain('Usage: seawall simulate');
  });

  it('prints the summary table by default and passes variants and seeds to the simulator', async () => {
    const result = await run(['simulate', 'fixture-checkout', '--variant', 'good', '--seeds', '1,2']);
    expect(result.code).toBe(EXIT_OK);
    expect(result.stdout).toContain('fixture-checkout: 30 s simulated');
    expect(result.stdout).toMatch(/good\s+2\s+99\.0/);
    expect(result.calls[0]).toMatchObject({ variants: ['good'], seeds: [1, 2] });
    expect(result.stderr).toBe('');
  });

  it('with --json prints exactly one JSON document: the result without its time series', async () => {
    const result = await run(['simulate', 'fixture-checkout', '--json']);
    expect(result.code).toBe(EXIT_OK);
    const parsed = JSON.parse(result.stdout);
    const { timeseries: _timeseries, ...expected } = fixtureResult();
    expect(parsed).toEqual(expected);
    expect(Object.keys(parsed)).toEqual([
      'scenario',
      'description',
      'durationS',
      'windows',
      'variants',
      'engine',
      'runs',
    ]);
  });

  it('with --out writes summary.json, timeseries.csv and report.html and says so on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    dirs.push(dir);
    const out = join(dir, 'nested', 'report');
    const result = await run(['simulate', 'fixture-checkout', '--json', '--out', out]);
    expect(result.code).toBe(EXIT_OK);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(result.stdout);
    expect(readFileSync(join(out, 'timeseries.csv'), 'utf8').split('\n')[0]).toMatch(/^variant,seed,t,service,/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('/* chart.js stand-in */');
    expect(html).toContain(`npx seawall simulate fixture-checkout --out ${out}`);
    expect(result.stderr).toBe(
      `seawall: wrote ${['summary.json', 'timeseries.csv', 'report.html'].map((f) => join(out, f)).join(', ')}\n`,
    );
  });

  it('rejects an unknown variant with exit 2, listing the known ones', async () => {
    const result = await run(['simulate', 'fixture-checkout', '--variant', 'gud']);
    expect(result.code).toBe(EXIT_USAGE);
    expect(result.stderr).toBe(
      "seawall: unknown variant 'gud' in fixture-checkout; known: bad, good\nRun 'seawall --help' for usage.\n",
    );
    expect(result.calls).toEqual([]);
  });

  it('rejects a scenario that is neither a file nor a built-in with exit 2, listing the built-ins', async () => {
    const result = await run(['simulate', 'no-such-scenario']);
    expect(result.code).toBe(EXIT_USAGE);
    expect(result.stderr).toContain(
      "no scenario file or built-in named 'no-such-scenario' (built-ins: fixture-checkout)",
    );
  });

  it('prints each scenario problem on its own line naming the path, exit 1, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    dirs.push(dir);
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'name: broken\n');
    const problems = ['duration: is required', 'services.member-api.workers: must be an integer >= 1'];
    const simulator = fakeSimulator({
      loadScenario: () => {
        throw new FakeScenarioError(problems);
      },
    });
    const result = await run(['simulate', file], simulator);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual(problems.map((p) => `${file}: ${p}`));
    expect(result.stderr).toContain(`seawall: ${file} is not a valid scenario (2 problems)`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('lists the first 50 problems of a very broken scenario and counts the rest (issue #25)', async () => {
    const problems = Array.from({ length: 14_374 }, (_, i) => `line ${i + 1}, column 1: bad`);
    const simulator = fakeSimulator({
      loadScenario: () => {
        throw new FakeScenarioError(problems);
      },
    });
    const result = await run(['simulate', 'fixture-checkout'], simulator);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(52);
    expect(lines[49]).toBe('fixture-checkout: line 50, column 1: bad');
    expect(lines[50]).toBe('fixture-checkout: ... and 14,324 more problems');
    expect(lines[51]).toBe('seawall: fixture-checkout is not a valid scenario (14,374 problems)');
  });

  it('prints a run stopped at maxLive as its one line and says nothing was written, exit 1 (issue #25)', async () => {
    const message = 'variant bad, seed 1: stopped at 1 s of 6 s: 1,000,001 requests and events held at once';
    const simulator = fakeSimulator({
      simulate: async () => {
        throw Object.assign(new Error(message), { code: 'SEAWALL_RUN_LIMIT' });
      },
    });
    const result = await run(['simulate', 'fixture-checkout', '--json'], simulator);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`fixture-checkout: ${message}\nseawall: the run was stopped; nothing was written\n`);
  });

  it('prints a ConfigError-like error from the run as its issues, exit 1', async () => {
    const simulator = fakeSimulator({
      simulate: async () => {
        throw Object.assign(new Error('bad'), { issues: [{ path: 'budget.maxTokens', message: 'must be > 0' }] });
      },
    });
    const result = await run(['simulate', 'fixture-checkout'], simulator);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toContain('fixture-checkout: budget.maxTokens: must be > 0\n');
  });

  it('reports an unexpected failure in one line without a stack trace unless SEAWALL_DEBUG is set', async () => {
    const simulator = fakeSimulator({
      simulate: async () => {
        throw new TypeError('boom');
      },
    });
    const result = await run(['simulate', 'fixture-checkout'], simulator);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toContain('seawall: internal error: boom\n');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('says which directory it could not write to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    dirs.push(dir);
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'not a directory');
    const result = await run(['simulate', 'fixture-checkout', '--out', join(blocker, 'out')]);
    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toMatch(/^seawall: cannot write the report to '.*file\/out': /);
    expect(existsSync(join(blocker, 'out'))).toBe(false);
  });

  it('prints scenario warnings on stderr, keeping stdout for results', async () => {
    const simulator = fakeSimulator({
      warnings: () => ['variants.bad.calls.a -> b.maxAttempts: more than 5 attempts'],
    });
    const result = await run(['simulate', 'fixture-checkout', '--json'], simulator);
    expect(result.stderr).toBe(
      'fixture-checkout: warning: variants.bad.calls.a -> b.maxAttempts: more than 5 attempts\n',
    );
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('lists built-ins, and a scenario’s variants, with --list', async () => {
    expect((await run(['simulate', '--list'])).stdout).toBe('fixture-checkout\n');
    expect((await run(['simulate', 'fixture-checkout', '--list'])).stdout).toBe('bad\ngood\n');
    expect(JSON.parse((await run(['simulate', 'fixture-checkout', '--list', '--json'])).stdout)).toEqual([
      'bad',
      'good',
    ]);
  });

  it('colours the table only on a TTY without NO_COLOR', async () => {
    const simulator = fakeSimulator();
    const io = fakeIo();
    io.stdout.isTTY = true;
    await runCli(['simulate', 'fixture-checkout'], io, simulator.sim);
    expect(io.out()).toContain('\x1b[');
    const plain = fakeIo();
    plain.stdout.isTTY = true;
    plain.env.NO_COLOR = '1';
    await runCli(['simulate', 'fixture-checkout'], plain, simulator.sim);
    expect(plain.out()).not.toContain('\x1b[');
  });
});
