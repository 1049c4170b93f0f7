// Random durations for the models: constant, exponential and lognormal samplers over one seeded stream each.

import type { Random } from '../../policy/core/random.js';

/** A duration distribution as resolved from a scenario file (all values in ms). */
export type DistSpec =
  | { dist: 'constant'; valueMs: number }
  | { dist: 'exponential'; meanMs: number }
  /** `sigma` is the standard deviation of the underlying normal; the mean of the samples is `meanMs`. */
  | { dist: 'lognormal'; meanMs: number; sigma: number };

const CONSTANT = 0;
const EXPONENTIAL = 1;
const LOGNORMAL = 2;

/** Draws from one distribution using its own stream. One class, a switch on an integer kind: monomorphic and allocation-free. */
export class Sampler {
  private readonly kind: number;
  private readonly a: number;
  private readonly b: number;
  private spareNormal = 0;
  private hasSpare = false;

  constructor(
    spec: DistSpec,
    private readonly random: Random,
  ) {
    switch (spec.dist) {
      case 'constant':
        this.kind = CONSTANT;
        this.a = spec.valueMs;
        this.b = 0;
        break;
      case 'exponential':
        this.kind = EXPONENTIAL;
        this.a = spec.meanMs;
        this.b = 0;
        break;
      case 'lognormal':
        this.kind = LOGNORMAL;
        // E[exp(mu + sigma Z)] = exp(mu + sigma^2 / 2) = mean
        this.a = Math.log(spec.meanMs) - (spec.sigma * spec.sigma) / 2;
        this.b = spec.sigma;
        break;
    }
  }

  /** Mean of the distribution, ms. */
  get meanMs(): number {
    if (this.kind === LOGNORMAL) return Math.exp(this.a + (this.b * this.b) / 2);
    return this.a;
  }

  sample(): number {
    switch (this.kind) {
      case CONSTANT:
        return this.a;
      case EXPONENTIAL:
        return exponential(this.random, this.a);
      default:
        return Math.exp(this.a + this.b * this.normal());
    }
  }

  /** Standard normal by Box–Muller; the second value of each pair is kept for the next draw. */
  private normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    const u1 = 1 - this.random.next(); // (0, 1]: log is finite
    const u2 = this.random.next();
    const r = Math.sqrt(-2 * Math.log(u1));
    this.spareNormal = r * Math.sin(2 * Math.PI * u2);
    this.hasSpare = true;
    return r * Math.cos(2 * Math.PI * u2);
  }
}

// Ziggurat tables for the standard exponential (Marsaglia & Tsang, "The Ziggurat Method for Generating Random
// Variables", J. Stat. Software 5(8), 2000; 256 layers). 99 % of draws cost one 32-bit draw and a multiply.
const LAYERS = 256;
const TWO_POW_32 = 4294967296;
const ZIG_R = 7.697117470131487;
const ZIG_V = 3.949659822581572e-3;
const KE = new Float64Array(LAYERS);
const WE = new Float64Array(LAYERS);
const FE = new Float64Array(LAYERS);
{
  let de = ZIG_R;
  let te = de;
  const q = ZIG_V / Math.exp(-de);
  KE[0] = (de / q) * TWO_POW_32;
  KE[1] = 0;
  WE[0] = q / TWO_POW_32;
  WE[LAYERS - 1] = de / TWO_POW_32;
  FE[0] = 1;
  FE[LAYERS - 1] = Math.exp(-de);
  for (let i = LAYERS - 2; i >= 1; i--) {
    de = -Math.log(ZIG_V / de + Math.exp(-de));
    KE[i + 1] = (de / te) * TWO_POW_32;
    te = de;
    FE[i] = Math.exp(-de);
    WE[i] = de / TWO_POW_32;
  }
}

/**
 * A standard exponential draw (mean 1) by the ziggurat. As in the paper, one 32-bit draw gives both the layer (its
 * low 8 bits) and the position in it; the shared bits shift x by less than 2^-24 of its value.
 */
export function standardExponential(random: Random): number {
  for (;;) {
    const bits = random.nextUint32();
    const layer = bits & (LAYERS - 1);
    const x = bits * (WE[layer] as number);
    if (bits < (KE[layer] as number)) return x;
    if (layer === 0) return ZIG_R - Math.log(1 - random.next()); // the tail beyond R, by memorylessness
    const fHigh = FE[layer - 1] as number;
    const fLow = FE[layer] as number;
    if (fLow + random.next() * (fHigh - fLow) < Math.exp(-x)) return x;
  }
}

/** An exponential draw with the given mean (ms). */
export function exponential(random: Random, meanMs: number): number {
  return meanMs * standardExponential(random);
}
