// Values on the command line: the usage error they raise, seeds, durations, and quoting for the reproduce line.

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'SEAWALL_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const MAX_SEED = 2 ** 32 - 1;

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

/** A duration with its unit (45s, 2m, 1500ms), for --duration; a bare number is refused. */
export function parseDurationOption(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  if (m === null) throw new UsageError(`--duration: '${text}' is not a duration such as 45s or 2m`);
  const value = Number(m[1]);
  if (m[2] === undefined) throw new UsageError(`--duration: '${text}' needs a unit: ${text}s or ${text}m`);
  const ms = m[2] === 's' ? value * 1000 : m[2] === 'm' ? value * 60_000 : value;
  if (!(ms >= 1000 && ms <= 3_600_000)) throw new UsageError(`--duration: ${text} is outside 1 s to 1 h`);
  return Math.round(ms);
}

/** Quotes one argument for a POSIX shell when it needs it. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
