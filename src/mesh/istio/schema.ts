// A strict zod schema of the Istio fields Seawall reads and writes (networking.istio.io VirtualService,
// DestinationRule, Sidecar), beside the published models' own validate() where installed (see istio-models.ts).
//
// Field names are those of Istio's CRDs (networking.istio.io/v1). The published models check types but accept unknown
// fields, so the blocks Seawall reads are checked strictly here: a field that is not in the CRD is an error with its
// path. Durations are Go-style strings ("250ms", "1s"). src/mesh/istio/schema.published.test.ts checks that every field the
// export writes is one the published schema knows, and that this schema refuses whatever the published one refuses
// there (against src/mesh/fixtures/istio-published-schema.json, recorded from the models by tools/docs/istio-record.ts).

import { z } from 'zod';
import { readGoDuration } from '../durations.js';
import { bool, durationString, list, message, str } from '../schema-kit.js';

/**
 * A duration under Istio's ValidateDuration (pkg/config/validation/agent/validation.go), which the validation webhook
 * applies to every duration Seawall reads: at least 1 ms and a whole number of ms (the CRDs' CEL rule says
 * `duration(self) >= duration('1ms')` too). So a route `timeout: 0s` is refused, not "no timeout".
 */
const istioDuration = durationString((value) => {
  const read = readGoDuration(value);
  if (!read.ok) return read;
  // @ko istio-duration-at-least-1ms
  if (read.ms < 1) return { ok: false, message: 'must be at least 1ms (Istio refuses a shorter duration)' };
  if (!Number.isInteger(read.ms))
    return { ok: false, message: 'must be a whole number of milliseconds (Istio supports only ms precision)' };
  return read;
});
/** connectionPool.tcp.idleTimeout: the webhook skips a value under 1 ms (0s turns it off), else ValidateDuration. */
const idleDuration = durationString((value) => {
  const read = readGoDuration(value);
  if (!read.ok || read.ms < 1 || Number.isInteger(read.ms)) return read;
  return { ok: false, message: 'must be a whole number of milliseconds (Istio supports only ms precision)' };
});
const int32 = z
  .number({ error: 'must be a whole number' })
  .int({ error: 'must be a whole number' })
  .min(-2_147_483_648, { error: 'must fit in 32 bits' })
  .max(2_147_483_647, { error: 'must fit in 32 bits' });
const labels = z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be a mapping' });
const stringMatch = message(['exact', 'prefix', 'regex'], { exact: str, prefix: str, regex: str });

export const httpRetrySchema = z
  .strictObject({
    attempts: int32.min(0, { error: 'must not be negative (Istio refuses negative attempts)' }).optional(),
    perTryTimeout: istioDuration.optional(),
    retryOn: str.optional(),
    retryRemoteLocalities: bool.optional(),
    retryIgnorePreviousHosts: bool.optional(),
    backoff: istioDuration.optional(),
  })
  .superRefine((retry, ctx) => {
    // ValidateHTTPRetry (pkg/config/validation/agent/validation.go): attempts 0 (or unset: proto3's 0) turns retries
    // off, and then perTryTimeout, a non-empty retryOn or retryRemoteLocalities is a contradiction Istio refuses.
    // backoff and retryIgnorePreviousHosts are not checked there.
    if ((retry.attempts ?? 0) !== 0) return;
    const set = (['perTryTimeout', 'retryOn', 'retryRemoteLocalities'] as const).filter((key) =>
      key === 'retryOn' ? (retry.retryOn ?? '') !== '' : retry[key] !== undefined,
    );
    // @ko istio-retry-policy-with-zero-attempts
    if (set.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['attempts'],
        message: `${retry.attempts === undefined ? 'is unset (0)' : 'is 0'}, which turns retries off, yet ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set: Istio refuses a retry policy configured with 0 attempts`,
      });
    }
  });

const matchSchema = message(
  [
    'name',
    'uri',
    'scheme',
    'method',
    'authority',
    'headers',
    'port',
    'sourceLabels',
    'gateways',
    'queryParams',
    'ignoreUriCase',
    'withoutHeaders',
    'sourceNamespace',
    'statPrefix',
  ],
  { method: stringMatch, sourceLabels: labels },
);

const destinationSchema = message(['host', 'subset', 'port'], { host: str, subset: str });

export const httpRouteSchema = message(
  [
    'name',
    'match',
    'route',
    'redirect',
    'directResponse',
    'delegate',
    'rewrite',
    'timeout',
    'retries',
    'fault',
    'mirror',
    'mirrors',
    'mirrorPercentage',
    'mirrorPercent',
    'corsPolicy',
    'headers',
  ],
  {
    match: list(matchSchema),
    route: list(message(['destination', 'weight', 'headers'], { destination: destinationSchema, weight: int32 })),
    timeout: istioDuration,
    retries: httpRetrySchema,
  },
);

export const virtualServiceSpecSchema = message(['hosts', 'gateways', 'http', 'tls', 'tcp', 'exportTo'], {
  hosts: list(str),
  http: list(httpRouteSchema),
});

const positiveInt32 = int32.min(0, { error: 'must be a whole number ≥ 0' });

