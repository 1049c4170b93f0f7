// Durations in public config: a number of milliseconds, or a string such as "800ms", "2s", "1.5m".

import { ConfigError, type ConfigIssue } from './config-error.js';

/** A duration as users write it: milliseconds as a number, or a string with a unit (us, ms, s, m, h). */
export type Duration = number | string;

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)\s*(us|ms|s|m|h)$/;

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
    ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
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
