// RetryPolicy: one per caller process and upstream service; it owns the budgets and starts RetryCalls (retry-call.ts).

import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { createRandom, type Random } from '../core/random.js';
import type { RequestTraits } from '../core/types.js';
import { ATTEMPT_HEADER, type InboundHop } from '../hop/hop.js';
import { createBudget, type RetryBudget } from './budget.js';
import { RetryBreakerGate } from './retry-breaker.js';
import { RetryCall } from './retry-call.js';
import { type ResolvedRetryConfig, type RetryPolicyConfig, resolveRetryConfig } from './retry-config.js';
import { RetryCounters, type RetryStats } from './retry-stats.js';

export { AttemptPlan, RetryCall } from './retry-call.js';
export { ATTEMPT_HEADER };
/** Upstreams tracked with their own budget; beyond this the least recently used one is forgotten. */
export const MAX_TRACKED_UPSTREAMS = 1024;

/** Seeds the default random stream from the platform's CSPRNG, so processes do not jitter in lockstep. */
function entropySeed(): number {
  const buffer = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buffer);
  return buffer[0] as number;
}

export interface RetryPolicyOptions {
  /** Source of jitter draws. Pass a seeded one for reproducible runs (the simulator does). */
  random?: Random;
  /** Told about risky settings at construction and on update. */
  onWarning?(warning: ConfigIssue): void;
  /** Upstreams tracked with their own budget (default MAX_TRACKED_UPSTREAMS); beyond it the least recently used goes. */
  maxUpstreams?: number;
}

/** One retry policy per caller process and upstream service; it owns the retry budget(s). */
export class RetryPolicy {
  private resolved: ResolvedRetryConfig;
  private rawConfig: RetryPolicyConfig;
  private readonly budgets = new Map<string, RetryBudget>();
  /** The budget of the default upstream '' (most policies have only that one), cached to skip the map lookup. */
  private defaultBudget: RetryBudget | null = null;
  /** The upstream whose budget is last in `budgets` (the most recently used). */
  private recentUpstream: string | null = null;
  private readonly random: Random;
  private readonly onWarning: ((warning: ConfigIssue) => void) | undefined;
  private readonly maxUpstreams: number;
  /** @internal counters shared with calls */
  readonly counters = new RetryCounters();
  warnings: readonly ConfigIssue[];

  constructor(config: RetryPolicyConfig = {}, options: RetryPolicyOptions = {}) {
    const { config: resolved, warnings } = resolveRetryConfig(config);
    this.resolved = resolved;
    this.rawConfig = { ...config };
    this.warnings = warnings;
    this.random = options.random ?? createRandom(entropySeed());
    this.onWarning = options.onWarning;
    const maxUpstreams = options.maxUpstreams ?? MAX_TRACKED_UPSTREAMS;
    if (!Number.isInteger(maxUpstreams) || maxUpstreams < 2) {
      throw new ConfigError([
        { path: 'maxUpstreams', message: `must be an integer >= 2, got ${String(maxUpstreams)}` },
      ]);
    }
    this.maxUpstreams = maxUpstreams;
    for (const warning of warnings) this.onWarning?.(warning);
  }

  /** The validated configuration in force. */
  get config(): ResolvedRetryConfig {
    return this.resolved;
  }

  /**
   * Starts one logical call. `inbound`: the hop facts of the request being handled (hop.ts InboundHop: the HTTP
   * middleware's context, a simulated request), if the call is made for one: its deadline bounds the call and its hop
   * marker decides the layer rule. Both drivers pass it here, so the rule is applied in one place.
   */
  start(nowMs: number, traits: RequestTraits = {}, inbound: InboundHop | null = null): RetryCall {
    return new RetryCall(this, this.budgetFor(traits.upstream ?? ''), nowMs, traits, inbound);
  }

  /**
   * The budget for an upstream (created on first use). At most MAX_TRACKED_UPSTREAMS are kept; beyond that the least
   * recently used one is forgotten, so a hot upstream keeps its (perhaps drained) budget however many others appear.
   */
  budgetFor(upstream = ''): RetryBudget {
    // @eq retry-upstream-defaultbudget
    if (upstream === '' && this.defaultBudget !== null) return this.defaultBudget;
    const budgets = this.budgets;
    let budget = budgets.get(upstream);
    if (budget === undefined) {
      if (budgets.size >= this.maxUpstreams) {
        // A Map iterates in insertion order and every use re-inserts: the first key is the least recently used. The
        // default upstream '' is read through a shortcut that skips the re-insertion, so it is never the one evicted.
        const keys = budgets.keys();
        let oldest = keys.next().value as string;
        if (oldest === '') oldest = keys.next().value as string;
        budgets.delete(oldest);
      }
      budget = createBudget(this.resolved.budget);
      const breaker = this.resolved.retryBreaker;
      // @ko retry-breaker-built
      if (breaker !== null) budget = new RetryBreakerGate(budget, breaker);
      budgets.set(upstream, budget);
      this.recentUpstream = upstream;
      // @eq retry-upstream-recentupstream
    } else if (upstream !== this.recentUpstream) {
      // @ko budget-lru-refresh
      budgets.delete(upstream); // most recently used goes last; skipped when it is last already (the usual case)
      budgets.set(upstream, budget);
      this.recentUpstream = upstream;
    }
    // @eq retry-upstream-defaultbudget-budget
    if (upstream === '') this.defaultBudget = budget;
    return budget;
  }

  /**
   * Changes the configuration at run time (keys not given keep their value). Calls in flight see the new values at
   * their next decision; a token bucket keeps its fill ratio (gRPC rescales tokens); other budget changes, and any
   * change of retryBreaker, start the budgets and breakers afresh.
   */
  update(config: RetryPolicyConfig): void {
    const merged = { ...this.rawConfig, ...config };
    const { config: resolved, warnings } = resolveRetryConfig(merged);
    const before = this.resolved.budget;
    const after = resolved.budget;
    const sameBreaker = JSON.stringify(this.resolved.retryBreaker) === JSON.stringify(resolved.retryBreaker);
    if (sameBreaker && before?.kind === 'token-bucket' && after?.kind === 'token-bucket') {
      for (const held of this.budgets.values()) {
        const budget = held instanceof RetryBreakerGate ? held.inner : held;
        (budget as unknown as { reconfigure(o: { maxTokens: number; tokenRatio: number }): void }).reconfigure(after);
      }
    } else if (!sameBreaker || JSON.stringify(before) !== JSON.stringify(after)) {
      this.budgets.clear();
      this.defaultBudget = null;
      this.recentUpstream = null;
    }
    this.resolved = resolved;
    this.rawConfig = merged;
    this.warnings = warnings;
    for (const warning of warnings) this.onWarning?.(warning);
  }

  /** Counters in Envoy's spirit; `calls === active + sum(stops)` always holds. */
  stats(): RetryStats {
    return this.counters.snapshot();
  }

  /** @internal one uniform draw for jitter */
  draw(): number {
    return this.random.next();
  }
}
