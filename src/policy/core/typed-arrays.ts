// Growing typed arrays: a copy with more capacity (used by the shedder's slot queue and the simulator's event heap).

/** A Float64Array of `capacity` elements that starts with `old`'s contents. */
export function grownFloat64(old: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(capacity);
  next.set(old);
  return next;
}

/** An Int32Array of `capacity` elements that starts with `old`'s contents. */
export function grownInt32(old: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(capacity);
  next.set(old);
  return next;
}
