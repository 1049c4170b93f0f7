// The circuit breaker's failure-rate window (breaker.ts): fixed buckets in a ring that grows with use up to its size.

const NO_BUCKETS = new Float64Array(0);
/** The first allocation, in buckets (16 bytes each); then doubled until the window's own size. */
export const FIRST_WINDOW_BUCKETS = 8;

/**
 * Calls and failures per fixed bucket: bucket n covers positions [n·width, (n+1)·width), and the window is the newest
 * `buckets` of them. A time window's position is `nowMs`; a count window's is the call's ordinal (width 1: the last
 * `size` calls). The current bucket counts whole, so a time window spans between duration − width and duration.
 * Memory grows with use, not with the configured size (issue #25): nothing until the first call, then 8 buckets,
 * doubled as calls need them, at most `buckets` (16 bytes each). Bucket i lives at slot (i − base) mod buckets, so a
 * grown array keeps every slot where it was; a window that emptied (a gap longer than it) starts over at slot 0.
 */
export class BucketWindow {
  calls = 0;
  failures = 0;
  /** [calls, failures] per bucket. */
  private counts: Float64Array = NO_BUCKETS;
  /** The newest bucket's number; NaN until the first position. */
  private head = Number.NaN;
  /** The bucket at slot 0; NaN until the first bucket. */
  private base = Number.NaN;
  constructor(
    private readonly width: number,
    private readonly buckets: number,
  ) {}
  get bytes(): number {
    return this.counts.byteLength;
  }
  /** Empties the buckets that left the window. A position that steps back, or is not finite, moves nothing. */
  advance(position: number): void {
    if (!Number.isFinite(position)) return;
    const n = Math.floor(position / this.width);
    // @eq breaker-head
    if (!(n > this.head)) {
      if (Number.isNaN(this.head)) this.head = n;
      if (Number.isNaN(this.base)) this.base = n;
      return;
    }
    if (n - this.head >= this.buckets) {
      // Every bucket left the window: it starts over at n, in the storage it has.
      this.counts.fill(0);
      this.calls = this.failures = 0;
      this.head = this.base = n;
      return;
    }
    this.reserve(n);
    const counts = this.counts;
    for (let i = this.head + 1; i <= n; i++) {
      const s = this.slot(i);
      this.calls -= counts[s] as number;
      this.failures -= counts[s + 1] as number;
      counts[s] = counts[s + 1] = 0;
    }
    this.head = n;
  }
  record(failed: boolean, position: number): void {
    this.advance(position);
    const head = Number.isNaN(this.head) ? 0 : this.head;
    if (Number.isNaN(this.base)) this.base = head;
    this.reserve(head);
    const s = this.slot(head);
    this.counts[s] = (this.counts[s] as number) + 1;
    this.calls++;
    if (failed) {
      this.counts[s + 1] = (this.counts[s + 1] as number) + 1;
      this.failures++;
    }
  }
  reset(): void {
    this.counts.fill(0);
    this.calls = this.failures = 0;
    this.head = this.base = Number.NaN;
  }
  /** The index of bucket `i`'s calls (its failures follow). */
  private slot(i: number): number {
    const b = this.buckets;
    return 2 * ((((i - this.base) % b) + b) % b);
  }
  /** Grows the storage (geometrically, up to `buckets`) until bucket `n` has a slot of its own. */
  private reserve(n: number): void {
    const have = this.counts.length / 2;
    const need = n - this.base + 1;
    if (need <= have || have >= this.buckets) return;
    // @ko breaker-window-grows-on-use
    const size = Math.min(this.buckets, Math.max(FIRST_WINDOW_BUCKETS, 2 * have, need));
    const grown = new Float64Array(2 * size);
    grown.set(this.counts);
    this.counts = grown;
  }
}
