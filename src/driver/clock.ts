// The time the HTTP drivers give the per-upstream policies (breaker, limits, balancer, outlier detection): monotonic.

/**
 * Milliseconds on the epoch's scale that never step back: `performance.timeOrigin + performance.now()`. The breaker's
 * break and the detector's ejections are local durations, so an NTP step or a hand-set clock must not stretch them
 * (Date.now() one hour back would keep a breaker open, or every endpoint ejected, for an hour). Deadlines stay on
 * Date.now(): they cross hosts as wall-clock times.
 */
export function monotonicNowMs(): number {
  // @ko http-monotonic-clock
  return performance.timeOrigin + performance.now();
}
