// The sans-I/O policy core's public surface, `seawall/policy` (the driver kit; the root re-exports only the part an
// application uses, listed in src/index.ts): an explicit list, re-exports only.
// Left out on purpose: the allocation-free twins' constants (OFFER_*), defaults and limits (DEFAULT_*, MAX_*), header
// name constants, config parse helpers (validate*, resolve*, compile*, collect*) and the pieces the drivers and the
// simulator use to build a call (attemptHeaders, readClaim, createBudget, ...): they import those by relative path.
// test/surface.test.ts pins this list; docs/api.md says what each name is for.

export {
  type Admission,
  LoadShedder,
  type LoadShedderConfig,
  type QueueTicket,
  type ResolvedLoadShedderConfig,
  type ShedDequeueResult,
  type ShedDiscipline,
  type ShedStats,
} from './admission/shed.js';
export { ConfigError, type ConfigIssue } from './core/config-error.js';
// @ko surface-policy-explicit
export type { Duration } from './core/duration.js';
export { createRandom, type Random } from './core/random.js';
export {
  type Decision,
  type Outcome,
  type OutcomeKind,
  type RequestTraits,
  type ResetStage,
  STOP_REASONS,
  type StopReason,
} from './core/types.js';
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
} from './hop/deadline.js';
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
} from './hop/hop.js';
export {
  type Claim,
  combineRelayed,
  type OwnershipRow,
  ownershipDecision,
  type RelayedClaim,
} from './hop/ownership.js';
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
} from './hop/retry-after.js';
export {
  type BackoffConfig,
  type BackoffKind,
  backoffBoundMs,
  backoffDelay,
  type ResolvedBackoff,
  resolveBackoff,
} from './retry/backoff.js';
export {
  type BudgetConfig,
  DepositBucket,
  type DepositBucketOptions,
  PercentBudget,
  type PercentBudgetOptions,
  RateBudget,
  type RateBudgetOptions,
  RatioBudget,
  type RatioBudgetOptions,
  type RetryBudget,
  TokenBucket,
  type TokenBucketOptions,
} from './retry/budget.js';
export {
  type BudgetEffect,
  type Classification,
  type ClassReason,
  classifyOutcome,
  compileRetryConditions,
  type RetryCondition,
  type RetryOnSet,
  type SafetyTraits,
} from './retry/classify.js';
export { RetryPolicy, type RetryPolicyOptions } from './retry/retry.js';
export type { RetryBreakerConfig } from './retry/retry-breaker.js';
export type { AttemptPlan, RetryCall } from './retry/retry-call.js';
export type { ResolvedRetryConfig, RetryPolicyConfig } from './retry/retry-config.js';
export type { RetryStats } from './retry/retry-stats.js';
export {
  Balancer,
  type BalancerKind,
  type BalancerStats,
  type EjectionSource,
  type LoadBalancerConfig,
  NO_ENDPOINT,
  type ResolvedLoadBalancerConfig,
} from './upstream/balancer.js';
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
} from './upstream/breaker.js';
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
} from './upstream/concurrency.js';
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
} from './upstream/outlier.js';
export {
  AdaptiveThrottle,
  isOverloadAnswer,
  type ResolvedThrottleConfig,
  rejectProbability,
  type ThrottleConfig,
  type ThrottleCounts,
  type ThrottleStats,
} from './upstream/throttle.js';
