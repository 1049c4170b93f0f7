// Picks the endpoint of each attempt: round-robin or power-of-two-choices over endpoints not ejected; a retry avoids the last one.

import { ConfigError, type ConfigIssue, joinPath, unknownKey } from '../core/config-error.js';

export type BalancerKind = 'round-robin' | 'p2c';

export interface LoadBalancerConfig {
  /**
   * round-robin: each endpoint in turn. p2c: two endpoints drawn at random (with replacement, so both draws may name
   * the same one), the one with fewer attempts in flight wins, the first on a tie: Envoy's LEAST_REQUEST with
   * choice_count 2 and equal weights. Default round-robin.
   */
  kind?: BalancerKind;
  /**
   * Envoy's healthy_panic_threshold, in percent [0, 100]: when fewer than this share of the endpoints are available
   * (not ejected), ejections are ignored and every endpoint is used. Default 50. 0 = never panic: with every endpoint
   * ejected, pick() answers NO_ENDPOINT (Envoy's "no healthy upstream"). A fraction counts as Envoy reads it: the
   * whole percent below it (see panicPercent).
   */
  panicThreshold?: number;
}

export interface ResolvedLoadBalancerConfig {
  readonly kind: BalancerKind;
  readonly panicThreshold: number;
}

export const DEFAULT_PANIC_THRESHOLD = 50;
/** At most this many endpoints per balancer (in-flight counters and scans are per endpoint). */
export const MAX_BALANCER_ENDPOINTS = 10_000;
/** pick()'s answer when no endpoint may be used. */
export const NO_ENDPOINT = -1;

const KEYS = ['kind', 'panicThreshold'];
const KINDS: readonly BalancerKind[] = ['round-robin', 'p2c'];

/** Checks a load-balancer config, one issue per problem under `path`; undefined if any. A string is the kind. */
export function validateLoadBalancerConfig(
  input: unknown,
  path: string,
  issues: ConfigIssue[],
): ResolvedLoadBalancerConfig | undefined {
  const before = issues.length;
  if (input === undefined || input === null) return { kind: 'round-robin', panicThreshold: DEFAULT_PANIC_THRESHOLD };
  const record = typeof input === 'string' ? { kind: input } : input;
  if (typeof record !== 'object' || Array.isArray(record)) {
    issues.push({ path, message: 'must be round-robin, p2c, or { kind, panicThreshold }' });
    return undefined;
  }
  const o = record as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KEYS.includes(key)) issues.push(unknownKey(joinPath(path, key), key, KEYS));
  const kind = o.kind ?? 'round-robin';
  if (!KINDS.includes(kind as BalancerKind)) {
    issues.push({ path: joinPath(path, 'kind'), message: `must be one of ${KINDS.join(', ')}` });
  }
  const panic = o.panicThreshold ?? DEFAULT_PANIC_THRESHOLD;
  if (typeof panic !== 'number' || !(panic >= 0 && panic <= 100)) {
    issues.push({ path: joinPath(path, 'panicThreshold'), message: 'must be a percentage from 0 to 100' });
  }
  if (issues.length > before) return undefined;
  return { kind: kind as BalancerKind, panicThreshold: panic as number };
}

/** Resolves a config or throws ConfigError listing every problem. */
export function resolveLoadBalancerConfig(input: unknown): ResolvedLoadBalancerConfig {
  const issues: ConfigIssue[] = [];
  const resolved = validateLoadBalancerConfig(input, '', issues);
  if (resolved === undefined) throw new ConfigError(issues);
  return resolved;
}

/**
 * The panic threshold as Envoy applies it: a whole percent, `uint64(100 · (threshold / 100))`, which truncates
 * (source/common/protobuf/utility.cc, ProtobufPercentHelper::convertPercent, read through
 * PROTOBUF_PERCENT_TO_ROUNDED_INTEGER_OR_DEFAULT despite its name). So 50.9 is 50, and 29 is 28 (0.29 · 100 is
 * 28.999…): the double arithmetic is Envoy's, kept so a threshold means here what it means in the mesh.
 */
