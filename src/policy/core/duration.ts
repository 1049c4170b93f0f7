// Durations in public config: a number of milliseconds, or a string such as "800ms", "2s", "1.5m".

import { ConfigError, type ConfigIssue } from './config-error.js';

/** Milliseconds per unit: the one list of units, for the parser and for the type below. */
const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A unit a duration string may end with. */
export type DurationUnit = keyof typeof UNIT_MS;

/**
 * A duration as users write it: milliseconds as a number, or a number with a unit ("800ms", "1.5s", "2m", "250 us").
 * The type refuses a misspelt unit at compile time ('800sm', '2 sec'); the parser still checks every value, typed or
 * not (YAML, JSON, a `string` cast), and is the one that refuses what the type lets through ('-1s', '1e3ms').
 */
// @ko duration-unit-type
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`;

const DURATION_PATTERN = new RegExp(`^(\\d+(?:\\.\\d+)?|\\.\\d+)\\s*(${Object.keys(UNIT_MS).join('|')})$`);

/** Longest duration accepted anywhere in config (one day): larger values are almost always unit mistakes. */
export const MAX_DURATION_MS = 86_400_000;

/** Parses a duration, returning the milliseconds or a message saying what is wrong. */
export function tryParseDuration(value: unknown): { ok: true; ms: number } | { ok: false; message: string } {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = DURATION_PATTERN.exec(value.trim());
    if (!match) return { ok: false, message: `must be a duration like 800ms or 2s, got ${JSON.stringify(value)}` };
    ms = Number(match[1]) * UNIT_MS[match[2] as DurationUnit];
  } else {
    return { ok: false, message: `must be a duration (milliseconds or a string like "2s"), got ${typeof value}` };
  }
  if (!Number.isFinite(ms) || ms < 0) return { ok: false, message: `must be a finite, non-negative duration` };
  if (ms > MAX_DURATION_MS) return { ok: false, message: `must be at most 24h` };
  return { ok: true, ms };
}

/** Parses a duration or throws a ConfigError naming `path`. */
export function parseDuration(value: Duration, path = 'duration'): number {
  const parsed = tryParseDuration(value);
  if (!parsed.ok) throw new ConfigError([{ path, message: parsed.message }]);
  return parsed.ms;
}

/** Parses a duration into `issues` (for validators that collect every problem); returns undefined on error. */
export function collectDuration(value: unknown, path: string, issues: ConfigIssue[]): number | undefined {
  const parsed = tryParseDuration(value);
  if (!parsed.ok) {
    issues.push({ path, message: parsed.message });
    return undefined;
  }
  return parsed.ms;
}
