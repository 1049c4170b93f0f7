// Latency histogram for the overload bench: log-spaced buckets (~2 % wide), no per-sample allocation.

const BUCKETS_PER_DOUBLING = 32;
const MIN_MS = 0.01;
const MAX_BUCKET = BUCKETS_PER_DOUBLING * 24; // 0.01 ms .. ~168 s

export class LatencyHistogram {
  private readonly counts = new Float64Array(MAX_BUCKET + 1);
  count = 0;

  record(ms: number): void {
    const i = ms <= MIN_MS ? 0 : Math.min(MAX_BUCKET, Math.ceil(Math.log2(ms / MIN_MS) * BUCKETS_PER_DOUBLING));
    this.counts[i] = (this.counts[i] as number) + 1;
    this.count++;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
  }

  /** Upper edge of the bucket holding quantile q (0..1); 0 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i <= MAX_BUCKET; i++) {
      seen += this.counts[i] as number;
      if (seen >= rank) return Math.round(MIN_MS * 2 ** (i / BUCKETS_PER_DOUBLING) * 10) / 10;
    }
    return Infinity;
  }
}
