// The sans-I/O policy core's public surface, `seawall/policy` (the driver kit; the root re-exports only the part an
// application uses, listed in src/index.ts): an explicit list, re-exports only.
// Left out on purpose: the allocation-free twins' constants (OFFER_*), defaults and limits (DEFAULT_*, MAX_*), header
// name constants, config parse helpers (validate*, resolve*, compile*, collect*) and the pieces the drivers and the
// simulator use to build a call (attemptHeaders, readClaim, createBudget, ...): they import those by relative path.
// test/surface.test.ts pins this list; docs/api.md says what each name is for.

export {
  type BackoffConfig,
  type BackoffKind,
  backoffBoundMs,
  backoffDelay,
  type ResolvedBackoff,
  resolveBackoff,
} from './backoff.js';
export {
  Balancer,
  type BalancerKind,
  type BalancerStats,
  type EjectionSource,
  type LoadBalancerConfig,
  NO_ENDPOINT,
  type ResolvedLoadBalancerConfig,
} from './balancer.js';
export {
  type BreakerPermit,
  type BreakerRejection,
  type BreakerRejectReason,
  type BreakerReportFate,
  type BreakerState,
  type BreakerStats,
  type BreakerVerdict,
  type BreakerWindowConfig,
  breakerReportOf,
  CircuitBreaker,
  type CircuitBreakerConfig,
  type FailureRateConfig,
  type ResolvedBreakerWindow,
  type ResolvedCircuitBreakerConfig,
} from './breaker.js';
export {
  type BudgetConfig,
  PercentBudget,
  type PercentBudgetOptions,
  RatioBudget,
  type RatioBudgetOptions,
  type RetryBudget,
  TokenBucket,
  type TokenBucketOptions,
} from './budget.js';
export {
  type BudgetEffect,
  type Classification,
  type ClassReason,
  classifyOutcome,
  compileRetryConditions,
  type RetryCondition,
  type RetryOnSet,
  type SafetyTraits,
} from './classify.js';
export {
  ConcurrencyBreaker,
  type ConcurrencyBreakerConfig,
  type ConcurrencyOverflow,
  type ConcurrencyPermit,
  type ConcurrencyResource,
  type ConcurrencyStats,
  type ConcurrencyVerdict,
  type OverflowReason,
  type ResolvedConcurrencyBreakerConfig,
} from './concurrency.js';
export { ConfigError, type ConfigIssue } from './config-error.js';
export {
  Deadline,
  type DeadlineRead,
  type DeadlineReadWithSource,
  type DeadlineSource,
  decodeAbsoluteDeadline,
  decodeEnvoyTimeoutMs,
  decodeGrpcTimeout,
  encodeAbsoluteDeadline,
  encodeEnvoyTimeoutMs,
  encodeGrpcTimeout,
  type HeaderSource,
  readDeadline,
} from './deadline.js';
// @ko surface-policy-explicit
export type { Duration } from './duration.js';
export {
  answerClaimHeaders,
  DEADLINE_REFUSAL,
  type InboundHop,
  type InboundRead,
  queueFullRefusal,
  type Refusal,
  readInboundHop,
  relayedStatus,
  responseOutcome,
} from './hop.js';
export {
  classifyOutlierResult,
  DEFAULT_OUTLIER_DETECTION,
  type EjectionReason,
  type EjectionVerdict,
  ENVOY_OUTLIER_FIELDS,
  type OutlierDetectionConfig,
  OutlierDetector,
  type OutlierEvent,
  type OutlierHostSnapshot,
  type OutlierOutcome,
  type OutlierResultClass,
  type OutlierStats,
  type ResolvedOutlierDetectionConfig,
  type SweepReport,
} from './outlier.js';
export { type Claim, combineRelayed, type OwnershipRow, ownershipDecision, type RelayedClaim } from './ownership.js';
export { createRandom, type Random } from './random.js';
export { RetryPolicy, type RetryPolicyOptions } from './retry.js';
export {
  formatRetryAfter,
  formatRetryAfterMs,
  type HeaderValue,
  type PushbackRead,
  parseGrpcPushback,
  parseRetryAfter,
  parseRetryAfterMs,
  type RetryAfterRead,
  serverWait,
} from './retry-after.js';
export type { AttemptPlan, RetryCall } from './retry-call.js';
export type { ResolvedRetryConfig, RetryPolicyConfig } from './retry-config.js';
export type { RetryStats } from './retry-stats.js';
export {
  type Admission,
  LoadShedder,
  type LoadShedderConfig,
  type QueueTicket,
  type ResolvedLoadShedderConfig,
  type ShedDequeueResult,
  type ShedDiscipline,
  type ShedStats,
} from './shed.js';
export {
  type Decision,
  type Outcome,
  type OutcomeKind,
  type RequestTraits,
  type ResetStage,
  STOP_REASONS,
  type StopReason,
} from './types.js';
