// Command-line parsing for `seawall`: argv -> a command, or a UsageError with a one-line message.
import { parseArgs } from 'node:util';
import { didYouMean } from '../policy/core/config-error.js';
import { parseDurationOption, parseSeed, parseSeedList, shellQuote, UsageError } from './arg-values.js';

export { parseSeed, parseSeedList, shellQuote, UsageError } from './arg-values.js';

export interface SimulateCommand {
  kind: 'simulate';
  /** A scenario file path or a built-in name; undefined only with `list`. */
  target: string | undefined;
  /** Variants to run, in the order given; empty = every variant. */
  variants: string[];
  /** Seeds to run; undefined = the simulator's default ([1]). */
  seeds: number[] | undefined;
  json: boolean;
  outDir: string | undefined;
  list: boolean;
  /** Every column of the table, no fit to the terminal's width. */
  wide: boolean;
}

export interface MeshImportCommand {
  kind: 'mesh-import';
  /** The Envoy or Istio YAML file. */
  file: string;
  /** HOST=SERVICE pairs, in the order given. */
  maps: string[];
  /** A scenario (built-in name or path) the output extends, adding one variant. */
  scenario: string | undefined;
  variant: string | undefined;
  out: string | undefined;
  json: boolean;
}

export interface MeshExportCommand {
  kind: 'mesh-export';
  target: string;
  variant: string | undefined;
  format: 'envoy' | 'istio' | 'both';
  out: string | undefined;
  namespace: string | undefined;
}

export interface LintCommand {
  kind: 'lint';
  /** A scenario (file or built-in name) or a mesh config. */
  target: string;
  variant: string | undefined;
  maps: string[];
  json: boolean;
  /** One line per finding, however long (default: wrapped to the terminal's width). */
  wide: boolean;
}

export interface LabCommand {
  kind: 'lab';
  /** A scenario file or built-in name (default checkout-incident). */
  target: string;
  variants: string[];
  scale: number | undefined;
  durationMs: number | undefined;
  db: string | undefined;
  seed: number | undefined;
  out: string | undefined;
  json: boolean;
  /** Every column of the table, no fit to the terminal's width. */
  wide: boolean;
  /** The command line that reproduces the run, for the report. */
  reproduce: string;
}

export type HelpTopic = 'main' | 'simulate' | 'mesh' | 'mesh import' | 'mesh export' | 'lint' | 'lab';

export type Command =
  | { kind: 'help'; topic: HelpTopic }
  | { kind: 'version' }
  | SimulateCommand
  | MeshImportCommand
  | MeshExportCommand
  | LintCommand
  | LabCommand;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  variant: { type: 'string', multiple: true },
  seed: { type: 'string' },
  seeds: { type: 'string' },
  json: { type: 'boolean' },
  out: { type: 'string' },
  list: { type: 'boolean' },
  wide: { type: 'boolean' },
  map: { type: 'string', multiple: true },
  scenario: { type: 'string' },
  format: { type: 'string' },
  namespace: { type: 'string' },
  scale: { type: 'string' },
  duration: { type: 'string' },
  db: { type: 'string' },
} as const;