export function panicPercent(threshold: number): number {
  // @ko balancer-panic-whole-percent
  return Math.trunc(100 * (threshold / 100));
}

/** What the balancer asks of an outlier detector (OutlierDetector fits). */
export interface EjectionSource {
  isEjected(host: string, nowMs: number): boolean;
}

export interface BalancerStats {
  /** Endpoints chosen. */
  picks: number;
  /** Picks made with ejections ignored (Envoy lb_healthy_panic). */
  panics: number;
  /** Picks that found no endpoint (Envoy's "no healthy upstream"; panicThreshold 0 with every endpoint ejected). */
  noEndpoint: number;
  /** Retries sent to another endpoint than the one that failed (Envoy's previous_hosts retry predicate). */
  avoidedPrevious: number;
}

/**
 * One caller's choice among a fixed list of endpoints, sans-I/O. Driver protocol: pick() before each attempt (with
 * the endpoint of the attempt before, or -1, and two uniform draws), started(i) when the attempt goes out, ended(i)
 * exactly once when it ends. Ejections come from `ejections` (an OutlierDetector), read at pick time.
 */
export class Balancer {
  readonly endpoints: readonly string[];
  readonly config: ResolvedLoadBalancerConfig;
  private readonly ejections: EjectionSource | null;
  private readonly inFlight: Int32Array;
  /** Marks of the endpoints usable by the pick in progress. */
  private readonly usable: Uint8Array;
  private cursor = 0;
  private readonly counters: BalancerStats = { picks: 0, panics: 0, noEndpoint: 0, avoidedPrevious: 0 };
  /** The threshold in whole percent, as Envoy reads healthy_panic_threshold. */
  private readonly panicAt: number;

  /** Throws ConfigError for a bad config, RangeError for an empty, oversized or duplicated endpoint list. */
  constructor(endpoints: readonly string[], config: LoadBalancerConfig = {}, ejections: EjectionSource | null = null) {
    if (!Array.isArray(endpoints) || endpoints.length === 0) throw new RangeError('a balancer needs endpoints');
    if (endpoints.length > MAX_BALANCER_ENDPOINTS) {
      throw new RangeError(`at most ${MAX_BALANCER_ENDPOINTS} endpoints per balancer`);
    }
    if (new Set(endpoints).size !== endpoints.length) throw new RangeError('endpoints must be distinct');
    this.endpoints = Object.freeze([...endpoints]);
    this.config = resolveLoadBalancerConfig(config);
    this.panicAt = panicPercent(this.config.panicThreshold);
    this.ejections = ejections;
    this.inFlight = new Int32Array(endpoints.length);
    this.usable = new Uint8Array(endpoints.length);
  }

  /**
   * The endpoint index for the next attempt, or NO_ENDPOINT. `previous` is the endpoint of the call's failed attempt
   * (-1 for a first try): it is avoided when another endpoint is usable. `u1` and `u2` are uniform draws in [0, 1),
   * read only by p2c.
   */
  pick(nowMs: number, previous: number, u1: number, u2: number): number {
    // A bad draw is a driver bug: refused on every p2c pick, not only when two endpoints happen to be usable.
    if (this.config.kind === 'p2c') {
      checkDraw(u1);
      checkDraw(u2);
    }
    const n = this.endpoints.length;
    let count = this.markAvailable(nowMs);
    // @ko balancer-panic
    if (count * 100 < this.panicAt * n) {
      // Envoy's panic mode: too few endpoints left to carry the load, so ejection is ignored. (Envoy also never panics
      // while healthy · 1.4 ≥ all, its overprovisioning factor: that changes nothing for thresholds up to 71 %, and is
      // not modelled above them; see docs/reliability.md.)
      this.usable.fill(1);
      count = n;
      this.counters.panics++;
    }
    if (count === 0) {
      this.counters.noEndpoint++;
      return NO_ENDPOINT;
    }
    // @ko balancer-avoids-previous
    // @eq balancer-previous-previous-usable-previous
    if (previous >= 0 && previous < n && this.usable[previous] === 1 && count > 1) {
      this.usable[previous] = 0;
      count--;
      this.counters.avoidedPrevious++;
    }
    this.counters.picks++;
    return this.config.kind === 'p2c' ? this.pickTwo(count, u1, u2) : this.pickNext();
  }

