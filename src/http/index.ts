// The HTTP drivers' public surface: re-exports only.
export { currentContext, runWithContext, type SeawallContext } from './context.js';
export { AttemptTimeoutError, SeawallError, type SeawallErrorDetails } from './errors.js';
export { type CreateFetchOptions, createFetch, type SeawallFetch, type SeawallRequestInit } from './fetch.js';
export { IDEMPOTENCY_KEY_HEADER } from './headers.js';
export type { CallOverrides, SeawallClientOptions, SeawallRequestOptions } from './options.js';
export {
  COUNTERS as TELEMETRY_COUNTERS,
  loadOpenTelemetry,
  type MeterLike,
  type TelemetryOptions,
  type TracerLike,
} from './telemetry.js';
export { KILL_SWITCH_ENV } from './traits.js';
export { type RetryInterceptorOptions, retryInterceptor } from './undici.js';
