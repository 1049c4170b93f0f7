// Streaming run metrics: counters per time segment (bins × windows), latency histograms; memory independent of request count.

import { LatencyHistogram } from './histogram.js';

export const BIN_MS = 1000;
/** Windows per run, at most: a segment's windows are the bits of an int32 mask. */
export const MAX_WINDOWS = 30;

export interface WindowDef {
  name: string;
  startMs: number;
  endMs: number;
}

/**
 * Everything incident.md defines is counted here as it happens: user outcomes by arrival bin and window,
 * service arrivals and executions by bin and window, and sampled gauges at each bin's end.
 *
 * The timeline is cut at every bin edge and window edge into segments; within a segment the bin and the set of
 * windows are fixed. An event adds 1 to one (service, segment) cell, and finish() sums the cells into the per-bin,
 * per-window and total arrays below (integer counts, so the sums are exact whatever their order). Arrays are sized
 * by services × segments, never by the number of requests.
 */
export class Metrics {
  readonly binCount: number;
  readonly windows: readonly WindowDef[];
  private readonly serviceCount: number;
  // ---- results, filled by finish() (gauges and wait sums as the run goes) ----
  /** User requests by entry service and arrival bin. */
  readonly userArrivals: Float64Array;
  readonly userSuccesses: Float64Array;
  /** Successful answers by entry service and completion bin. */
  readonly goodput: Float64Array;
  readonly windowArrivals: Float64Array;
  readonly windowSuccesses: Float64Array;
  readonly windowGoodput: Float64Array;
  readonly windowLatency: LatencyHistogram[];
  /** Attempts arriving at each service, by bin / by window / in total. */
  readonly serviceArrivals: Float64Array;
  readonly serviceWindowArrivals: Float64Array;
  readonly serviceArrivalsTotal: Float64Array;
  /** Executions (took a worker) finished, and those nobody waited for any more, by bin and in total. */
  readonly wastedByBin: Float64Array;
  readonly executionsTotal: Float64Array;
  readonly wastedTotal: Float64Array;
  /** Executions started, how many of them waited in a queue, and the total wait (ms). */
  readonly started: Float64Array;
  readonly waited: Float64Array;
  readonly waitSumMs: Float64Array;
  /** The same three, by the window in which the execution started (service × window). */
  readonly windowStarted: Float64Array;
  readonly windowWaited: Float64Array;
  readonly windowWaitSumMs: Float64Array;
  /** Gauges sampled at each bin's end. */
  readonly queueLength: Float64Array;
  readonly inFlight: Float64Array;
  /** NaN = the service has no finite budget. */
  readonly budgetTokens: Float64Array;
  /** Gauges per call edge (model order) at each bin's end, summed over caller instances: hosts ejected by outlier
   * detection (Envoy's ejections_active), and caller instances whose circuit breaker is open. [edge × bins + bin] */
  readonly ejectionsActive: Float64Array;
  readonly breakersOpen: Float64Array;
  usersTotal = 0;
  usersEnded = 0;
  /** Retry radius: user requests on whose behalf some hop retried, the sum of their radii, and the largest. */
  retriedUsers = 0;
  radiusSum = 0;
  radiusMax = 0;
  // ---- segments ----
  /** Segment i is [segmentStartMs[i], segmentStartMs[i + 1]); the last one never ends. */
  private readonly segmentStartMs: Float64Array;
  private readonly segmentBin: Int32Array;
  private readonly segmentMask: Int32Array;
  private readonly segmentCount: number;
  // Counters by (service, segment): index service * segmentCount + segment.
  private readonly segUserArrivals: Float64Array;
  private readonly segUserSuccesses: Float64Array;
  private readonly segGoodput: Float64Array;
  private readonly segServiceArrivals: Float64Array;
  private readonly segWasted: Float64Array;
  private readonly segStarted: Float64Array;
  private readonly segWaited: Float64Array;
  /** The segment of the current instant, valid in [cacheFromMs, cacheUntilMs) (time only moves forward). */
  private cacheFromMs = Number.POSITIVE_INFINITY;
  private cacheUntilMs = Number.NEGATIVE_INFINITY;
  private cachedSegment = 0;

