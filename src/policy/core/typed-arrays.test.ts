// Tests for growing typed arrays: the copy keeps every element and has the new capacity, zero-filled beyond.
import { describe, expect, it } from 'vitest';
import { grownFloat64, grownInt32 } from './typed-arrays.js';

describe('grown typed arrays', () => {
  it('copies a Float64Array into a larger one, zero beyond the old length', () => {
    const grown = grownFloat64(Float64Array.from([1.5, -2, 3]), 5);
    expect([...grown]).toEqual([1.5, -2, 3, 0, 0]);
  });

  it('copies an Int32Array into a larger one, zero beyond the old length', () => {
    const grown = grownInt32(Int32Array.from([-1, 7]), 4);
    expect([...grown]).toEqual([-1, 7, 0, 0]);
  });
});
