// Istio's own defaults, as named constants: what a VirtualService or DestinationRule means when a field is left out.

import {
  ENVOY_HEALTHY_PANIC_THRESHOLD,
  ENVOY_MIN_RETRY_CONCURRENCY,
  ENVOY_RETRY_BUDGET_PERCENT,
} from '../envoy/defaults.js';

/** Istio's retry policy when a route sets none (pilot/pkg/networking/core/route/retry/retry.go, DefaultPolicy). */
export const ISTIO_DEFAULT_RETRY_ON = 'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes,503';
/** Retries (not attempts) Istio gives a route without a `retries` block. */
export const ISTIO_DEFAULT_ATTEMPTS = 2;
/** trafficPolicy.retryBudget.percent when omitted: Istio leaves it to Envoy. */
export const ISTIO_RETRY_BUDGET_PERCENT = ENVOY_RETRY_BUDGET_PERCENT;
/** trafficPolicy.retryBudget.minRetryConcurrency when omitted: Envoy's. */
export const ISTIO_MIN_RETRY_CONCURRENCY = ENVOY_MIN_RETRY_CONCURRENCY;
/** The panic threshold without outlierDetection.minHealthPercent: the sidecar's (Envoy's) default. */
export const ISTIO_PANIC_THRESHOLD = ENVOY_HEALTHY_PANIC_THRESHOLD;
