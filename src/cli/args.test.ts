// Tests for the command-line parser: commands, options, and one-line usage errors.
import { describe, expect, it } from 'vitest';
import { parseCommandLine, reproduceCommand, shellQuote, UsageError } from './args.js';
import { HELP_WIDTH, helpText } from './help.js';

const simulate = (argv: string[]) => {
  const command = parseCommandLine(argv);
  if (command.kind !== 'simulate') throw new Error(`expected simulate, got ${command.kind}`);
  return command;
};

const usageMessage = (argv: string[]): string => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('parseCommandLine', () => {
  it.each([
    [['--help'], { kind: 'help', topic: 'main' }],
    [['-h'], { kind: 'help', topic: 'main' }],
    [['simulate', '--help'], { kind: 'help', topic: 'simulate' }],
    [['--version'], { kind: 'version' }],
    [['-v'], { kind: 'version' }],
  ])('%j -> %j', (argv, expected) => {
    expect(parseCommandLine(argv)).toEqual(expected);
  });

  it('reads a scenario with defaults: every variant, the default seed, a table on stdout', () => {
    expect(simulate(['simulate', 'checkout-incident'])).toEqual({
      kind: 'simulate',
      target: 'checkout-incident',
      variants: [],
      seeds: undefined,
      json: false,
      outDir: undefined,
      list: false,
      wide: false,
    });
    expect(simulate(['simulate', 'checkout-incident', '--wide'])).toMatchObject({ wide: true });
  });

  it('collects repeated and comma-separated variants in order, once each', () => {
    const command = simulate(['simulate', 'x.yaml', '--variant', 'bad', '--variant', 'good,bad', '--variant=a-jitter']);
    expect(command.variants).toEqual(['bad', 'good', 'a-jitter']);
  });

  it('reads --seed N and --seeds 1,2,3', () => {
    expect(simulate(['simulate', 'x', '--seed', '7']).seeds).toEqual([7]);
    expect(simulate(['simulate', 'x', '--seeds', '1, 2,3']).seeds).toEqual([1, 2, 3]);
    expect(simulate(['simulate', 'x', '--seed', '4294967295']).seeds).toEqual([4294967295]);
  });

  it('reads --json, --out and --list, and --list without a scenario', () => {
    const command = simulate(['simulate', 'x', '--json', '--out', 'out/dir']);
    expect([command.json, command.outDir]).toEqual([true, 'out/dir']);
    expect(simulate(['simulate', '--list'])).toMatchObject({ target: undefined, list: true });
  });

  it.each([
    [[], 'no command given'],
    [['frobnicate'], "unknown command 'frobnicate' (the commands are: simulate, lab, mesh, lint)"],
    [['simulate'], 'simulate needs a scenario: a YAML file or a built-in name'],
    [['simulate', 'a', 'b'], 'simulate takes one scenario, got 2: a b'],
    [['simulate', 'x', '--bogus'], 'unknown option --bogus'],
    [['simulate', 'x', '--seed'], 'option --seed needs a value'],
    [['simulate', 'x', '--seed', '1.5'], "--seed: '1.5' is not a non-negative integer"],
    [['simulate', 'x', '--seed', '-1'], 'option --seed needs a value'],
    [['simulate', 'x', '--seed', '4294967296'], '--seed: 4294967296 is too large (the largest seed is 4294967295)'],
    [['simulate', 'x', '--seeds', '1,,2'], '--seeds: expected a comma-separated list such as 1,2,3'],
    [['simulate', 'x', '--seeds', '1,2,1'], '--seeds: seed 1 is listed twice'],
    [['simulate', 'x', '--seed', '1', '--seeds', '2,3'], '--seed and --seeds cannot be used together'],
    [['simulate', 'x', '--variant', ','], '--variant needs a variant name'],
    [['simulate', 'x', '--out', ''], '--out needs a directory'],
    [['--json'], '--json belongs to a command, e.g. seawall simulate <scenario> --json ...'],
    [['simulate', 'x', '--version'], '--version takes no command: seawall --version'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(usageMessage(argv)).toBe(message);
  });

  it('keeps every usage error to one line', () => {
    expect(usageMessage(['simulate', 'x', '--no-such-flag=1']).includes('\n')).toBe(false);
  });
});

describe('parseCommandLine: mesh and lint', () => {
  it('reads mesh import with its options', () => {
    expect(
      parseCommandLine([
        'mesh',
        'import',
        'vs.yaml',
        '--map',
        'a.b=svc',
        '--map',
        'c=d',
        '--scenario',
        'checkout-incident',
        '--variant',
        'm',
        '--out',
        'o.yaml',
        '--json',
      ]),
    ).toEqual({
      kind: 'mesh-import',
      file: 'vs.yaml',
      maps: ['a.b=svc', 'c=d'],
      scenario: 'checkout-incident',
      variant: 'm',
      out: 'o.yaml',
      json: true,
    });
  });

  it('reads mesh export with its defaults', () => {
    expect(parseCommandLine(['mesh', 'export', 'checkout-incident'])).toEqual({
      kind: 'mesh-export',
      target: 'checkout-incident',
      variant: undefined,
      format: 'both',
      out: undefined,
      namespace: undefined,
    });
    expect(parseCommandLine(['mesh', 'export', 'x', '--format', 'istio', '--out', 'd'])).toMatchObject({
      format: 'istio',
      out: 'd',
    });
  });

  it('reads lab with its defaults and options', () => {
    expect(parseCommandLine(['lab'])).toMatchObject({
      kind: 'lab',
      target: 'checkout-incident',
      variants: [],
      scale: undefined,
      durationMs: undefined,
      db: undefined,
      json: false,
      wide: false,
    });
    expect(parseCommandLine(['lab', '--wide'])).toMatchObject({ wide: true });
    expect(parseCommandLine(['lint', 'x.yaml', '--wide'])).toMatchObject({ kind: 'lint', wide: true });
    const command = parseCommandLine([
      'lab',
      'x.yaml',
      '--variant',
      'bad,good',
      '--variant',
      'bad',
      '--scale',
      '0.05',
      '--duration',
      '2m',
      '--db',
      'postgres://u:secret@127.0.0.1:5432/d',
      '--seed',
      '7',
      '--out',
      'o',
    ]);
    expect(command).toMatchObject({
      kind: 'lab',
      target: 'x.yaml',
      variants: ['bad', 'good'],
      scale: 0.05,
      durationMs: 120_000,
      db: 'postgres://u:secret@127.0.0.1:5432/d',
      seed: 7,
      out: 'o',
    });
    // the reproduce line goes into reports: it never carries the database URL (and its password)
    expect((command as { reproduce: string }).reproduce).not.toContain('secret');
    expect(parseCommandLine(['lab', '--duration', '1500ms'])).toMatchObject({ durationMs: 1500 });
  });

  it.each([
    [['lab', 'a', 'b'], 'lab takes at most one scenario, got 2: a b'],
    [['lab', '--scale', '0'], "--scale: '0' is not a number in (0, 1]"],
    [['lab', '--scale', '2'], "--scale: '2' is not a number in (0, 1]"],
    [['lab', '--scale', 'NaN'], "--scale: 'NaN' is not a number in (0, 1]"],
    [['lab', '--duration', '45'], "--duration: '45' needs a unit: 45s or 45m"],
    [['lab', '--duration', 'soon'], "--duration: 'soon' is not a duration such as 45s or 2m"],
    [['lab', '--duration', '2h'], "--duration: '2h' is not a duration such as 45s or 2m"],
    [['lab', '--duration', '500ms'], '--duration: 500ms is outside 1 s to 1 h'],
    [['lab', '--db', 'mysql://x'], "--db: expected a postgres:// URL, got 'mysql://x'"],
    [['lab', '--variant', ','], '--variant needs a variant name'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(usageMessage(argv)).toBe(message);
  });

  it('reads lint', () => {
    expect(parseCommandLine(['lint', 'checkout-incident', '--variant', 'bad', '--json'])).toEqual({
      kind: 'lint',
      target: 'checkout-incident',
      variant: 'bad',
      maps: [],
      json: true,
      wide: false,
    });
  });

  it.each([
    [['mesh', '--help'], 'mesh'],
    [['mesh', 'import', '--help'], 'mesh import'],
    [['mesh', 'export', '--help'], 'mesh export'],
    [['mesh', 'export', 'x', '--help'], 'mesh export'],
    [['lint', '--help'], 'lint'],
  ])('%j asks for help on %s', (argv, topic) => {
    expect(parseCommandLine(argv)).toEqual({ kind: 'help', topic });
  });

  it.each([
    [['mesh'], 'mesh needs a subcommand: import or export (seawall mesh --help)'],
    [['mesh', 'sync'], "unknown mesh subcommand 'sync' (import or export)"],
    [['mesh', 'import'], 'mesh import takes one Envoy or Istio YAML file'],
    [['mesh', 'export', 'a', 'b'], 'mesh export takes one scenario'],
    [['mesh', 'export', 'x', '--format', 'linkerd'], "--format: 'linkerd' is not envoy, istio or both"],
    [['mesh', 'export', 'x', '--seed', '1'], 'mesh export does not take --seed'],
    [['mesh', 'import', 'x', '--format', 'envoy'], 'mesh import does not take --format'],
    [['mesh', 'import', 'x', '--variant', 'a,b'], 'mesh import takes one --variant'],
    [['lint'], 'lint takes one file: a scenario or a mesh config'],
    [['lint', 'x', '--out', 'd'], 'lint does not take --out'],
    [['simulate', 'x', '--map', 'a=b'], 'simulate does not take --map'],
    [['simulate', 'x', '--format', 'envoy'], 'simulate does not take --format'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(usageMessage(argv)).toBe(message);
  });
});

describe('reproduceCommand', () => {
  it('rebuilds the command line, quoting what a shell would split', () => {
    const command = simulate(['simulate', 'my scenario.yaml', '--variant', 'bad', '--seeds', '1,2', '--out', 'out/x']);
    expect(reproduceCommand(command)).toBe(
      "npx seawall simulate 'my scenario.yaml' --variant bad --seeds 1,2 --out out/x",
    );
    expect(reproduceCommand(simulate(['simulate', 'checkout-incident', '--seed', '3']))).toBe(
      'npx seawall simulate checkout-incident --seed 3',
    );
  });

  it.each([
    ['plain-name_1.yaml', 'plain-name_1.yaml'],
    ["it's", `'it'\\''s'`],
    ['$(rm -rf /)', "'$(rm -rf /)'"],
  ])('shellQuote(%j) = %j', (arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });
});

describe('helpText', () => {
  it('lists the mesh and lint commands, and has a page for each', () => {
    expect(helpText('main', '1')).toContain('mesh import <mesh.yaml>');
    expect(helpText('main', '1')).toContain('lint <file>');
    expect(helpText('mesh import', '1')).toContain('--map HOST=SERVICE');
    expect(helpText('mesh export', '1')).toContain('--format F');
    expect(helpText('lint', '1')).toContain('Exit codes: 0 no errors');
  });

  it('names the version, the command and every simulate option', () => {
    const text = helpText('main', '9.9.9');
    expect(text).toContain('seawall 9.9.9');
    for (const option of ['--variant', '--seed N', '--seeds 1,2,3', '--json', '--out DIR', '--list', '--wide']) {
      expect(text).toContain(option);
    }
    expect(helpText('lab', '1')).toContain('--wide');
  });

  it.each(['main', 'simulate', 'lab', 'mesh', 'mesh import', 'mesh export', 'lint'] as const)(
    'fits an 80-column terminal: %s',
    (topic) => {
      const widest = Math.max(
        ...helpText(topic, '0.1.0')
          .split('\n')
          .map((l) => l.length),
      );
      expect(widest).toBeLessThanOrEqual(HELP_WIDTH);
      expect(HELP_WIDTH).toBe(80);
    },
  );
});
