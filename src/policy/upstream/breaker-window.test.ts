// The breaker's window grows with use (issue #25): small until calls need more, counts identical to a fixed ring's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './breaker.js';
import { BucketWindow, FIRST_WINDOW_BUCKETS } from './breaker-window.js';

/** The window as first written: one array of the full size from the start, bucket n at slot n mod buckets. */
class FixedRing {
  calls = 0;
  failures = 0;
  private readonly counts: Float64Array;
  private head = Number.NaN;
  constructor(
    private readonly width: number,
    private readonly buckets: number,
  ) {
    this.counts = new Float64Array(2 * buckets);
  }
  advance(position: number): void {
    if (!Number.isFinite(position)) return;
    const n = Math.floor(position / this.width);
    if (!(n > this.head)) {
      if (Number.isNaN(this.head)) this.head = n;
      return;
    }
    for (let i = Math.max(this.head + 1, n - this.buckets + 1); i <= n; i++) {
      const s = 2 * (((i % this.buckets) + this.buckets) % this.buckets);
      this.calls -= this.counts[s] as number;
      this.failures -= this.counts[s + 1] as number;
      this.counts[s] = this.counts[s + 1] = 0;
    }
    this.head = n;
  }
  record(failed: boolean, position: number): void {
    this.advance(position);
    const head = Number.isNaN(this.head) ? 0 : this.head;
    const s = 2 * (((head % this.buckets) + this.buckets) % this.buckets);
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
    this.head = Number.NaN;
  }
}

type Step = { op: 'record'; failed: boolean; step: number } | { op: 'advance'; step: number } | { op: 'reset' };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('record' as const), failed: fc.boolean(), step: fc.nat(30) }), weight: 8 },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), step: fc.nat(400) }), weight: 2 },
  { arbitrary: fc.constant({ op: 'reset' as const }), weight: 1 },
);

describe('BucketWindow', () => {
  it('counts exactly what a full-size ring counts, through growth, gaps, steps back and resets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: -1000, max: 100_000 }),
        fc.array(stepArb, { minLength: 1, maxLength: 400 }),
        (width, buckets, start, steps) => {
          const grown = new BucketWindow(width, buckets);
          const fixed = new FixedRing(width, buckets);
          let position = start;
          for (const s of steps) {
            if (s.op === 'reset') {
              grown.reset();
              fixed.reset();
            } else {
              // Mostly forward, sometimes back (a clock that steps back moves nothing).
              position += s.step % 7 === 6 ? -s.step : s.step;
              if (s.op === 'record') {
                grown.record(s.failed, position);
                fixed.record(s.failed, position);
              } else {
                grown.advance(position);
                fixed.advance(position);
              }
            }
            if (grown.calls !== fixed.calls || grown.failures !== fixed.failures) {
              expect([grown.calls, grown.failures]).toEqual([fixed.calls, fixed.failures]);
            }
            expect(grown.bytes).toBeLessThanOrEqual(16 * buckets);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds nothing before the first call, 8 buckets after a few, and doubles up to the configured size', () => {
    const w = new BucketWindow(1, 10_000);
    expect(w.bytes).toBe(0);
    for (let i = 0; i < 3; i++) w.record(false, i);
    expect(w.bytes).toBe(16 * FIRST_WINDOW_BUCKETS);
    const sizes = new Set<number>();
    for (let i = 3; i < 30_000; i++) {
      w.record(i % 3 === 0, i);
      sizes.add(w.bytes / 16);
    }
    expect([...sizes]).toEqual([8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 10_000]);
    expect([w.calls, w.failures]).toEqual([10_000, 3333]);
  });

  it('does not grow for a gap: a time window that emptied starts over in the storage it has', () => {
    const w = new BucketWindow(100, 1000);
    w.record(true, 0);
    w.record(false, 1_000_000_000);
    expect([w.calls, w.failures, w.bytes]).toEqual([1, 0, 16 * FIRST_WINDOW_BUCKETS]);
  });
});

describe('the breaker with a 10,000-call window', () => {
  it('holds 128 bytes of window after a few calls, not 160 kB, and fills it only with 10,000 calls', () => {
    const b = new CircuitBreaker({ failureRate: { minimumCalls: 10_000, window: { kind: 'count', size: 10_000 } } });
    expect(b.windowBytes).toBe(0);
    for (let i = 0; i < 3; i++) {
      const p = b.tryAcquire(i);
      if (p.allowed) b.onSuccess(p, i);
    }
    expect(b.windowBytes).toBe(128);
    for (let i = 0; i < 20_000; i++) {
      const p = b.tryAcquire(i);
      if (p.allowed) b.onSuccess(p, i);
    }
    expect(b.windowBytes).toBe(160_000);
    expect(b.stats().windowCalls).toBe(10_000);
  });
});
