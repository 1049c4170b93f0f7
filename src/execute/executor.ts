// execute(): the HTTP drivers' attempt loop (CallRunner) for work that is not an HTTP call, fn(attempt) as its transport.

import { type AttemptTransport, CallRunner, SeawallClient } from '../driver/attempt-loop.js';
import { type CallRequest, ClientSettings, markOptionsChecked, type SeawallRequestOptions } from '../driver/options.js';
import { type ClientStats, clientStats } from '../driver/upstream/stats.js';
import type { Outcome } from '../policy/core/types.js';
import type { AttemptPlan } from '../policy/retry/retry.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { type Attempted, classifyAttempt, type ExecuteClassifier, isSuccess } from './classify.js';
import { checkExecuteOptions, clientOptionsOf, type ExecuteOptions, type ExecutorOptions } from './options.js';

/** What `fn` gets for each attempt. */
export interface AttemptContext {
  /** Fires when this attempt's time is up (per-try timeout or deadline), or the caller or inbound request aborts. */
  readonly signal: AbortSignal;
  /** 1 = the first try. */
  readonly attempt: number;
  /** The call's absolute deadline (epoch ms), or null when it has none: hand it on (a gRPC deadline, a statement_timeout). */
  readonly deadlineMs: number | null;
  /** Time this attempt may take (ms): min(perTryTimeout, time left); Infinity when neither is set. */
  readonly timeoutMs: number;
}

/** The work execute() runs: one attempt per call of `fn`. */
export type AttemptFn<T> = (context: AttemptContext) => T | PromiseLike<T>;

/** What createExecutor returns. */
export interface Executor<T = unknown> {
  /** Runs `fn` under the policy; resolves with its value, rejects with a SeawallError (or the caller's abort reason). */
  execute<R extends T>(fn: AttemptFn<R>, options?: ExecuteOptions<R>): Promise<R>;
  /** The policy's counters (the same as createFetch's stats()). */
  stats(): ClientStats;
}

const LOCAL_ERROR: Outcome = { kind: 'local-error' };

/** A success carries its value to deliver(); a failure carries nothing (the error goes to the runner). */
interface Delivery<T> {
  readonly value: T;
}

/** One execute() call: each attempt is a call of `fn` with its own AbortController. */
class ExecuteCall<T> implements AttemptTransport<Delivery<T>> {
  readonly runner: CallRunner<Delivery<T>>;
  /** Verdicts map to responses (a 503 for 'retry'): no real status for errors and events. */
  readonly statusless = true;
  private controller: AbortController | undefined;
  private attempt = 0;

  constructor(
    client: SeawallClient,
    request: CallRequest,
    private readonly fn: AttemptFn<T>,
    private readonly classify: ExecuteClassifier<T> | undefined,
    private readonly resolve: (value: T) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.runner = new CallRunner(client, request, this);
  }

  send(attempt: number, plan: AttemptPlan): void {
    const controller = new AbortController();
    this.controller = controller;
    this.attempt = attempt;
    const context: AttemptContext = {
      signal: controller.signal,
      attempt,
      deadlineMs: plan.deadlineMs,
      timeoutMs: plan.perTryTimeoutMs,
    };
    // A synchronous throw is an attempt that failed like any other (classified), not a crash of the loop.
    new Promise<T>((resolve) => resolve(this.fn(context))).then(
      (value) => this.attempted(attempt, controller.signal, { thrown: false, value }),
      (error: unknown) => this.attempted(attempt, controller.signal, { thrown: true, error }),
    );
  }

  private attempted(attempt: number, signal: AbortSignal, attempted: Attempted<T>): void {
    const runner = this.runner;
    if (!runner.isCurrent(attempt)) return; // timed out or aborted already: the policy has moved on
    let outcome: Outcome;
    try {
      outcome = classifyAttempt(attempted, this.classify, signal);
    } catch (error) {
      runner.settle(attempt, LOCAL_ERROR, undefined, error); // a classifier that throws: not retried, its error the cause
      return;
    }
    const failure = attempted.thrown ? attempted.error : attempted.value;
    if (isSuccess(outcome)) {
      runner.settle(attempt, outcome, { value: (attempted.thrown ? undefined : attempted.value) as T });
    } else {
      runner.settle(attempt, outcome, undefined, failure);
    }
  }

  cancel(attempt: number, reason: unknown): void {
    if (attempt === this.attempt) this.controller?.abort(reason);
  }

  deliver(delivery: Delivery<T>): void {
    this.resolve(delivery.value);
  }

  discard(): void {}

  callEnded(): void {}

  fail(error: unknown): void {
    this.reject(error);
  }
}

class SeawallExecutor<T> implements Executor<T> {
  private readonly client: SeawallClient;
  private readonly upstream: string;
  private readonly classify: ExecuteClassifier<T> | undefined;

  constructor(options: ExecutorOptions<T>) {
    const clientOptions = clientOptionsOf(options);
    this.client = new SeawallClient(new ClientSettings(clientOptions), false, 'execute');
    this.upstream = clientOptions.upstream as string;
    this.classify = options.classify;
  }

  execute<R extends T>(fn: AttemptFn<R>, options?: ExecuteOptions<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (typeof fn !== 'function') {
        reject(new TypeError(`seawall: execute needs a function (attempt) => work, got ${typeof fn}`));
        return;
      }
      try {
        checkExecuteOptions(options);
      } catch (error) {
        reject(error);
        return;
      }
      if (options !== undefined) markOptionsChecked(options);
      const request: CallRequest = {
        method: 'execute',
        url: this.upstream,
        origin: this.upstream,
        hasIdempotencyKey: false,
        bodyReplayable: true,
        options: options as SeawallRequestOptions | undefined,
        signal: options?.signal,
      };
      const classify = (options?.classify ?? this.classify) as ExecuteClassifier<R> | undefined;
      new ExecuteCall<R>(this.client, request, fn, classify, resolve, reject).runner.start();
    });
  }

  stats(): ClientStats {
    return clientStats(this.client.settings);
  }
}

/**
 * An executor for work that is not an HTTP call (a database query, a gRPC call, a queue publish, a child process):
 * the policy's deadline, per-try timeout (the attempt's signal), budget, backoff and stop reasons, as createFetch's.
 */
export function createExecutor<T = unknown>(options: ExecutorOptions<T>): Executor<T> {
  return new SeawallExecutor<T>(options);
}

/** One executor per policy for execute(policy, fn): the client state (warnings, stats) is the policy's. */
const executors = new WeakMap<RetryPolicy, Executor>();

/** Runs `fn` under `policy` (the budget key 'execute'); see createExecutor to name the upstream or set a classifier. */
export function execute<T>(policy: RetryPolicy, fn: AttemptFn<T>, options?: ExecuteOptions<T>): Promise<T> {
  // A RetryPolicy, or one from another copy of the package (as the HTTP clients accept).
  if (!(policy instanceof RetryPolicy) && typeof (policy as { start?: unknown } | null)?.start !== 'function') {
    return Promise.reject(new TypeError('seawall: execute(policy, fn) needs a RetryPolicy; see createExecutor'));
  }
  let executor = executors.get(policy);
  if (executor === undefined) {
    executor = createExecutor({ policy });
    executors.set(policy, executor);
  }
  return executor.execute(fn, options as ExecuteOptions);
}