  constructor(durationMs: number, windows: readonly WindowDef[], serviceCount: number, edgeCount = 0) {
    if (windows.length > MAX_WINDOWS) throw new Error(`at most ${MAX_WINDOWS} windows`);
    this.binCount = Math.max(1, Math.ceil(durationMs / BIN_MS));
    this.windows = windows;
    this.serviceCount = serviceCount;
    const perBin = serviceCount * this.binCount;
    const perWindow = serviceCount * windows.length;
    this.userArrivals = new Float64Array(perBin);
    this.userSuccesses = new Float64Array(perBin);
    this.goodput = new Float64Array(perBin);
    this.windowArrivals = new Float64Array(windows.length);
    this.windowSuccesses = new Float64Array(windows.length);
    this.windowGoodput = new Float64Array(windows.length);
    this.windowLatency = windows.map(() => new LatencyHistogram());
    this.serviceArrivals = new Float64Array(perBin);
    this.serviceWindowArrivals = new Float64Array(perWindow);
    this.serviceArrivalsTotal = new Float64Array(serviceCount);
    this.wastedByBin = new Float64Array(perBin);
    this.executionsTotal = new Float64Array(serviceCount);
    this.wastedTotal = new Float64Array(serviceCount);
    this.started = new Float64Array(serviceCount);
    this.waited = new Float64Array(serviceCount);
    this.waitSumMs = new Float64Array(serviceCount);
    this.windowStarted = new Float64Array(perWindow);
    this.windowWaited = new Float64Array(perWindow);
    this.windowWaitSumMs = new Float64Array(perWindow);
    this.queueLength = new Float64Array(perBin);
    this.inFlight = new Float64Array(perBin);
    this.budgetTokens = new Float64Array(perBin).fill(Number.NaN);
    this.ejectionsActive = new Float64Array(edgeCount * this.binCount);
    this.breakersOpen = new Float64Array(edgeCount * this.binCount);

    // Bin edges past the last bin change nothing (later times count in the last bin), so they are not cuts.
    const cuts = new Set<number>([0]);
    for (let b = 1; b < this.binCount; b++) cuts.add(b * BIN_MS);
    for (const w of windows) {
      if (w.startMs > 0) cuts.add(w.startMs);
      if (w.endMs > 0) cuts.add(w.endMs);
    }
    this.segmentStartMs = Float64Array.from([...cuts].sort((a, b) => a - b));
    this.segmentCount = this.segmentStartMs.length;
    this.segmentBin = new Int32Array(this.segmentCount);
    this.segmentMask = new Int32Array(this.segmentCount);
    this.segmentStartMs.forEach((startMs, i) => {
      this.segmentBin[i] = this.binOf(startMs);
      this.segmentMask[i] = this.windowMask(startMs);
    });
    const perSegment = serviceCount * this.segmentCount;
    this.segUserArrivals = new Float64Array(perSegment);
    this.segUserSuccesses = new Float64Array(perSegment);
    this.segGoodput = new Float64Array(perSegment);
    this.segServiceArrivals = new Float64Array(perSegment);
    this.segWasted = new Float64Array(perSegment);
    this.segStarted = new Float64Array(perSegment);
    this.segWaited = new Float64Array(perSegment);
  }

