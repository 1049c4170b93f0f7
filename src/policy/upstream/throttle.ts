// Client-side adaptive throttling (SRE book ch. 21): a bounded time-bucketed window of requests and accepts, and the local refusal it draws.

import type { Random } from '../core/random.js';
import type { HeaderValue, Outcome } from '../core/types.js';
import {
  type ResolvedThrottleConfig,
  resolveThrottleConfig,
  type ThrottleConfig,
  WINDOW_BUCKETS,
} from './throttle-config.js';

export * from './throttle-config.js';

/**
 * The SRE book's client-side rejection probability: max(0, (requests − k·accepts) / (requests + padding)). The book
 * pads with 1; `padding` is there for gRPC's RLS throttler, which pads with 8 (its test vectors are replayed with it).
 */
export function rejectProbability(requests: number, accepts: number, k: number, padding = 1): number {
  // @ko throttle-formula
  return Math.max(0, (requests - k * accepts) / (requests + padding));
}

function present(value: HeaderValue): boolean {
  return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/**
 * Is `outcome` the callee itself saying "too much"? Its own 429 or 503 (a load shedder's answer is one), or an error
 * answer carrying pushback (Retry-After, retry-after-ms, grpc-retry-pushback-ms). A relayed error (claim `unclaimed`
 * or `criteria-met`: a hop further down failed, the callee only passed it on) is not: it says nothing of the callee's
 * load. An answer with no claim (`absent`: a callee without Seawall) is taken at its word.
 */
export function isOverloadAnswer(outcome: Outcome): boolean {
  if (outcome.kind !== 'response') return false;
  const claim = outcome.claim;
  // @ko throttle-relayed-ignored
  if (claim === 'unclaimed' || claim === 'criteria-met') return false;
  const status = outcome.status;
  if (status === 429 || status === 503) return true;
  return status >= 400 && (present(outcome.pushbackMs) || present(outcome.retryAfter) || present(outcome.retryAfterMs));
}

/** Attempts refused locally, sent, and of the sent ones ended with the callee's own overload answer, since creation. */
export interface ThrottleCounts {
  throttled: number;
  sent: number;
  rejected: number;
}

export interface ThrottleStats extends ThrottleCounts {
  /** Requests and accepts in the window now. */
  requests: number;
  accepts: number;
  /** The probability the next attempt is refused now (0 below minRequests). */
  rejectProbability: number;
}

/**
 * One upstream's adaptive throttle, sans I/O: every method takes `now`, the draw comes from the Random passed in.
 * `requests` counts every attempt the caller made: one refused here at once, one sent when it is sent (not when it
 * ends); `accepts` counts the sent ones that ended with anything but the callee's own overload answer. Both live in
 * WINDOW_BUCKETS buckets spanning `window`: the oldest bucket's counts leave together, so memory is fixed and a
 * rejection is forgotten one window after it happened. First attempts and retries draw on the same window.
 */
export class AdaptiveThrottle {
  readonly config: ResolvedThrottleConfig;
  private readonly requestsBy = new Float64Array(WINDOW_BUCKETS);
  private readonly acceptsBy = new Float64Array(WINDOW_BUCKETS);
  private readonly bucketMs: number;
  /** The absolute number of the bucket counts go to (floor(now / bucketMs)); -1 before the first time seen. */
  private current = -1;
  private requests = 0;
  private accepts = 0;
  private throttled = 0;
  private sentCount = 0;
  private rejected = 0;

  constructor(config: ThrottleConfig | ResolvedThrottleConfig) {
    this.config = 'windowMs' in config ? config : resolveThrottleConfig(config);
    this.bucketMs = this.config.windowMs / WINDOW_BUCKETS;
  }

  /**
   * Moves the window to `nowMs`: buckets older than the window are emptied. Time going back changes nothing, and so
   * does a NaN or infinite `now` (a NaN bucket would lose every count after it; an infinite one freeze the window).
   */
  private advance(nowMs: number): void {
    // @ko throttle-finite-now
    if (!Number.isFinite(nowMs)) return;
    const bucket = Math.floor(Math.max(0, nowMs) / this.bucketMs);
    const current = this.current;
    if (bucket <= current) return;
    this.current = bucket;
    if (current < 0) return;
    // @ko throttle-window-expiry
    const steps = Math.min(bucket - current, WINDOW_BUCKETS);
    for (let i = 1; i <= steps; i++) {
      const at = (current + i) % WINDOW_BUCKETS;
      this.requests -= this.requestsBy[at] as number;
      this.accepts -= this.acceptsBy[at] as number;
      this.requestsBy[at] = 0;
      this.acceptsBy[at] = 0;
    }
  }

  /** The probability an attempt is refused at `nowMs`: 0 while the window holds fewer than minRequests requests. */
  probability(nowMs: number): number {
    this.advance(nowMs);
    // @ko throttle-volume-gate
    if (this.requests < this.config.minRequests) return 0;
    return rejectProbability(this.requests, this.accepts, this.config.k);
  }

  /**
   * May an attempt go out at `nowMs`? A draw is taken from `draws` only when the probability is above 0. False:
   * refused, and counted as a request (the caller did want to send it).
   */
  admit(nowMs: number, draws: Random): boolean {
    const p = this.probability(nowMs);
    if (p === 0 || draws.next() >= p) return true;
    this.count(nowMs);
    this.throttled++;
    return false;
  }

  /**
   * The attempt admit() let through is sent: one more request, in the bucket of its admission (admit() moved the
   * window there; a driver with a pool reports the send a moment later, without a time of its own).
   */
  sent(): void {
    this.count(this.current * this.bucketMs);
    this.sentCount++;
  }

  /** A sent attempt ended at `nowMs` with `outcome`: an accept unless it is the callee's own overload answer. */
  ended(nowMs: number, outcome: Outcome): void {
    this.advance(nowMs);
    if (isOverloadAnswer(outcome)) {
      this.rejected++;
      return;
    }
    const at = this.current % WINDOW_BUCKETS;
    this.acceptsBy[at] = (this.acceptsBy[at] as number) + 1;
    this.accepts++;
  }

  counts(): ThrottleCounts {
    return { throttled: this.throttled, sent: this.sentCount, rejected: this.rejected };
  }

  stats(nowMs: number): ThrottleStats {
    const rejectProbability = this.probability(nowMs);
    return { requests: this.requests, accepts: this.accepts, rejectProbability, ...this.counts() };
  }

  private count(nowMs: number): void {
    this.advance(nowMs);
    const at = this.current % WINDOW_BUCKETS;
    this.requestsBy[at] = (this.requestsBy[at] as number) + 1;
    this.requests++;
  }
}
