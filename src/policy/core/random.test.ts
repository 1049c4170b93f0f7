// Tests for random.ts: determinism, recorded sequences, uniformity, and fork independence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { createRandom, type Random } from './random.js';

const TWO_POW_32 = 4294967296;

function draws(random: Random, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(random.nextUint32());
  return out;
}

describe('createRandom', () => {
  it('produces the same sequence for the same seed', () => {
    expect(draws(createRandom(42), 200)).toEqual(draws(createRandom(42), 200));
  });

  it('keeps producing the sequence recorded for seed 1, so simulations stay byte-identical across releases', () => {
    const random = createRandom(1);
    expect(draws(random, 2)).toEqual([357420046, 2222235430]);
    expect(random.next()).toBe(0.028549112379550934);
    expect(createRandom(2).nextUint32()).toBe(2060095108);
    expect(createRandom(1).fork('a').nextUint32()).toBe(3517585262);
  });

  it.each([
    [1, 2],
    [0, -1],
    [0, TWO_POW_32],
    [1, TWO_POW_32 + 1],
    [1, 1.5],
    [1e300, 2e300],
    [0.1, 0.2],
  ])('gives seeds %d and %d different sequences', (a, b) => {
    expect(draws(createRandom(a), 4)).not.toEqual(draws(createRandom(b), 4));
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects the seed %d with a ConfigError naming seed',
    (seed) => {
      expect(() => createRandom(seed)).toThrow(ConfigError);
      try {
        createRandom(seed);
      } catch (error) {
        expect((error as ConfigError).issues).toEqual([{ path: 'seed', message: 'must be a finite number' }]);
      }
    },
  );

  it('scales next() from nextUint32() exactly, so next() is in [0, 1)', () => {
    const a = createRandom(9);
    const b = createRandom(9);
    for (let i = 0; i < 1000; i++) {
      const u = a.next();
      expect(u).toBe(b.nextUint32() / TWO_POW_32);
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
    }
  });

  it('returns nextUint32 values as integers in [0, 2^32) that use the high bits too', () => {
    const random = createRandom(3);
    let high = 0;
    for (let i = 0; i < 1000; i++) {
      const x = random.nextUint32();
      expect(Number.isInteger(x)).toBe(true);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(TWO_POW_32);
      if (x >= 2 ** 31) high++;
    }
    expect(high).toBeGreaterThan(400);
    expect(high).toBeLessThan(600);
  });

  it('spreads draws evenly over ten buckets', () => {
    const random = createRandom(2024);
    const buckets = new Array<number>(10).fill(0);
    const n = 50_000;
    for (let i = 0; i < n; i++) buckets[Math.floor(random.next() * 10)]! += 1;
    for (const count of buckets) {
      expect(count).toBeGreaterThan(n / 10 - 300);
      expect(count).toBeLessThan(n / 10 + 300);
    }
  });

  it('does not repeat values in a short run', () => {
    const values = draws(createRandom(5), 10_000);
    expect(new Set(values).size).toBeGreaterThan(9_990);
  });
});

describe('Random.fork', () => {
  it('consumes no draws from the parent', () => {
    const plain = createRandom(7);
    const forked = createRandom(7);
    forked.fork('x').next();
    forked.fork('y');
    expect(draws(forked, 50)).toEqual(draws(plain, 50));
  });

  it('derives the child from identity, not state: forking before or after drawing gives the same stream', () => {
    const parent = createRandom(11);
    const early = parent.fork('net');
    draws(parent, 100);
    const late = parent.fork('net');
    expect(draws(late, 20)).toEqual(draws(early, 20));
  });

  it('gives the same path the same stream in separate runs', () => {
    const a = createRandom(3).fork('svc').fork('latency');
    const b = createRandom(3).fork('svc').fork('latency');
    expect(draws(a, 20)).toEqual(draws(b, 20));
  });

  it.each([
    ['a', 'b'],
    ['', 'a'],
    ['latency', 'latencz'],
    ['ab', 'ba'],
    ['a\u0000', 'a'],
  ])('gives names %j and %j different streams', (x, y) => {
    const root = createRandom(1);
    expect(draws(root.fork(x), 4)).not.toEqual(draws(root.fork(y), 4));
  });

  it('keeps a nested path apart from the concatenated name', () => {
    const root = createRandom(1);
    expect(draws(root.fork('a').fork('b'), 4)).not.toEqual(draws(root.fork('ab'), 4));
  });

  it('differs from its parent even with an empty name', () => {
    const root = createRandom(1);
    expect(draws(root.fork(''), 4)).not.toEqual(draws(createRandom(1), 4));
  });

  it('gives the same name under different seeds different streams', () => {
    expect(draws(createRandom(1).fork('x'), 4)).not.toEqual(draws(createRandom(2).fork('x'), 4));
  });

  it('gives sibling streams uncorrelated draws', () => {
    const root = createRandom(99);
    const a = root.fork('a');
    const b = root.fork('b');
    const n = 20_000;
    let sa = 0;
    let sb = 0;
    let sab = 0;
    let saa = 0;
    let sbb = 0;
    for (let i = 0; i < n; i++) {
      const x = a.next();
      const y = b.next();
      sa += x;
      sb += y;
      sab += x * y;
      saa += x * x;
      sbb += y * y;
    }
    const cov = sab / n - (sa / n) * (sb / n);
    const corr = cov / Math.sqrt((saa / n - (sa / n) ** 2) * (sbb / n - (sb / n) ** 2));
    expect(Math.abs(corr)).toBeLessThan(0.03);
  });

  it('never changes another stream when a fork is added (property)', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(fc.string(), { maxLength: 5 }),
        fc.nat({ max: 20 }),
        (seed, extraNames, interleave) => {
          const reference = draws(createRandom(seed).fork('target'), 10);
          const root = createRandom(seed);
          const target = root.fork('target');
          const got = draws(target, interleave % 10);
          for (const name of extraNames) draws(root.fork(name), 3);
          draws(root, 3);
          got.push(...draws(target, 10 - got.length));
          expect(got).toEqual(reference);
        },
      ),
    );
  });

  it('keeps every draw in [0, 1) for any seed and fork path (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.string(), { maxLength: 3 }),
        (seed, path) => {
          let random = createRandom(seed);
          for (const name of path) random = random.fork(name);
          for (let i = 0; i < 5; i++) {
            const u = random.next();
            expect(u >= 0 && u < 1).toBe(true);
          }
        },
      ),
    );
  });
});