export const connectionPoolSchema = z
  .strictObject({
    tcp: z
      .strictObject({
        maxConnections: positiveInt32.optional(),
        connectTimeout: istioDuration.optional(),
        tcpKeepalive: z.unknown().optional(),
        maxConnectionDuration: istioDuration.optional(),
        idleTimeout: idleDuration.optional(),
      })
      .optional(),
    http: z
      .strictObject({
        http1MaxPendingRequests: positiveInt32.optional(),
        http2MaxRequests: positiveInt32.optional(),
        maxRequestsPerConnection: positiveInt32.optional(),
        maxRetries: positiveInt32.optional(),
        idleTimeout: istioDuration.optional(),
        h2UpgradePolicy: z
          .enum(['DEFAULT', 'DO_NOT_UPGRADE', 'UPGRADE'], { error: 'must be DEFAULT, DO_NOT_UPGRADE or UPGRADE' })
          .optional(),
        useClientProtocol: bool.optional(),
        maxConcurrentStreams: positiveInt32.optional(),
      })
      .optional(),
  })
  .superRefine((pool, ctx) => {
    // validateConnectionPool (pkg/config/validation/validation.go).
    if (pool.tcp === undefined && pool.http === undefined)
      ctx.addIssue({ code: 'custom', message: 'must set tcp or http: Istio refuses an empty connection pool' });
  });

export const outlierSchema = z
  .strictObject({
    consecutiveErrors: positiveInt32.optional(),
    consecutive5xxErrors: positiveInt32.optional(),
    consecutiveGatewayErrors: positiveInt32.optional(),
    consecutiveLocalOriginFailures: positiveInt32.optional(),
    splitExternalLocalOriginErrors: bool.optional(),
    interval: istioDuration.optional(),
    baseEjectionTime: istioDuration.optional(),
    maxEjectionPercent: positiveInt32.max(100, { error: 'must be a percentage from 0 to 100' }).optional(),
    // validateOutlierDetection (pkg/config/validation/validation.go): ValidatePercent, 0..100, for both.
    minHealthPercent: int32
      .min(0, { error: 'must be a percentage from 0 to 100' })
      .max(100, { error: 'must be a percentage from 0 to 100' })
      .optional(),
  })
  .superRefine((od, ctx) => {
    // validateOutlierDetection again: local-origin failures are counted only when split from the others.
    if ((od.consecutiveLocalOriginFailures ?? 0) > 0 && od.splitExternalLocalOriginErrors !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['consecutiveLocalOriginFailures'],
        message:
          'is set but splitExternalLocalOriginErrors is not true: Istio refuses it (local-origin failures are counted only when split)',
      });
    }
  });

export const retryBudgetSchema = z.strictObject({
  percent: z
    .number({ error: 'must be a number from 0 to 100' })
    .min(0)
    .max(100, { error: 'must be a number from 0 to 100' })
    .optional(),
  // @ko istio-schema-retry-budget-typed
  minRetryConcurrency: positiveInt32.optional(),
});

const loadBalancerSchema = message(['simple', 'consistentHash', 'localityLbSetting', 'warmupDurationSecs', 'warmup'], {
  simple: z.enum(['UNSPECIFIED', 'LEAST_CONN', 'RANDOM', 'PASSTHROUGH', 'ROUND_ROBIN', 'LEAST_REQUEST'], {
    error: 'must be one of UNSPECIFIED, LEAST_CONN, RANDOM, PASSTHROUGH, ROUND_ROBIN, LEAST_REQUEST',
  }),
});

export const trafficPolicySchema = message(
  [
    'connectionPool',
    'loadBalancer',
    'outlierDetection',
    'portLevelSettings',
    'proxyProtocol',
    'retryBudget',
    'tls',
    'tunnel',
  ],
  {
    connectionPool: connectionPoolSchema,
    loadBalancer: loadBalancerSchema,
    outlierDetection: outlierSchema,
    retryBudget: retryBudgetSchema,
  },
).superRefine((tp, ctx) => {
  // validateTrafficPolicy (pkg/config/validation/validation.go): at least one field.
  if (Object.values(tp).every((v) => v === undefined))
    ctx.addIssue({ code: 'custom', message: 'must set at least one field: Istio refuses an empty traffic policy' });
});

const workloadSelectorSchema = z.strictObject({ matchLabels: labels.optional() });

export const destinationRuleSpecSchema = message(['host', 'trafficPolicy', 'subsets', 'exportTo', 'workloadSelector'], {
  host: str,
  trafficPolicy: trafficPolicySchema,
  subsets: list(message(['name', 'labels', 'trafficPolicy'], { name: str, trafficPolicy: trafficPolicySchema })),
  workloadSelector: workloadSelectorSchema,
});

/** A Sidecar selects its workload by `labels` (a DestinationRule by `matchLabels`). */
export const sidecarSpecSchema = message(
  ['workloadSelector', 'ingress', 'egress', 'outboundTrafficPolicy', 'inboundConnectionPool'],
  { workloadSelector: z.strictObject({ labels: labels.optional() }), inboundConnectionPool: connectionPoolSchema },
);

export type IstioHttpRoute = z.output<typeof httpRouteSchema>;
export type IstioTrafficPolicy = z.output<typeof trafficPolicySchema>;
export type IstioConnectionPool = z.output<typeof connectionPoolSchema>;
export type IstioDestinationRuleSpec = z.output<typeof destinationRuleSpecSchema>;
export type IstioVirtualServiceSpec = z.output<typeof virtualServiceSpecSchema>;
export type IstioSidecarSpec = z.output<typeof sidecarSpecSchema>;

interface IstioMetadata {
  name: string;
  namespace?: string;
}
/** A whole networking.istio.io document as Seawall writes it. */
export type IstioDocument =
  | { apiVersion: string; kind: 'VirtualService'; metadata: IstioMetadata; spec: IstioVirtualServiceSpec }
  | { apiVersion: string; kind: 'DestinationRule'; metadata: IstioMetadata; spec: IstioDestinationRuleSpec }
  | { apiVersion: string; kind: 'Sidecar'; metadata: IstioMetadata; spec: IstioSidecarSpec };
