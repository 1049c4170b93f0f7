// The HTTP drivers' public surface: an explicit list, re-exports only. Metric-name tables, the kill switch's variable
// name and the claim header stay internal (docs give their values); test/surface.test.ts pins this list.

export { type SeawallFastifyDecorations, seawallFastify } from './adapters/fastify.js';
export { type SeawallHonoMiddleware, seawallHono } from './adapters/hono.js';
export { ConnectAbandonedError, seawallConnector } from './connector.js';
export { currentContext, type RelaySink, runWithContext, type SeawallContext } from './context.js';
export { AttemptTimeoutError, SeawallError, type SeawallErrorDetails } from './errors.js';
export {
  type BudgetRefusedEvent,
  type CancelEvent,
  type ClientHooks,
  type ClientKind,
  type DropEvent,
  type GiveUpEvent,
  type RetryEvent,
  SEAWALL_CHANNELS,
  type ShedEvent,
} from './events.js';
export { type CreateFetchOptions, createFetch, type SeawallFetch, type SeawallRequestInit } from './fetch.js';
export { IDEMPOTENCY_KEY_HEADER } from './headers.js';
export type { CallOverrides, SeawallClientOptions, SeawallRequestOptions } from './options.js';
export {
  type ConnectMiddleware,
  type NodeHandler,
  type NodeHandlerOptions,
  type SeawallControls,
  type SeawallListener,
  type SeawallMiddleware,
  seawallHandler,
  shed,
} from './server.js';
export type { InboundRequest, ServerGate, ServerStats } from './server-core.js';
export type { ShedOptions, TrustDeadline, TrustInput } from './server-options.js';
export type { ServerMeterLike, WaitHistogramSnapshot } from './server-telemetry.js';
export { loadOpenTelemetry, type MeterLike, type TelemetryOptions, type TracerLike } from './telemetry.js';
export { type RetryInterceptorOptions, retryInterceptor, type SeawallInterceptor } from './undici.js';
export type { EndpointStats, UpstreamRefusal, UpstreamStats } from './upstream.js';
export type { UpstreamOptions } from './upstream-options.js';
// @ko surface-http-explicit
export type { ClientSignals, ClientStats } from './upstream-stats.js';
