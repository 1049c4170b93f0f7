// The one latency histogram (simulator, lab, HTTP telemetry): log-linear buckets (< 1 % relative error), exact maxima.

/** Sub-buckets per power of two: 2^7 = 128, so a bucket is at most 1/128 ≈ 0.8 % wide relative to its values. */
const SUB_BITS = 7;
/** Values below 2^MIN_EXP ms (~1 µs) share the first bucket; above 2^MAX_EXP ms (~37 h) the last. */
const MIN_EXP = -10;
const MAX_EXP = 27;
const BUCKETS = (MAX_EXP - MIN_EXP + 1) << SUB_BITS;
const MIN_VALUE = 2 ** MIN_EXP;
const MAX_VALUE = 2 ** (MAX_EXP + 1) - 1;
/** IEEE-754 exponent bias, shifted to where the high word keeps the exponent and the top mantissa bits. */
const OFFSET = (1023 + MIN_EXP) << SUB_BITS;

// One shared scratch view: the bucket comes from the float's bits (exponent + top mantissa bits), no logarithm.
const scratch = new Float64Array(1);
const scratchHigh = new Uint32Array(scratch.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

function bucketOf(valueMs: number): number {
  if (!(valueMs >= MIN_VALUE)) return 0;
  scratch[0] = Math.min(valueMs, MAX_VALUE);
  return ((scratchHigh[HIGH] as number) >>> (20 - SUB_BITS)) - OFFSET;
}

/**
 * Memory is a fixed ~5 k buckets whatever the number of samples (HdrHistogram-style log-linear layout).
 * Quantiles are reported as the largest value seen in the bucket that holds the requested rank: never below the
 * true sample, less than 1 % above it, and exact when every sample in that bucket is equal (e.g. users who gave
 * up, all counted as their patience).
 */
export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private readonly maxima = new Float64Array(BUCKETS);
  private total = 0;
  private sumOfMs = 0;
  private maxOfMs = 0;

  get count(): number {
    return this.total;
  }

  /** Sum of every recorded value, ms. */
  get sumMs(): number {
    return this.sumOfMs;
  }

  /** The largest recorded value, ms (0 when empty). */
  get maxMs(): number {
    return this.maxOfMs;
  }

  /**
   * Records one value. A value no clock can give (NaN, negative: a wall clock that stepped back) counts as 0 and an
   * infinite one as the last bucket's bound, so one bad reading can never turn the sum or the maximum into NaN or
   * Infinity for the life of the histogram; every call still counts once.
   */
  record(ms: number): void {
    const valueMs = ms >= 0 ? (ms === Number.POSITIVE_INFINITY ? MAX_VALUE : ms) : 0;
    const index = bucketOf(valueMs);
    this.counts[index] = (this.counts[index] as number) + 1;
    if (valueMs > (this.maxima[index] as number)) this.maxima[index] = valueMs;
    this.total++;
    this.sumOfMs += valueMs;
    if (valueMs > this.maxOfMs) this.maxOfMs = valueMs;
  }

  /**
   * Values at most `leMs`, at the histogram's resolution: every bucket below the one `leMs` falls in, and that bucket
   * too when its largest value is at most `leMs` (so a value exactly at a bound counts; one within the bucket's
   * 0.8 % above it does not). For cumulative "le" buckets (Prometheus, OpenTelemetry).
   */
  countAtMost(leMs: number): number {
    if (leMs === Number.POSITIVE_INFINITY) return this.total;
    const last = bucketOf(leMs);
    let n = 0;
    for (let i = 0; i < last; i++) n += this.counts[i] as number;
    // @ko one-histogram-at-most
    if ((this.maxima[last] as number) <= leMs) n += this.counts[last] as number;
    return n;
  }

  /** Nearest-rank quantile (q in (0, 1]); 0 when empty. */
  quantile(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i] as number;
      if (seen >= rank) return this.maxima[i] as number;
    }
    return 0;
  }
}
