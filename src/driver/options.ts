// Options of the HTTP drivers and their resolution into the policy's RequestTraits for one call (deadline, hop, overrides).

import { randomUUID } from 'node:crypto';
import { ConfigError, type ConfigIssue, joinPath } from '../policy/core/config-error.js';
import { type Duration, parseDuration } from '../policy/core/duration.js';
import type { RequestTraits } from '../policy/core/types.js';
import {
  compileRetryConditions,
  isIdempotentMethod,
  type RetryCondition,
  type RetryOnSet,
} from '../policy/retry/classify.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import type { RetryPolicyConfig } from '../policy/retry/retry-config.js';
import { currentContext, type SeawallContext } from './context.js';
import { type ClientHooks, HOOK_NAMES } from './events.js';
import { IDEMPOTENCY_KEY_HEADER } from './headers.js';
import { checkRequestOptions, clientOptionIssues, type DriverKey } from './options-check.js';
import type { TelemetryOptions } from './telemetry.js';
import { killSwitchSet } from './traits.js';
import { GuardEvents } from './upstream/guard-events.js';
import type { UpstreamOptions } from './upstream/options.js';
import { Upstreams } from './upstream/scopes.js';

/** Per-call overrides that can only make a call more conservative than the policy (fewer attempts, other conditions). */
export interface CallOverrides {
  /** At most this many attempts (never more than the policy's maxAttempts). */
  maxAttempts?: number;
  /** Retry conditions for this call instead of the policy's `retryOn`. */
  retryOn?: RetryCondition[];
  /** At most this long per attempt (never longer than the policy's perTryTimeout). */
  perTryTimeout?: Duration;
}

/** Per-request options: `fetch(url, { seawall: {...} })` or undici's `request({ ..., seawall: {...} })`. */
export interface SeawallRequestOptions extends CallOverrides {
  /**
   * Absolute deadline of this call (epoch ms). It can shorten the deadline inherited from the inbound request and the
   * policy's own, never extend them.
   */
  deadlineMs?: number;
  /** Relative deadline of this call ("2s", 800): like deadlineMs, it can only shorten the call's deadline. */
  timeout?: Duration;
  /** Declares the request idempotent (or not) whatever its method. */
  idempotent?: boolean;
  /** Sends this Idempotency-Key (the same on every attempt), which makes a non-idempotent request replay-safe. */
  idempotencyKey?: string;
  /** Overrides the client's `bufferResponse` for this call. */
  bufferResponse?: boolean;
  /** Overrides the client's `oneLayer` for this call. */
  oneLayer?: boolean;
  /** Budget key for this call (default: the client's `upstream`, else the request's origin). */
  upstream?: string;
  /** Overrides the client's `propagate` for this call. */
  propagate?: boolean;
}

/** Options shared by createFetch and retryInterceptor (the upstream keys, endpoints to limits: upstream-options.ts). */
export interface SeawallClientOptions extends UpstreamOptions, ClientHooks {
  /**
   * The retry policy: one per caller and upstream service; it owns the retry budget (per origin by default). A plain
   * config object (`{ maxAttempts: 3, ... }`) builds a RetryPolicy for this client alone.
   */
  policy: RetryPolicy | RetryPolicyConfig;
  /**
   * Retries at one layer only (default true): a call made while handling a request that came from another Seawall hop
   * makes a single attempt and passes the deadline on, so the outermost Seawall hop does the retrying. A policy with
   * `ownership: true` decides by error ownership instead (the hop next to the failure retries: docs/hops.md).
   */
  oneLayer?: boolean;
  /** Adds an `Idempotency-Key` (a random UUID, the same on every attempt) to non-idempotent requests that lack one. */
  idempotencyKeys?: boolean;
  /**
   * When Seawall gives up on a retryable response (attempts, budget or deadline spent, server pushback, one-shot body),
   * reject with a SeawallError instead of resolving with that response (default false: fetch semantics).
   */
  rejectOnGiveUp?: boolean;
  /**
   * Read the whole response body inside the attempt (default false: stream it). The per-try timeout and the deadline
   * then cover the body, and a connection reset mid-body can be retried (replay-safe requests only).
   */
  bufferResponse?: boolean;
  /** Defaults for idempotent requests ("reads may be retried eagerly"). */
  reads?: CallOverrides;
  /** Defaults for non-idempotent requests ("writes conservatively"), e.g. `{ maxAttempts: 2, retryOn: ['connect-failure', 503] }`. */
  writes?: CallOverrides;
  /** Kill switch: one attempt per call. Default: whether SEAWALL_DISABLE_RETRIES is set in `env` at creation. */
  retriesDisabled?: boolean;
  /** Environment to read the kill switch from (default process.env). */
  env?: Record<string, string | undefined>;
  /** OpenTelemetry: on by default when `@opentelemetry/api` is installed; `false` turns it off. */
  telemetry?: boolean | TelemetryOptions;
  /** One budget key for every call of this client (default: each origin has its own budget). */
  upstream?: string;
  /**
   * Send Seawall's headers downstream on every attempt (default true): the deadline (`x-request-deadline`,
   * `grpc-timeout`) and the attempt number (`x-seawall-attempt`). Turn it off for a third party outside your system:
   * it does not read them, and your internal deadlines and attempt counts are none of its business. The deadline is
   * still enforced on this side. (OpenTelemetry trace context is injected either way when telemetry is on.)
   */
  propagate?: boolean;
  /**
   * Believe the upstream's error claims (`x-seawall-claimed`, `x-seawall-retry-criteria-met`), which a policy with
   * `ownership: true` acts on. Default: `propagate` (a third party we send no headers to is outside the trust
   * boundary: its claims are ignored, and its errors are treated as carrying no claim). Set it explicitly when the two
   * differ, e.g. `false` for an upstream that might forge `x-seawall-claimed: 0` to stop your retries.
   */
  trustClaims?: boolean;
  /**
   * Unref the backoff timer too (default false). Per-try timers are always unref'd (the attempt's socket holds the
   * process meanwhile), and every timer is cleared when its call ends. The backoff timer is ref'd by default so that a
   * call being awaited keeps the process alive while it sleeps, as a request in flight does — unref'd, a script's
   * top-level `await fetch(...)` would silently exit (code 13) during the first backoff. Set true for fire-and-forget
   * calls that must never delay exit.
   */
  unrefBackoff?: boolean;
  /**
   * Bounds on reading the body of a response the caller never sees (a retried 503), which lets its connection be
   * reused: at most `maxBytes` (default 64 KiB) for at most `timeout` (default 1 s); past either, the connection is
   * closed instead. A drain still going when the call ends is cancelled.
   */
  drain?: { maxBytes?: number; timeout?: Duration };
}

