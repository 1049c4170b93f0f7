// Durations as the meshes write them: Envoy's proto3 JSON ("0.25s") and Istio's Go-style ("250ms", "1m30s"), to and from ms.

import { MAX_DURATION_MS } from '../policy/core/duration.js';

/** proto3 JSON mapping of google.protobuf.Duration: seconds with up to 9 fractional digits, then "s". */
const PROTO_DURATION = /^(\d{1,12})(?:\.(\d{1,9}))?s$/;
/** Go's time.ParseDuration (what Istio's CRDs check with CEL `duration()`): one or more number+unit pairs. */
const GO_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
const GO_UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const NS_PER_MS = 1_000_000n;
const MAX_NS = BigInt(MAX_DURATION_MS) * NS_PER_MS;

export type DurationRead = { ok: true; ms: number } | { ok: false; message: string };

function fromNs(ns: bigint): DurationRead {
  if (ns > MAX_NS) return { ok: false, message: 'must be at most 24h (Seawall bounds every duration)' };
  return { ok: true, ms: Number(ns) / 1e6 };
}

/** Reads Envoy's "1.5s" / "0.025s" / "0s". Numbers and other spellings are refused: Envoy refuses them too. */
export function readProtoDuration(value: unknown): DurationRead {
  if (typeof value !== 'string') {
    return { ok: false, message: `must be a duration string such as "0.25s" (proto3 JSON), got ${describe(value)}` };
  }
  const match = PROTO_DURATION.exec(value);
  if (!match)
    return { ok: false, message: `must be a duration such as "0.25s" (proto3 JSON), got ${JSON.stringify(value)}` };
  const fraction = (match[2] ?? '').padEnd(9, '0');
  return fromNs(BigInt(match[1] as string) * 1_000_000_000n + BigInt(fraction === '' ? '0' : fraction));
}

/**
 * A Duration as Envoy reads most of them: whole milliseconds, the nanoseconds below truncated (PROTOBUF_GET_MS_OR_DEFAULT
 * and friends in source/common/protobuf/utility.h go through DurationUtil::durationToMilliseconds, which is protobuf's
 * TimeUtil::DurationToMilliseconds: seconds × 1000 + nanos / 1e6 in integer arithmetic). So "0.000000001s" is 0 ms,
 * and "0.0019s" is 1 ms. `value` is one the schema has accepted; anything else reads as 0.
 */
export function envoyMs(value: string): number {
  const read = readProtoDuration(value);
  // ms is ns / 1e6 correctly rounded; at most 24 h of ns, so flooring it never crosses a whole ms it should not.
  // @ko envoy-duration-truncates-to-ms
  return read.ok ? Math.floor(read.ms) : 0;
}

/** Reads Istio's Go-style duration ("1s", "250ms", "1m30s", "1.5s"). */
export function readGoDuration(value: unknown): DurationRead {
  if (typeof value !== 'string') {
    return { ok: false, message: `must be a duration string such as "250ms" or "1s", got ${describe(value)}` };
  }
  if (value === '' || value.length > 64)
    return { ok: false, message: `must be a duration such as "250ms" or "1s", got ${JSON.stringify(value)}` };
  let ns = 0n;
  GO_PART.lastIndex = 0;
  while (GO_PART.lastIndex < value.length) {
    const start = GO_PART.lastIndex;
    const match = GO_PART.exec(value);
    if (!match || match.index !== start) {
      return { ok: false, message: `must be a duration such as "250ms" or "1s", got ${JSON.stringify(value)}` };
    }
    const [whole = '0', frac = ''] = (match[1] as string).split('.');
    const unit = GO_UNIT_NS[match[2] as string] as bigint;
    const digits = frac.slice(0, 9).padEnd(9, '0');
    ns += BigInt(whole === '' ? '0' : whole) * unit + (BigInt(digits) * unit) / 1_000_000_000n;
    if (ns > MAX_NS) return { ok: false, message: 'must be at most 24h (Seawall bounds every duration)' };
  }
  return fromNs(ns);
}

/** Whole nanoseconds of `ms` (Seawall durations are finite and at most 24 h). */
function nanos(ms: number): bigint {
  return BigInt(Math.round(ms * 1e6));
}

/** Envoy's spelling of `ms`: "0.25s", "1s", "0.000001s". */
export function writeProtoDuration(ms: number): string {
  const ns = nanos(ms);
  const seconds = ns / 1_000_000_000n;
  const rest = ns % 1_000_000_000n;
  if (rest === 0n) return `${seconds}s`;
  return `${seconds}.${rest.toString().padStart(9, '0').replace(/0+$/, '')}s`;
}

/**
 * Envoy's spelling of a positive `ms` where its protos say `duration.gt: {}` or 0 means "none": at least 1 ms, since
 * Envoy reads whole milliseconds (envoyMs) and would read anything shorter as 0, that is refused or disabled.
 */
export function writePositiveProtoDuration(ms: number): string {
  // @ko envoy-export-at-least-1ms
  return writeProtoDuration(Math.max(ms, 1));
}

/** Istio's spelling of a positive `ms` it validates (ValidateDuration): a whole number of ms, at least 1 ms. */
export function writeIstioDuration(ms: number): string {
  return writeGoDuration(Math.max(1, Math.round(ms)));
}

/** Istio's spelling of `ms`: "2s", "250ms", or "1500us"-style when below a millisecond. */
export function writeGoDuration(ms: number): string {
  const ns = nanos(ms);
  if (ns % 1_000_000_000n === 0n) return `${ns / 1_000_000_000n}s`;
  if (ns % NS_PER_MS === 0n) return `${ns / NS_PER_MS}ms`;
  if (ns % 1000n === 0n) return `${ns / 1000n}us`;
  return `${ns}ns`;
}

/** Seawall's own spelling, for generated scenario files: "800ms", "2s", or a number of ms when fractional. */
export function writeSeawallDuration(ms: number): string | number {
  if (Number.isInteger(ms / 1000) && ms >= 1000) return `${ms / 1000}s`;
  if (Number.isInteger(ms)) return `${ms}ms`;
  return ms;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : `the number ${value}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? 'a mapping' : typeof value;
}
