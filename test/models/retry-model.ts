// A plain model of one retrying caller (semantics.md §1, §2, §7, docs/policy.md), for differential tests of RetryCall.
import type { Random } from '../../src/policy/core/random.js';

/** The outcomes the model knows: an idempotent GET's responses, timeouts and resets. */
export type ModelOutcome =
  | { kind: 'response'; status: number; retryAfter?: string }
  | { kind: 'timeout' }
  | { kind: 'reset' };

export interface RetryModelConfig {
  maxAttempts: number;
  /** Infinity: no per-try timeout. */
  perTryMs: number;
  /** null: no deadline. Otherwise the deadline is start + patience − margin. */
  patienceMs: number | null;
  marginMs: number;
  /** Full jitter U(0, min(cap, base · 2^n)) for retry n, or no wait at all. */
  backoff: { kind: 'full-jitter'; baseMs: number; capMs: number } | { kind: 'none' };
  /** gRPC A6 token bucket, or none. */
  budget: { maxTokens: number; tokenRatio: number } | null;
  /** Status codes retried, and whether timeouts and resets are. */
  statuses: ReadonlySet<number>;
  timeout: boolean;
  reset: boolean;
  maxRetryAfterMs: number;
}

export type ModelStop = { stop: string };
/** begin(): the attempt's time allowance, or a stop. */
export type ModelBegin = ModelStop | { timeoutMs: number };
/** outcome(): the wait before the next attempt, or a stop. */
export type ModelNext = ModelStop | { waitMs: number };

/**
 * Written from the rules, not from src/policy/retry/retry.ts: an attempt is allowed only before the deadline and gets
 * min(per-try, time left); a success refills the bucket, a retryable failure drains it first and then the retry is
 * tested against the threshold (tokens > max / 2); a retry draws once from `random` whatever the backoff, a
 * Retry-After is a floor on the jittered wait (and one over maxRetryAfter stops the call); a wait that reaches the
 * deadline stops the call.
 */
export class RetryModel {
  /** Thousandths of a token, as gRPC keeps three decimals. */
  private milliTokens: number;
  attempts = 0;
  retries = 0;

  constructor(
    readonly cfg: RetryModelConfig,
    private readonly random: Random,
  ) {
    this.milliTokens = cfg.budget === null ? 0 : cfg.budget.maxTokens * 1000;
  }

  start(nowMs: number): ModelCall {
    const deadlineMs = this.cfg.patienceMs === null ? null : nowMs + this.cfg.patienceMs - this.cfg.marginMs;
    return new ModelCall(this, deadlineMs);
  }

  /** @internal */ succeed(): void {
    const b = this.cfg.budget;
    if (b !== null) this.milliTokens = Math.min(this.milliTokens + Math.round(b.tokenRatio * 1000), b.maxTokens * 1000);
  }

  /** @internal */ fail(): void {
    if (this.cfg.budget !== null) this.milliTokens = Math.max(this.milliTokens - 1000, 0);
  }

  /** @internal */ retryAllowed(): boolean {
    const b = this.cfg.budget;
    return b === null || this.milliTokens > (b.maxTokens * 1000) / 2;
  }

  /** @internal */ draw(): number {
    return this.random.next();
  }
}

export class ModelCall {
  private attempts = 0;
  private n = 0;
  ended: string | null = null;

  constructor(
    private readonly model: RetryModel,
    readonly deadlineMs: number | null,
  ) {}

  begin(nowMs: number): ModelBegin {
    if (this.deadlineMs !== null && nowMs >= this.deadlineMs) return this.stop('deadline-exceeded');
    this.attempts++;
    this.model.attempts++;
    const left = this.deadlineMs === null ? Number.POSITIVE_INFINITY : this.deadlineMs - nowMs;
    return { timeoutMs: Math.min(this.model.cfg.perTryMs, left) };
  }

  outcome(o: ModelOutcome, nowMs: number): ModelNext {
    const cfg = this.model.cfg;
    if (o.kind === 'response' && o.status < 400) {
      this.model.succeed();
      return this.stop('succeeded');
    }
    const matched = o.kind === 'response' ? cfg.statuses.has(o.status) : o.kind === 'timeout' ? cfg.timeout : cfg.reset;
    if (!matched) {
      // gRPC A6: only OK earns tokens, so an answer nobody retries (a 4xx included) leaves the bucket alone.
      return this.stop('not-retryable');
    }
    this.model.fail();
    if (this.attempts >= cfg.maxAttempts) return this.stop('attempts-exhausted');
    if (!this.model.retryAllowed()) return this.stop('budget-exhausted');
    const u = this.model.draw();
    this.n++;
    let waitMs = cfg.backoff.kind === 'none' ? 0 : u * Math.min(cfg.backoff.capMs, cfg.backoff.baseMs * 2 ** this.n);
    if (o.kind === 'response' && o.retryAfter !== undefined) {
      const hintMs = Number(o.retryAfter) * 1000;
      if (hintMs > cfg.maxRetryAfterMs) return this.stop('server-pushback');
      waitMs = Math.max(waitMs, hintMs);
    }
    if (this.deadlineMs !== null && nowMs + waitMs >= this.deadlineMs) return this.stop('deadline-would-pass');
    this.model.retries++;
    return { waitMs };
  }

  private stop(reason: string): ModelStop {
    this.ended = reason;
    return { stop: reason };
  }
}