/** A RetryPolicy built from a config given as the client's `policy`: its problems are named under `policy.`. */
function policyFrom(config: RetryPolicyConfig): RetryPolicy {
  try {
    return new RetryPolicy(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.issues.map((issue) => ({ path: joinPath('policy', issue.path), message: issue.message })),
    );
  }
}

/** Per-call options objects already checked (held weakly: a constant options object is checked once). */
const checkedOptions = new WeakSet<object>();

/** For a driver that checked its per-call options itself (execute: its own keys): prepare() does not check them again. */
export function markOptionsChecked(options: object): void {
  checkedOptions.add(options);
}

/** Default bounds on draining a discarded response body. */
export const DEFAULT_DRAIN_MAX_BYTES = 64 * 1024;
export const DEFAULT_DRAIN_TIMEOUT_MS = 1000;

/** What a driver knows about the request it is about to send. */
export interface CallRequest {
  /** Upper-case method. */
  readonly method: string;
  readonly url: string;
  readonly origin: string;
  readonly hasIdempotencyKey: boolean;
  readonly bodyReplayable: boolean;
  readonly options: SeawallRequestOptions | undefined;
  /** The caller's AbortSignal, when the driver has one (fetch). */
  readonly signal: AbortSignal | undefined;
}

/** A call ready to start: its traits, the headers to add to every attempt, the inbound request's signal. */
export interface PreparedCall {
  readonly traits: RequestTraits;
  readonly extraHeaders: Record<string, string> | undefined;
  readonly contextSignal: AbortSignal | undefined;
  /** Send Seawall's own headers (deadline, attempt number) with each attempt. */
  readonly propagate: boolean;
  /** Believe the upstream's error claims (hop.ts responseOutcome). */
  readonly trustClaims: boolean;
  /** The inbound request this call is made for (told how to mark a relayed error when the call fails), if any. */
  readonly context: SeawallContext | undefined;
}

/** A driver's resolved settings; turns a request into the policy's traits. */
export class ClientSettings {
  readonly policy: RetryPolicy;
  readonly oneLayer: boolean;
  readonly idempotencyKeys: boolean;
  readonly rejectOnGiveUp: boolean;
  readonly bufferResponse: boolean;
  readonly retriesDisabled: boolean;
  readonly unrefBackoff: boolean;
  readonly propagate: boolean;
  /** The client's explicit `trustClaims`, or undefined to follow each call's `propagate`. */
  readonly trustClaims: boolean | undefined;
  readonly drainMaxBytes: number;
  readonly drainTimeoutMs: number;
  /** Endpoints, balancer, outlier detection, breakers and limits between the retry loop and the wire; null: none. */
  readonly upstreams: Upstreams | null;
  /** onRetry / onGiveUp (events.ts). */
  readonly hooks: ClientHooks;
  private readonly reads: CallOverrides | undefined;
  private readonly writes: CallOverrides | undefined;
  private readonly upstream: string | undefined;
  private readonly compiled = new WeakMap<readonly RetryCondition[], RetryOnSet>();