  /**
   * pick() when there is nothing to choose (one endpoint, no ejection source): counts the pick and answers 0, as
   * pick() would, without reading the time or draws (a hot loop's shortcut: a boxed double per attempt costs).
   */
  pickOnly(): number {
    this.counters.picks++;
    return 0;
  }

  /** An attempt went out to endpoint `index`. */
  started(index: number): void {
    // @eq balancer-index-index-inflight-length
    if (index >= 0 && index < this.inFlight.length) this.inFlight[index] = (this.inFlight[index] as number) + 1;
  }

  /** An attempt to endpoint `index` ended (answer, timeout, abort): once per started(). */
  ended(index: number): void {
    const load = this.load(index); // 0 for an index that names no endpoint: nothing to end
    if (load > 0) this.inFlight[index] = load - 1;
  }

  /** Attempts in flight to endpoint `index`. */
  load(index: number): number {
    return this.inFlight[index] ?? 0;
  }

  stats(): BalancerStats {
    return { ...this.counters };
  }

  /** Marks the endpoints not ejected; returns how many. */
  private markAvailable(nowMs: number): number {
    const usable = this.usable;
    const ejections = this.ejections;
    if (ejections === null) {
      usable.fill(1);
      return usable.length;
    }
    let count = 0;
    for (let i = 0; i < usable.length; i++) {
      // @ko balancer-skips-ejected
      const ok = !ejections.isEjected(this.endpoints[i] as string, nowMs);
      usable[i] = ok ? 1 : 0;
      if (ok) count++;
    }
    return count;
  }

  /** Round-robin: the first usable endpoint at or after the cursor; the cursor moves past it. */
  private pickNext(): number {
    const n = this.usable.length;
    // @eq balancer-step-step-step
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      if (this.usable[i] === 1) {
        this.cursor = (i + 1) % n;
        return i;
      }
    }
    return NO_ENDPOINT; // unreachable: pick() checked count > 0
  }

  /**
   * Power of two choices as Envoy's LEAST_REQUEST draws them (unweightedHostPick, choice_count 2): two independent
   * draws over the usable endpoints, with replacement; fewer in flight wins, the first on a tie.
   */
  private pickTwo(count: number, u1: number, u2: number): number {
    // @eq balancer-count-nthusable
    if (count === 1) return this.nthUsable(0);
    const first = drawIndex(u1, count);
    // @ko balancer-p2c-with-replacement
    const second = drawIndex(u2, count);
    const a = this.nthUsable(first);
    const b = this.nthUsable(second);
    // @ko balancer-p2c-least-loaded
    return (this.inFlight[b] as number) < (this.inFlight[a] as number) ? b : a;
  }

  /** The index of the `n`th usable endpoint (0-based). */
  private nthUsable(n: number): number {
    let seen = 0;
    // @eq balancer-usable-length
    for (let i = 0; i < this.usable.length; i++) {
      if (this.usable[i] === 1) {
        if (seen === n) return i;
        seen++;
      }
    }
    return NO_ENDPOINT;
  }
}

/** A draw outside [0, 1) or NaN is a driver bug. */
function checkDraw(u: number): void {
  if (!(u >= 0 && u < 1)) throw new RangeError(`a draw must be in [0, 1), got ${u}`);
}

/** ⌊u × k⌋ clamped to [0, k − 1], for a draw u in [0, 1). */
function drawIndex(u: number, k: number): number {
  // @eq balancer-math-min-math-floor
  return Math.min(k - 1, Math.floor(u * k));
}
