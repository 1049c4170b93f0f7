// The HTTP drivers' public surface: an explicit list, re-exports only. Metric-name tables, the kill switch's variable
// name and the claim header stay internal (docs give their values); test/surface.test.ts pins this list.

export { currentContext, type RelaySink, runWithContext, type SeawallContext } from '../driver/context.js';
export { AttemptTimeoutError, SeawallError, type SeawallErrorDetails } from '../driver/errors.js';
export {
  type BreakerEvent,
  type BudgetRefusedEvent,
  type CancelEvent,
  type ClientHooks,
  type ClientKind,
  type DropEvent,
  type EjectionEvent,
  type GiveUpEvent,
  type RefusedEvent,
  type RetryEvent,
  SEAWALL_CHANNELS,
  type ShedEvent,
} from '../driver/events.js';
export { IDEMPOTENCY_KEY_HEADER } from '../driver/headers.js';
export type { CallOverrides, SeawallClientOptions, SeawallRequestOptions } from '../driver/options.js';
export { loadOpenTelemetry, type MeterLike, type TracerLike } from '../driver/otel.js';
export type { TelemetryOptions } from '../driver/telemetry.js';
export type { UpstreamOptions } from '../driver/upstream/options.js';
export type { EndpointStats, UpstreamRefusal, UpstreamStats } from '../driver/upstream/scopes.js';
// @ko surface-http-explicit
export type { ClientSignals, ClientStats } from '../driver/upstream/stats.js';
export { ConnectAbandonedError, seawallConnector } from './client/connector.js';
export { type CreateFetchOptions, createFetch, type SeawallFetch, type SeawallRequestInit } from './client/fetch.js';
export { type RetryInterceptorOptions, retryInterceptor, type SeawallInterceptor } from './client/undici.js';
export { type SeawallFastifyDecorations, seawallFastify } from './server/adapters/fastify.js';
export { type SeawallHonoMiddleware, seawallHono } from './server/adapters/hono.js';
export type { InboundRequest, ServerGate, ServerStats } from './server/core.js';
export {
  type ConnectMiddleware,
  type NodeHandler,
  type NodeHandlerOptions,
  type SeawallControls,
  type SeawallListener,
  type SeawallMiddleware,
  seawallHandler,
  shed,
} from './server/node.js';
export type { ShedOptions, TrustDeadline, TrustInput } from './server/options.js';
export type { ServerMeterLike, WaitHistogramSnapshot } from './server/telemetry.js';