const SIMULATE_ONLY = ['variant', 'seed', 'seeds', 'json', 'out', 'list', 'wide'] as const;
/** Options of the mesh and lint commands, which simulate does not take. */
const MESH_OPTIONS = ['map', 'scenario', 'format', 'namespace', 'scale', 'duration', 'db'] as const;
/** Which options each of the other commands takes. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'mesh import': ['map', 'scenario', 'variant', 'out', 'json'],
  'mesh export': ['variant', 'format', 'out', 'namespace'],
  lint: ['variant', 'json', 'map', 'wide'],
  lab: ['variant', 'scale', 'duration', 'db', 'seed', 'out', 'json', 'wide'],
};

type Values = Record<string, unknown>;

function refuseOthers(values: Values, command: string): void {
  const allowed = ALLOWED[command] ?? [];
  const stray = Object.keys(OPTIONS).find(
    (name) => values[name] !== undefined && !allowed.includes(name) && name !== 'help',
  );
  if (stray !== undefined) throw new UsageError(`${command} does not take --${stray}`);
}

function oneVariant(values: Values, command: string): string | undefined {
  const list = (values.variant as string[] | undefined) ?? [];
  if (list.length > 1 || list.some((v) => v.includes(','))) throw new UsageError(`${command} takes one --variant`);
  const v = list[0]?.trim();
  if (v === '') throw new UsageError('--variant needs a variant name');
  return v;
}

function nonEmpty(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${option} needs a value`);
  return value;
}

const COMMANDS = ['simulate', 'lab', 'mesh', 'lint'] as const;
const MESH_SUBCOMMANDS = ['import', 'export'] as const;

function parseMesh(rest: string[], values: Values): Command {
  const [sub, ...args] = rest;
  if (sub === undefined) {
    if (values.help) return { kind: 'help', topic: 'mesh' };
    throw new UsageError('mesh needs a subcommand: import or export (seawall mesh --help)');
  }
  if (sub !== 'import' && sub !== 'export') {
    // @ko cli-typo-subcommand
    const hint = didYouMean(sub, MESH_SUBCOMMANDS);
    throw new UsageError(`unknown mesh subcommand '${sub}'${hint} (import or export)`);
  }
  const command = `mesh ${sub}` as const;
  // @ko cli-mesh-subcommand-help
  if (values.help) return { kind: 'help', topic: command };
  refuseOthers(values, command);
  if (args.length !== 1 || args[0] === '') {
    throw new UsageError(
      sub === 'import' ? 'mesh import takes one Envoy or Istio YAML file' : 'mesh export takes one scenario',
    );
  }
  const target = args[0] as string;
  if (sub === 'import') {
    return {
      kind: 'mesh-import',
      file: target,
      maps: [...((values.map as string[] | undefined) ?? [])],
      scenario: nonEmpty(values.scenario, 'scenario'),
      variant: oneVariant(values, command),
      out: nonEmpty(values.out, 'out'),
      json: values.json === true,
    };
  }
  const format = (values.format as string | undefined) ?? 'both';
  if (format !== 'envoy' && format !== 'istio' && format !== 'both') {
    throw new UsageError(`--format: '${format}' is not envoy, istio or both`);
  }
  return {
    kind: 'mesh-export',
    target,
    variant: oneVariant(values, command),
    format,
    out: nonEmpty(values.out, 'out'),
    namespace: nonEmpty(values.namespace, 'namespace'),
  };
}

function parseLint(rest: string[], values: Values): Command {
  refuseOthers(values, 'lint');
  if (rest.length !== 1 || rest[0] === '') throw new UsageError('lint takes one file: a scenario or a mesh config');
  return {
    kind: 'lint',
    target: rest[0] as string,
    variant: oneVariant(values, 'lint'),
    maps: [...((values.map as string[] | undefined) ?? [])],
    json: values.json === true,
    wide: values.wide === true,
  };
}

/** Turns node:util's parse errors into short messages that name the option. */
function usageFromParseError(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = option?.replace(/^-+/, '').split('=')[0] ?? '';
    // @ko cli-typo-option
    const hint = option?.startsWith('--') ? didYouMean(name, Object.keys(OPTIONS), '--') : '';
    return new UsageError(`unknown option ${option ?? message}${hint}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(option ? `option ${option} needs a value` : message);
  }
  return new UsageError(message.split('\n')[0] ?? message);
}

function parseLab(rest: string[], values: Values): Command {
  refuseOthers(values, 'lab');
  if (rest.length > 1) throw new UsageError(`lab takes at most one scenario, got ${rest.length}: ${rest.join(' ')}`);
  const target = rest[0] ?? 'checkout-incident';
  if (target === '') throw new UsageError('the scenario name is empty');
  const variants: string[] = [];
  for (const item of (values.variant as string[] | undefined) ?? []) {
    for (const name of item.split(',')) {
      const trimmed = name.trim();
      if (trimmed === '') throw new UsageError('--variant needs a variant name');
      if (!variants.includes(trimmed)) variants.push(trimmed);
    }
  }
  let scale: number | undefined;
  if (values.scale !== undefined) {
    const text = String(values.scale).trim();
    scale = /^\d*\.?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(scale > 0 && scale <= 1)) throw new UsageError(`--scale: '${values.scale}' is not a number in (0, 1]`);
  }
  const durationMs = values.duration === undefined ? undefined : parseDurationOption(String(values.duration));
  const db = nonEmpty(values.db, 'db');
  if (db !== undefined && !/^postgres(ql)?:\/\//.test(db)) {
    throw new UsageError(`--db: expected a postgres:// URL, got '${db}'`);
  }
  const seed = values.seed === undefined ? undefined : parseSeed(String(values.seed), '--seed');
  const out = nonEmpty(values.out, 'out');
  const parts = ['npx', 'seawall', 'lab', target];
  for (const v of variants) parts.push('--variant', v);
  if (scale !== undefined) parts.push('--scale', String(scale));
  if (values.duration !== undefined) parts.push('--duration', String(values.duration));
  if (seed !== undefined) parts.push('--seed', String(seed));
  if (out !== undefined) parts.push('--out', out);
  return {
    kind: 'lab',
    target,
    variants,
    scale,
    durationMs,
    db,
    seed,
    out,
    json: values.json === true,
    wide: values.wide === true,
    reproduce: parts.map(shellQuote).join(' '),
  };
}

