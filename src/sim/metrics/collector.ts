// Streaming run metrics: counters per 1 s bin and per window, latency histograms; memory independent of request count.

import { LatencyHistogram } from './histogram.js';

export const BIN_MS = 1000;

export interface WindowDef {
  name: string;
  startMs: number;
  endMs: number;
}

/**
 * Everything incident.md defines is counted here as it happens: user outcomes by arrival bin and window,
 * service arrivals and executions by bin and window, and sampled gauges at each bin's end.
 * Arrays are sized by (services × bins) and (services × windows), never by the number of requests.
 */
export class Metrics {
  readonly binCount: number;
  readonly windows: readonly WindowDef[];
  private readonly serviceCount: number;
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
  usersTotal = 0;
  usersEnded = 0;
  /** Bin and window mask of the current instant, valid until cacheUntilMs (time only moves forward). */
  private cacheUntilMs = Number.NEGATIVE_INFINITY;
  private cacheFromMs = Number.POSITIVE_INFINITY;
  private cachedBin = 0;
  private cachedMask = 0;

  constructor(durationMs: number, windows: readonly WindowDef[], serviceCount: number) {
    if (windows.length > 30) throw new Error('at most 30 windows');
    this.binCount = Math.max(1, Math.ceil(durationMs / BIN_MS));
    this.windows = windows;
    this.serviceCount = serviceCount;
    const perBin = serviceCount * this.binCount;
    this.userArrivals = new Float64Array(perBin);
    this.userSuccesses = new Float64Array(perBin);
    this.goodput = new Float64Array(perBin);
    this.windowArrivals = new Float64Array(windows.length);
    this.windowSuccesses = new Float64Array(windows.length);
    this.windowGoodput = new Float64Array(windows.length);
    this.windowLatency = windows.map(() => new LatencyHistogram());
    this.serviceArrivals = new Float64Array(perBin);
    this.serviceWindowArrivals = new Float64Array(serviceCount * windows.length);
    this.serviceArrivalsTotal = new Float64Array(serviceCount);
    this.wastedByBin = new Float64Array(perBin);
    this.executionsTotal = new Float64Array(serviceCount);
    this.wastedTotal = new Float64Array(serviceCount);
    this.started = new Float64Array(serviceCount);
    this.waited = new Float64Array(serviceCount);
    this.waitSumMs = new Float64Array(serviceCount);
    this.windowStarted = new Float64Array(serviceCount * windows.length);
    this.windowWaited = new Float64Array(serviceCount * windows.length);
    this.windowWaitSumMs = new Float64Array(serviceCount * windows.length);
    this.queueLength = new Float64Array(perBin);
    this.inFlight = new Float64Array(perBin);
    this.budgetTokens = new Float64Array(perBin).fill(Number.NaN);
  }

  /** Refreshes the cached bin and mask for `nowMs`: they change only at bin and window edges. */
  private refresh(nowMs: number): void {
    this.cachedBin = this.binOf(nowMs);
    this.cachedMask = this.windowMask(nowMs);
    let until = (this.cachedBin + 1) * BIN_MS;
    for (const w of this.windows) {
      if (w.startMs > nowMs && w.startMs < until) until = w.startMs;
      if (w.endMs > nowMs && w.endMs < until) until = w.endMs;
    }
    this.cacheFromMs = this.cachedBin * BIN_MS;
    for (const w of this.windows) {
      if (w.startMs <= nowMs && w.startMs > this.cacheFromMs) this.cacheFromMs = w.startMs;
      if (w.endMs <= nowMs && w.endMs > this.cacheFromMs) this.cacheFromMs = w.endMs;
    }
    this.cacheUntilMs = until;
  }

  /** Bin of `nowMs` (cached between edges). */
  binAt(nowMs: number): number {
    if (!(nowMs < this.cacheUntilMs && nowMs >= this.cacheFromMs)) this.refresh(nowMs);
    return this.cachedBin;
  }

