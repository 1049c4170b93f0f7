// Seeded pseudo-random streams (sfc32) and the Random interface every policy draws from.

import { ConfigError } from './config-error.js';

/** A source of uniform draws. Policies take one injected, so runs are reproducible. */
export interface Random {
  /** Uniform in [0, 1), with 32 bits of resolution (exactly `nextUint32() / 2^32`). */
  next(): number;
  /** Uniform integer in [0, 2^32). */
  nextUint32(): number;
  /**
   * An independent stream named `name`, derived from this stream's identity (root seed + fork path),
   * never from its current state: forking consumes no draws, and the same path always yields the same stream.
   */
  fork(name: string): Random;
}

const TWO_POW_32 = 4294967296;
const GOLDEN = 0x9e3779b9;

/** 32-bit avalanche finaliser (hash-prospector "lowbias32"): every input bit flips ~half the output bits. */
function mix32(value: number): number {
  let x = value;
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  x ^= x >>> 15;
  return x >>> 0;
}

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, no allocation per draw. */
class Sfc32 implements Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `key0`/`key1` are the stream's 64-bit identity; the state is derived from them alone. */
  constructor(
    private readonly key0: number,
    private readonly key1: number,
  ) {
    this.a = mix32(key0 + GOLDEN);
    this.b = mix32(key1 + 2 * GOLDEN);
    this.c = mix32((key0 ^ key1) + 3 * GOLDEN);
    this.d = 1;
    // sfc32's author recommends discarding the first outputs so that similar keys diverge fully.
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  fork(name: string): Random {
    // Two independent FNV-1a-style lanes over the UTF-16 code units, seeded by this stream's key.
    let h0 = this.key0 ^ 0x811c9dc5;
    let h1 = this.key1 ^ 0x050c5d1f;
    for (let i = 0; i < name.length; i++) {
      const unit = name.charCodeAt(i);
      h0 = Math.imul(h0 ^ unit, 0x01000193);
      h1 = Math.imul(h1 ^ unit, 0x5bd1e995);
    }
    // Folding in the length keeps fork('a').fork('b') apart from fork('ab').
    h0 ^= name.length;
    return new Sfc32(mix32(h0 ^ mix32(h1)), mix32(h1 + GOLDEN) ^ h0);
  }
}

/**
 * A seeded stream. Any finite number is a seed; integers up to 2^53 map to distinct streams.
 * Throws ConfigError for NaN or infinite seeds (a seed that cannot reproduce a run is a bug).
 */
export function createRandom(seed: number): Random {
  if (!Number.isFinite(seed)) throw new ConfigError([{ path: 'seed', message: 'must be a finite number' }]);
  let lo: number;
  let hi: number;
  if (Number.isSafeInteger(seed)) {
    lo = seed >>> 0;
    hi = Math.floor(seed / TWO_POW_32) | 0;
  } else {
    // Fractional or very large seeds: use the IEEE-754 bits so 1.5 and 1 differ.
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, seed);
    hi = view.getUint32(0);
    lo = view.getUint32(4) ^ 0x5bd1e995;
  }
  return new Sfc32(mix32(lo ^ GOLDEN), mix32(hi + mix32(lo)));
}
