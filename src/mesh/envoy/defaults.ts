// Envoy's own defaults and fixed values, as named constants: what a cluster or route gets when a field is left out.

/** Envoy's "no limit" for circuit-breaker thresholds (uint32 max); Istio writes it the same way. */
export const UINT32_MAX = 4_294_967_295;
/** circuit_breakers.thresholds.retry_budget.budget_percent, when the budget omits it (20 % of active requests). */
export const ENVOY_RETRY_BUDGET_PERCENT = 20;
/** retry_budget.min_retry_concurrency, when omitted. */
export const ENVOY_MIN_RETRY_CONCURRENCY = 3;
/** common_lb_config.healthy_panic_threshold, when omitted (%). */
export const ENVOY_HEALTHY_PANIC_THRESHOLD = 50;
/** outlier_detection.max_ejection_percent, when omitted (%). */
export const ENVOY_MAX_EJECTION_PERCENT = 10;
/** retry_back_off.base_interval, when the route has no retry_back_off (ms). */
export const ENVOY_BACKOFF_BASE_MS = 25;
/** retry_back_off.max_interval defaults to this many times base_interval. */
export const ENVOY_BACKOFF_MAX_FACTOR = 10;
/** The statuses of retry_on `gateway-error`. */
export const ENVOY_GATEWAY_ERROR_STATUSES: readonly number[] = Object.freeze([502, 503, 504]);