  /** `own`: the driver's own option key, checked by the driver (createFetch's `fetch`, retryInterceptor's `pool`). */
  constructor(options: SeawallClientOptions, own: DriverKey | null = null, ownIssues: readonly ConfigIssue[] = []) {
    const issues = [...clientOptionIssues(options, own), ...ownIssues];
    if (issues.length > 0) throw new ConfigError(issues);
    const policy = options.policy;
    // A RetryPolicy (or one from another copy of the package), else its config: built here, ConfigError if invalid.
    this.policy =
      policy instanceof RetryPolicy || typeof (policy as RetryPolicy).start === 'function'
        ? (policy as RetryPolicy)
        : policyFrom(policy as RetryPolicyConfig);
    this.oneLayer = options.oneLayer ?? true;
    this.idempotencyKeys = options.idempotencyKeys ?? false;
    this.rejectOnGiveUp = options.rejectOnGiveUp ?? false;
    this.bufferResponse = options.bufferResponse ?? false;
    // The kill switch is read once, at start (reading process.env on every call is slow and surprising).
    this.retriesDisabled = options.retriesDisabled ?? killSwitchSet(options.env ?? process.env);
    this.unrefBackoff = options.unrefBackoff ?? false;
    this.propagate = options.propagate ?? true;
    this.trustClaims = options.trustClaims;
    this.drainMaxBytes = options.drain?.maxBytes ?? DEFAULT_DRAIN_MAX_BYTES;
    this.drainTimeoutMs =
      options.drain?.timeout === undefined ? DEFAULT_DRAIN_TIMEOUT_MS : parseDuration(options.drain.timeout);
    this.reads = options.reads;
    this.writes = options.writes;
    this.upstream = options.upstream;
    for (const defaults of [this.reads, this.writes]) if (defaults?.retryOn) this.retryOnSet(defaults.retryOn);
    const hooks: Record<string, unknown> = {};
    for (const name of HOOK_NAMES) if (options[name] !== undefined) hooks[name] = options[name];
    this.hooks = hooks as ClientHooks;
    this.upstreams = Upstreams.from(options, options.upstream, new GuardEvents(this.hooks));
  }

  /** Compiles a retry-condition list once per list object. */
  private retryOnSet(list: readonly RetryCondition[]): RetryOnSet {
    let set = this.compiled.get(list);
    if (set === undefined) {
      set = compileRetryConditions(list, 'seawall.retryOn');
      this.compiled.set(list, set);
    }
    return set;
  }

  /**
   * The traits of one call. Its deadline is the earliest of the call's own option, the inbound request's (from
   * AsyncLocalStorage) and the policy's patience: the policy takes the minimum, so a deadline only shrinks down a chain.
   */
  prepare(request: CallRequest, nowMs: number): PreparedCall {
    const o = request.options;
    // NaN, strings, negatives, unknown keys: a ConfigError, at once. An options object reused across calls (a
    // constant) is checked once; the policy checks the numeric traits it gets on every call anyway.
    if (o !== undefined && !checkedOptions.has(o)) {
      checkRequestOptions(o);
      checkedOptions.add(o);
    }
    const context = currentContext();
    const idempotent = o?.idempotent ?? isIdempotentMethod(request.method);
    const defaults = idempotent ? this.reads : this.writes;
    // The kill switch is configuration (read once); the one-layer rule is the policy's decision (traits below).
    const maxAttempts = this.retriesDisabled ? 1 : (o?.maxAttempts ?? defaults?.maxAttempts);
    const retryOn = o?.retryOn ?? defaults?.retryOn;
    const perTryTimeout = o?.perTryTimeout ?? defaults?.perTryTimeout;
    let deadlineMs: number | undefined;
    if (o?.deadlineMs !== undefined) deadlineMs = o.deadlineMs;
    if (o?.timeout !== undefined) {
      const byTimeout = nowMs + parseDuration(o.timeout, 'seawall.timeout');
      deadlineMs = deadlineMs === undefined ? byTimeout : Math.min(deadlineMs, byTimeout);
    }
    let hasIdempotencyKey = request.hasIdempotencyKey;
    let extraHeaders: Record<string, string> | undefined;
    if (o?.idempotencyKey !== undefined) {
      extraHeaders = { [IDEMPOTENCY_KEY_HEADER]: o.idempotencyKey };
      hasIdempotencyKey = true;
    } else if (!hasIdempotencyKey && !idempotent && this.idempotencyKeys) {
      extraHeaders = { [IDEMPOTENCY_KEY_HEADER]: randomUUID() };
      hasIdempotencyKey = true;
    }
    const propagate = o?.propagate ?? this.propagate;
    return {
      // The inbound request's deadline and hop marker reach the policy as `context` (RetryPolicy.start's inbound).
      traits: {
        method: request.method,
        idempotent, // resolved here already: the policy need not look at the method again
        hasIdempotencyKey,
        bodyReplayable: request.bodyReplayable,
        deadlineMs,
        perTryTimeoutMs:
          perTryTimeout === undefined ? undefined : parseDuration(perTryTimeout, 'seawall.perTryTimeout'),
        upstream: o?.upstream ?? this.upstream ?? request.origin,
        maxAttempts,
        oneLayer: o?.oneLayer ?? this.oneLayer,
        retryOn: retryOn === undefined ? undefined : this.retryOnSet(retryOn),
      },
      extraHeaders,
      contextSignal: context?.signal,
      propagate,
      // @ko http-trust-claims
      trustClaims: this.trustClaims ?? propagate,
      context,
    };
  }
}
