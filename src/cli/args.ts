// Command-line parsing for `seawall`: argv -> a command, or a UsageError with a one-line message.
import { parseArgs } from 'node:util';

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'SEAWALL_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

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
}

export type Command = { kind: 'help'; topic: 'main' | 'simulate' } | { kind: 'version' } | SimulateCommand;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  variant: { type: 'string', multiple: true },
  seed: { type: 'string' },
  seeds: { type: 'string' },
  json: { type: 'boolean' },
  out: { type: 'string' },
  list: { type: 'boolean' },
} as const;

const SIMULATE_ONLY = ['variant', 'seed', 'seeds', 'json', 'out', 'list'] as const;
const MAX_SEED = 2 ** 32 - 1;

/** Turns node:util's parse errors into short messages that name the option. */
function usageFromParseError(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option ?? message}`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(option ? `option ${option} needs a value` : message);
  }
  return new UsageError(message.split('\n')[0] ?? message);
}

/** One seed: a non-negative integer below 2^32, written in decimal. */
export function parseSeed(text: string, option: string): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) throw new UsageError(`${option}: '${text}' is not a non-negative integer`);
  const seed = Number(trimmed);
  if (seed > MAX_SEED) throw new UsageError(`${option}: ${text} is too large (the largest seed is ${MAX_SEED})`);
  return seed;
}

/** "1,2,3" -> [1, 2, 3]; empty entries and repeats are usage errors. */
export function parseSeedList(text: string): number[] {
  const parts = text.split(',');
  if (parts.some((p) => p.trim() === ''))
    throw new UsageError(`--seeds: expected a comma-separated list such as 1,2,3`);
  const seeds = parts.map((p) => parseSeed(p, '--seeds'));
  const repeated = seeds.find((s, i) => seeds.indexOf(s) !== i);
  if (repeated !== undefined) throw new UsageError(`--seeds: seed ${repeated} is listed twice`);
  return seeds;
}

/** Parses argv (without node and the script). Throws UsageError. */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
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
  if (command !== 'simulate') throw new UsageError(`unknown command '${command}' (the command is: simulate)`);
  if (values.help) return { kind: 'help', topic: 'simulate' };
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
  return { kind: 'simulate', target, variants, seeds, json: values.json === true, outDir: values.out, list };
}

/** Quotes one argument for a POSIX shell when it needs it. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
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

export function helpText(topic: 'main' | 'simulate', version: string): string {
  const simulate = `Usage: seawall simulate <file.yaml | built-in> [options]
       seawall simulate --list              list the built-in scenarios
       seawall simulate <scenario> --list   list a scenario's variants

Runs a scenario in Seawall's deterministic simulator with every variant (or the ones named)
and prints a summary table: success rate and p99 per window, amplification at each service,
recovery time and wasted work.

Options:
  --variant NAME    run only this variant; repeat it or use commas for several (default: all, in file order)
  --seed N          the random seed (default 1); same scenario and seed = same results
  --seeds 1,2,3     run every variant with each of these seeds
  --json            print the summary as exactly one JSON document on stdout, nothing else
  --out DIR         also write DIR/summary.json, DIR/timeseries.csv and DIR/report.html
  --list            list scenarios or variants instead of running
  -h, --help        show this help

Exit codes: 0 done, 1 the scenario is invalid or the run failed, 2 the command line is wrong.
Example: seawall simulate checkout-incident --out out/checkout-incident`;
  if (topic === 'simulate') return `${simulate}\n`;
  return `seawall ${version}: retry budgets, deadlines and load shedding for Node.js, and a simulator that tests them

Usage: seawall <command> [options]

Commands:
  simulate <file.yaml | built-in>   run a scenario and report (seawall simulate --help)

Options:
  -h, --help      show this help
  -v, --version   print the version

${simulate}
`;
}
