// The command line forgives typos: "did you mean" for options, commands and mesh subcommands; flags written --x=true.
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './args.js';

const refusal = (argv: string[]): string => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('did you mean', () => {
  it.each([
    [['simulate', 'x', '--wdie'], 'unknown option --wdie; did you mean --wide?'],
    [['simulate', 'x', '--seeed', '2'], 'unknown option --seeed; did you mean --seed?'],
    [['lint', 'x', '--jsno'], 'unknown option --jsno; did you mean --json?'],
    [['simulate', 'x', '--variants', 'bad'], 'unknown option --variants; did you mean --variant?'],
  ])('suggests the option closest to a misspelt one: %j', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it('suggests nothing for an option far from every known one', () => {
    expect(refusal(['simulate', 'x', '--frobnicate'])).toBe('unknown option --frobnicate');
  });

  it.each([
    ['simulte', 'simulate'],
    ['lnt', 'lint'],
    ['msh', 'mesh'],
    ['lb', 'lab'],
  ])('suggests the command closest to %s', (typo, command) => {
    expect(refusal([typo, 'x'])).toBe(
      `unknown command '${typo}'; did you mean ${command}? (the commands are: simulate, lab, mesh, lint)`,
    );
  });

  it('suggests the mesh subcommand closest to a misspelt one', () => {
    expect(refusal(['mesh', 'exprot', 'x'])).toBe(
      "unknown mesh subcommand 'exprot'; did you mean export? (import or export)",
    );
    expect(refusal(['mesh', 'imprt', 'x'])).toBe(
      "unknown mesh subcommand 'imprt'; did you mean import? (import or export)",
    );
    expect(refusal(['mesh', 'zzz', 'x'])).toBe("unknown mesh subcommand 'zzz' (import or export)");
  });
});

describe('flags written with a value', () => {
  it.each([
    ['--wide=true', true],
    ['--wide=TRUE', true],
    ['--wide=1', true],
    ['--wide=yes', true],
    ['--wide=false', false],
    ['--wide=0', false],
  ])('reads %s', (flag, wide) => {
    expect(parseCommandLine(['simulate', 'checkout-incident', flag])).toMatchObject({ kind: 'simulate', wide });
  });

  it('reads --json=true and --list=false the same way', () => {
    expect(parseCommandLine(['simulate', 'x', '--json=true', '--list=false'])).toMatchObject({
      json: true,
      list: false,
    });
  });

  it('refuses another value, naming the ones it takes', () => {
    expect(refusal(['simulate', 'x', '--wide=maybe'])).toBe('--wide is a flag: give --wide (or --wide=true / false)');
  });

  it('leaves what follows -- alone', () => {
    expect(refusal(['simulate', '--', '--wide=true', 'y'])).toMatch(/simulate takes one scenario/);
  });
});

describe('each mesh subcommand has its own help', () => {
  it.each([
    [['mesh', 'import', '--help'], 'mesh import'],
    [['mesh', 'export', '--help'], 'mesh export'],
    [['mesh', 'export', 'checkout-incident', '-h'], 'mesh export'],
    [['mesh', '--help'], 'mesh'],
  ])('%j', (argv, topic) => {
    expect(parseCommandLine(argv)).toEqual({ kind: 'help', topic });
  });
});
