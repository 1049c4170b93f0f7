// The resolved scenario: plain data (durations in ms) that crosses to worker threads and drives one run per variant.

import type { LoadShedderConfig } from '../../policy/admission/shed.js';
import type { RetryPolicyConfig } from '../../policy/retry/retry-config.js';
import type { ResolvedLoadBalancerConfig } from '../../policy/upstream/balancer.js';
import type { CircuitBreakerConfig } from '../../policy/upstream/breaker-config.js';
import type { ConcurrencyBreakerConfig } from '../../policy/upstream/concurrency.js';
import type { OutlierDetectionConfig } from '../../policy/upstream/outlier-config.js';
import type { ThrottleConfig } from '../../policy/upstream/throttle-config.js';
import type { DistSpec } from '../model/distributions.js';

export type { DistSpec };

/** An open-loop Poisson source of user requests. */
export interface TrafficSpec {
  /** Entry service. */
  to: string;
  ratePerS: number;
  /** A user who has waited this long is gone; null = waits forever. */
  patienceMs: number | null;
}

export interface CallSpec {
  to: string;
  /** A failed optional call does not fail the request. */
  optional: boolean;
}

/** Fast failures: with probability `rate` an execution answers `status` after `costMs` of worker time. */
export interface ErrorSpec {
  rate: number;
  status: number;
  costMs: number;
}

export interface ServiceSpec {
  name: string;
  instances: number;
  /** LoadShedder config per instance; null = unlimited concurrency and no admission control. */
  shed: LoadShedderConfig | null;
  serviceTime: DistSpec;
  errors: ErrorSpec | null;
  calls: CallSpec[];
  /** Downstream calls go out together (fan-out) instead of one after another. */
  parallel: boolean;
  /** The service runs Seawall: it reads hop headers (deadline, hop marker) and claims its errors. */
  seawall: boolean;
}

/** One caller -> callee edge and the RetryPolicy config every caller instance uses on it. */
export interface EdgeSpec {
  from: string;
  to: string;
  policy: RetryPolicyConfig;
  /**
   * The caller makes this call with Seawall: it sends the hop marker (and the deadline, if the policy propagates it)
   * and reads the callee's claims. False when the edge says `seawall: false` or the caller runs without Seawall. (A
   * callee without Seawall ignores what it is sent and claims nothing.)
   */
  seawall: boolean;
  /** The one-layer rule applies to this call (the HTTP client's `oneLayer` option; default true). */
  oneLayer: boolean;
  /**
   * The guards of each attempt, as validated by the policies' own validators and kept as written (plain data: the
   * policies resolve them again when a run builds its objects); null when the edge has none.
   */
  circuitBreaker: CircuitBreakerConfig | null;
  /** Envoy's circuit_breakers (ConcurrencyBreaker) per caller instance and edge. */
  limits: ConcurrencyBreakerConfig | null;
  /** Envoy's outlier detection (OutlierDetector) per caller instance and edge, over the callee's instances. */
  outlierDetection: OutlierDetectionConfig | null;
  /** How each attempt picks a callee instance (Balancer); round-robin with Envoy's panic threshold by default. */
  loadBalancer: ResolvedLoadBalancerConfig;
  /** Client-side adaptive throttling (AdaptiveThrottle) per caller instance and edge; absent when the edge has none. */
  throttle?: ThrottleConfig;
}

/** A change that holds over [startMs, endMs). */
export interface FaultSpec {
  /** Target service; null for a surge that applies to every traffic source. */
  service: string | null;
  /** The target's instances it hits (indices); null = all of them. */
  instances: number[] | null;
  startMs: number;
  endMs: number;
  /** Workers per instance while the fault holds (the DB failover). */
  workers: number | null;
  errors: ErrorSpec | null;
  /** Extra worker time per execution. */
  latencyMs: number;
  /** Arrival-rate multiplier for traffic into `service` (or all traffic). */
  surge: number;
}

/** Everything one run needs, besides the seed. */
export interface ModelSpec {
  traffic: TrafficSpec[];
  /** One-way latency of every service-to-service hop. */
  networkLatency: DistSpec;
  services: ServiceSpec[];
  edges: EdgeSpec[];
  faults: FaultSpec[];
  /** Callers cancel attempts they stop waiting for (timeouts, give-ups, aborted calls). */
  cancellation: boolean;
}

export interface VariantSpec {
  name: string;
  description: string | null;
  /** The variant's `group` (how the report groups variants); absent or null when the file gives none. */
  group?: string | null;
  model: ModelSpec;
}

export interface Scenario {
  name: string;
  description: string | null;
  /** Where it was loaded from (built-in name or file path). */
  source: string;
  durationMs: number;
  /** Named measurement windows, [startMs, endMs). */
  windows: Record<string, [number, number]>;
  /** In file order; a file without variants has one named "default". */
  variants: VariantSpec[];
  /** Risky but valid settings (e.g. policy warnings), one line each with its path. */
  warnings: string[];
  /** The file's `maxLive`: requests and events one run may hold at once; absent: the World's DEFAULT_MAX_LIVE. */
  maxLive?: number;
}