  /** Window mask of `nowMs` (cached between edges). */
  maskAt(nowMs: number): number {
    if (!(nowMs < this.cacheUntilMs && nowMs >= this.cacheFromMs)) this.refresh(nowMs);
    return this.cachedMask;
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

  userArrived(service: number, bin: number, mask: number): void {
    this.usersTotal++;
    const i = service * this.binCount + bin;
    this.userArrivals[i] = (this.userArrivals[i] as number) + 1;
    for (let w = 0; mask !== 0; w++, mask >>>= 1) {
      if (mask & 1) this.windowArrivals[w] = (this.windowArrivals[w] as number) + 1;
    }
  }

  /** A user got an answer (success or not) or gave up (latency = patience). */
  userEnded(service: number, bin: number, mask: number, success: boolean, latencyMs: number, nowMs: number): void {
    this.usersEnded++;
    let m = mask;
    for (let w = 0; m !== 0; w++, m >>>= 1) {
      if (m & 1) {
        (this.windowLatency[w] as LatencyHistogram).record(latencyMs);
        if (success) this.windowSuccesses[w] = (this.windowSuccesses[w] as number) + 1;
      }
    }
    if (!success) return;
    const i = service * this.binCount + bin;
    this.userSuccesses[i] = (this.userSuccesses[i] as number) + 1;
    const done = service * this.binCount + this.binAt(nowMs);
    this.goodput[done] = (this.goodput[done] as number) + 1;
    let doneMask = this.maskAt(nowMs);
    for (let w = 0; doneMask !== 0; w++, doneMask >>>= 1) {
      if (doneMask & 1) this.windowGoodput[w] = (this.windowGoodput[w] as number) + 1;
    }
  }

  serviceArrival(service: number, nowMs: number): void {
    const i = service * this.binCount + this.binAt(nowMs);
    this.serviceArrivals[i] = (this.serviceArrivals[i] as number) + 1;
    this.serviceArrivalsTotal[service] = (this.serviceArrivalsTotal[service] as number) + 1;
    let mask = this.cachedMask;
    const base = service * this.windows.length;
    for (let w = 0; mask !== 0; w++, mask >>>= 1) {
      if (mask & 1) this.serviceWindowArrivals[base + w] = (this.serviceWindowArrivals[base + w] as number) + 1;
    }
  }

  executionStarted(service: number, waitedMs: number, nowMs: number): void {
    this.started[service] = (this.started[service] as number) + 1;
    if (waitedMs > 0) {
      this.waited[service] = (this.waited[service] as number) + 1;
      this.waitSumMs[service] = (this.waitSumMs[service] as number) + waitedMs;
    }
    let mask = this.maskAt(nowMs);
    const base = service * this.windows.length;
    for (let w = base; mask !== 0; w++, mask >>>= 1) {
      if ((mask & 1) === 0) continue;
      this.windowStarted[w] = (this.windowStarted[w] as number) + 1;
      if (waitedMs > 0) {
        this.windowWaited[w] = (this.windowWaited[w] as number) + 1;
        this.windowWaitSumMs[w] = (this.windowWaitSumMs[w] as number) + waitedMs;
      }
    }
  }

  executionFinished(service: number, wasted: boolean, nowMs: number): void {
    this.executionsTotal[service] = (this.executionsTotal[service] as number) + 1;
    if (!wasted) return;
    this.wastedTotal[service] = (this.wastedTotal[service] as number) + 1;
    const i = service * this.binCount + this.binAt(nowMs);
    this.wastedByBin[i] = (this.wastedByBin[i] as number) + 1;
  }

  sample(service: number, bin: number, queueLength: number, inFlight: number, budgetTokens: number): void {
    const i = service * this.binCount + bin;
    this.queueLength[i] = queueLength;
    this.inFlight[i] = inFlight;
    this.budgetTokens[i] = budgetTokens;
  }

  /** Users that arrived in [startMs, endMs) of entry services and how many succeeded, from the bins. */
  serviceCountAt(array: Float64Array, service: number, bin: number): number {
    return array[service * this.binCount + bin] as number;
  }

  get services(): number {
    return this.serviceCount;
  }
}