const FLAG_VALUES: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  1: true,
  0: false,
};

/**
 * `--wide=true` reads as `--wide` and `--wide=false` as nothing (scripts write flags that way); any other value of a
 * flag is a usage error naming the values it takes. Arguments after `--` are left alone.
 */
function flagValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^--([a-z]+)=(.*)$/s.exec(arg);
    const spec = m === null ? undefined : OPTIONS[m[1] as keyof typeof OPTIONS];
    if (m === null || spec === undefined || spec.type !== 'boolean') {
      out.push(arg);
      continue;
    }
    // @ko cli-flag-equals-true
    const value = FLAG_VALUES[(m[2] as string).toLowerCase()];
    if (value === undefined) throw new UsageError(`--${m[1]} is a flag: give --${m[1]} (or --${m[1]}=true / false)`);
    if (value) out.push(`--${m[1]}`);
  }
  return out;
}

/** Parses argv (without node and the script). Throws UsageError. */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: flagValues(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageFromParseError(error);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version && command === undefined) return { kind: 'version' };
  if (command === undefined) {
    if (values.help) return { kind: 'help', topic: 'main' };
    const stray = SIMULATE_ONLY.find((name) => values[name] !== undefined);
    if (stray) throw new UsageError(`--${stray} belongs to a command, e.g. seawall simulate <scenario> --${stray} ...`);
    throw new UsageError('no command given');
  }
  if (command === 'mesh' || command === 'lint' || command === 'lab') {
    if (values.help && command !== 'mesh') return { kind: 'help', topic: command };
    if (values.version) throw new UsageError('--version takes no command: seawall --version');
    if (command === 'lab') return parseLab(rest, values);
    return command === 'mesh' ? parseMesh(rest, values) : parseLint(rest, values);
  }
  if (command !== 'simulate') {
    // @ko cli-typo-command
    const hint = didYouMean(command, COMMANDS);
    throw new UsageError(`unknown command '${command}'${hint} (the commands are: ${COMMANDS.join(', ')})`);
  }
  if (values.help) return { kind: 'help', topic: 'simulate' };
  const meshOnly = MESH_OPTIONS.find((name) => values[name] !== undefined);
  if (meshOnly !== undefined) throw new UsageError(`simulate does not take --${meshOnly}`);
  if (values.version) throw new UsageError('--version takes no command: seawall --version');
  if (rest.length > 1) throw new UsageError(`simulate takes one scenario, got ${rest.length}: ${rest.join(' ')}`);
  const target = rest[0];
  const list = values.list === true;
  if (target === undefined && !list) throw new UsageError('simulate needs a scenario: a YAML file or a built-in name');
  if (target === '') throw new UsageError('the scenario name is empty');
  if (values.seed !== undefined && values.seeds !== undefined) {
    throw new UsageError('--seed and --seeds cannot be used together');
  }
  const seeds =
    values.seed !== undefined
      ? [parseSeed(values.seed, '--seed')]
      : values.seeds !== undefined
        ? parseSeedList(values.seeds)
        : undefined;
  const variants: string[] = [];
  for (const item of values.variant ?? []) {
    for (const name of item.split(',')) {
      const trimmed = name.trim();
      if (trimmed === '') throw new UsageError('--variant needs a variant name');
      if (!variants.includes(trimmed)) variants.push(trimmed);
    }
  }
  if (values.out !== undefined && values.out.trim() === '') throw new UsageError('--out needs a directory');
  return {
    kind: 'simulate',
    target,
    variants,
    seeds,
    json: values.json === true,
    outDir: values.out,
    list,
    wide: values.wide === true,
  };
}

/** The command line that reproduces a simulate run (without --json: it writes the same files). */
export function reproduceCommand(command: SimulateCommand): string {
  const parts = ['npx', 'seawall', 'simulate', command.target ?? ''];
  for (const variant of command.variants) parts.push('--variant', variant);
  if (command.seeds !== undefined) {
    if (command.seeds.length === 1) parts.push('--seed', String(command.seeds[0]));
    else parts.push('--seeds', command.seeds.join(','));
  }
  if (command.outDir !== undefined) parts.push('--out', command.outDir);
  return parts.map(shellQuote).join(' ');
}
