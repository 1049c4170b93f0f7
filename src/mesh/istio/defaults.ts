// Istio's own defaults, as named constants: what a VirtualService or DestinationRule means when a field is left out.

import {
  ENVOY_HEALTHY_PANIC_THRESHOLD,
  ENVOY_MIN_RETRY_CONCURRENCY,
  ENVOY_RETRY_BUDGET_PERCENT,
} from '../envoy/defaults.js';

/**
 * Istio's retry conditions when a route sets no `retries` or a `retries` block no `retryOn`
 * (pilot/pkg/networking/core/route/retry/retry.go, defaultRetryOn). Since 1.24 no status code comes with it
 * (EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY on by default; the 1.23 compatibility profile, removed in 1.27, turned it
 * off); up to 1.23 the default also retried 503 (RetriableStatusCodes [503]). `unavailable` and `cancelled` are
 * gRPC conditions: on HTTP traffic the default retries connect failures and refused streams only.
 */
// @ko mesh-istio-default-retry-on
export const ISTIO_DEFAULT_RETRY_ON = 'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes';
/** The status Istio 1.23 and earlier added to the default policy (retry.go, RetriableStatusCodes). */
export const ISTIO_PRE_1_24_DEFAULT_STATUS = 503;
/** Retries (not attempts) Istio gives a route without a `retries` block (retry.go, defaultNumRetries). */
export const ISTIO_DEFAULT_ATTEMPTS = 2;
/** The Istio release since which the default policy is ISTIO_DEFAULT_RETRY_ON without 503. */
export const ISTIO_DEFAULT_WITHOUT_503_SINCE = '1.24';
/** trafficPolicy.retryBudget.percent when omitted: Istio leaves it to Envoy. */
export const ISTIO_RETRY_BUDGET_PERCENT = ENVOY_RETRY_BUDGET_PERCENT;
/** trafficPolicy.retryBudget.minRetryConcurrency when omitted: Envoy's. */
export const ISTIO_MIN_RETRY_CONCURRENCY = ENVOY_MIN_RETRY_CONCURRENCY;
/** The panic threshold without outlierDetection.minHealthPercent: the sidecar's (Envoy's) default. */
export const ISTIO_PANIC_THRESHOLD = ENVOY_HEALTHY_PANIC_THRESHOLD;