  /** The segment holding `nowMs` (cached between cuts). */
  segmentAt(nowMs: number): number {
    if (nowMs < this.cacheUntilMs && nowMs >= this.cacheFromMs) return this.cachedSegment;
    const starts = this.segmentStartMs;
    // The last segment whose start is <= nowMs (segment 0 for anything earlier).
    let lo = 0;
    let hi = this.segmentCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= nowMs) lo = mid;
      else hi = mid - 1;
    }
    this.cachedSegment = lo;
    this.cacheFromMs = starts[lo] as number;
    this.cacheUntilMs = lo + 1 < this.segmentCount ? (starts[lo + 1] as number) : Number.POSITIVE_INFINITY;
    return lo;
  }

  binOf(timeMs: number): number {
    const bin = Math.floor(timeMs / BIN_MS);
    return bin < this.binCount ? bin : this.binCount - 1;
  }

  /** Bit i set when window i contains `timeMs` (windows are [start, end)). */
  windowMask(timeMs: number): number {
    let mask = 0;
    const windows = this.windows;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i] as WindowDef;
      if (timeMs >= w.startMs && timeMs < w.endMs) mask |= 1 << i;
    }
    return mask;
  }

  /** The windows holding `nowMs`, as windowMask() (from the cached segment). */
  windowMaskAt(nowMs: number): number {
    return this.segmentMask[this.segmentAt(nowMs)] as number;
  }

  /** A user request arrived at an entry service; `segment` = segmentAt(its arrival). */
  userArrived(service: number, segment: number): void {
    this.usersTotal++;
    const i = service * this.segmentCount + segment;
    this.segUserArrivals[i] = (this.segUserArrivals[i] as number) + 1;
  }

  /** One more hop retried on behalf of a user request; `radius` is how many have now (1 = the first). */
  hopRetried(radius: number): void {
    if (radius === 1) this.retriedUsers++;
    this.radiusSum++;
    if (radius > this.radiusMax) this.radiusMax = radius;
  }

  /** A user got an answer (success or not) or gave up (latency = patience). `arrivalSegment` as in userArrived. */
  userEnded(service: number, arrivalSegment: number, success: boolean, latencyMs: number, nowMs: number): void {
    this.usersEnded++;
    let mask = this.segmentMask[arrivalSegment] as number;
    for (let w = 0; mask !== 0; w++, mask >>>= 1) {
      if (mask & 1) (this.windowLatency[w] as LatencyHistogram).record(latencyMs);
    }
    if (!success) return;
    const base = service * this.segmentCount;
    const i = base + arrivalSegment;
    this.segUserSuccesses[i] = (this.segUserSuccesses[i] as number) + 1;
    const done = base + this.segmentAt(nowMs);
    this.segGoodput[done] = (this.segGoodput[done] as number) + 1;
  }

  serviceArrival(service: number, nowMs: number): void {
    const i = service * this.segmentCount + this.segmentAt(nowMs);
    this.segServiceArrivals[i] = (this.segServiceArrivals[i] as number) + 1;
  }

  executionStarted(service: number, waitedMs: number, nowMs: number): void {
    const segment = this.segmentAt(nowMs);
    const i = service * this.segmentCount + segment;
    this.segStarted[i] = (this.segStarted[i] as number) + 1;
    if (!(waitedMs > 0)) return;
    this.segWaited[i] = (this.segWaited[i] as number) + 1;
    // Wait sums are not integers: added in event order, as they happen, so they never depend on a summing order.
    this.waitSumMs[service] = (this.waitSumMs[service] as number) + waitedMs;
    let mask = this.segmentMask[segment] as number;
    for (let w = service * this.windows.length; mask !== 0; w++, mask >>>= 1) {
      if (mask & 1) this.windowWaitSumMs[w] = (this.windowWaitSumMs[w] as number) + waitedMs;
    }
  }

  executionFinished(service: number, wasted: boolean, nowMs: number): void {
    this.executionsTotal[service] = (this.executionsTotal[service] as number) + 1;
    if (!wasted) return;
    const i = service * this.segmentCount + this.segmentAt(nowMs);
    this.segWasted[i] = (this.segWasted[i] as number) + 1;
  }

  sample(service: number, bin: number, queueLength: number, inFlight: number, budgetTokens: number): void {
    const i = service * this.binCount + bin;
    this.queueLength[i] = queueLength;
    this.inFlight[i] = inFlight;
    this.budgetTokens[i] = budgetTokens;
  }

  /** Sums the segment counters into the per-bin, per-window and total arrays. Call once the run is over. */
  finish(): void {
    const windowCount = this.windows.length;
    for (const a of [
      this.userArrivals,
      this.userSuccesses,
      this.goodput,
      this.windowArrivals,
      this.windowSuccesses,
      this.windowGoodput,
      this.serviceArrivals,
      this.serviceWindowArrivals,
      this.serviceArrivalsTotal,
      this.wastedByBin,
      this.wastedTotal,
      this.started,
      this.waited,
      this.windowStarted,
      this.windowWaited,
    ])
      a.fill(0);
    for (let s = 0; s < this.serviceCount; s++) {
      for (let seg = 0; seg < this.segmentCount; seg++) {
        const i = s * this.segmentCount + seg;
        const bin = s * this.binCount + (this.segmentBin[seg] as number);
        const arrivals = this.segUserArrivals[i] as number;
        const successes = this.segUserSuccesses[i] as number;
        const goodput = this.segGoodput[i] as number;
        const serviceArrivals = this.segServiceArrivals[i] as number;
        const wasted = this.segWasted[i] as number;
        const started = this.segStarted[i] as number;
        const waited = this.segWaited[i] as number;
        add(this.userArrivals, bin, arrivals);
        add(this.userSuccesses, bin, successes);
        add(this.goodput, bin, goodput);
        add(this.serviceArrivals, bin, serviceArrivals);
        add(this.serviceArrivalsTotal, s, serviceArrivals);
        add(this.wastedByBin, bin, wasted);
        add(this.wastedTotal, s, wasted);
        add(this.started, s, started);
        add(this.waited, s, waited);
        let mask = this.segmentMask[seg] as number;
        for (let w = 0; mask !== 0; w++, mask >>>= 1) {
          if ((mask & 1) === 0) continue;
          add(this.windowArrivals, w, arrivals);
          add(this.windowSuccesses, w, successes);
          add(this.windowGoodput, w, goodput);
          add(this.serviceWindowArrivals, s * windowCount + w, serviceArrivals);
          add(this.windowStarted, s * windowCount + w, started);
          add(this.windowWaited, s * windowCount + w, waited);
        }
      }
    }
  }

  /** Users that arrived in [startMs, endMs) of entry services and how many succeeded, from the bins. */
  serviceCountAt(array: Float64Array, service: number, bin: number): number {
    return array[service * this.binCount + bin] as number;
  }

  get services(): number {
    return this.serviceCount;
  }
}

function add(array: Float64Array, i: number, value: number): void {
  array[i] = (array[i] as number) + value;
}
