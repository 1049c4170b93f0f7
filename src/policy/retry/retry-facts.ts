// Facts derived from a resolved retry config that every reader needs (drivers, simulator, mesh, lab, report): one function each.

/**
 * Attempts a call under this config may make: `maxAttempts`, or 1 when `retryOn` is empty (no outcome is ever
 * retried, so the first attempt is the last).
 */
export function effectiveAttempts(config: {
  readonly maxAttempts: number;
  readonly retryOn: { readonly conditions: readonly unknown[] };
}): number {
  return config.retryOn.conditions.length > 0 ? config.maxAttempts : 1;
}

/**
 * The call's own deadline: `patience − margin` after `nowMs` (the margin leaves the user time to be answered),
 * or null when the config sets no patience. With `nowMs` omitted, the deadline's length.
 */
export function callDeadlineMs(
  config: { readonly patienceMs: number | null; readonly marginMs: number },
  nowMs = 0,
): number | null {
  // nowMs + patience − margin, in that order: RetryCall's absolute deadline has always been computed so.
  return config.patienceMs === null ? null : nowMs + config.patienceMs - config.marginMs;
}
