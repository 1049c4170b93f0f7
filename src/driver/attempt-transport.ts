// The seam between the attempt loop (client.ts CallRunner) and a driver's real I/O: what a driver must do for one attempt.

import type { AttemptPlan } from '../policy/retry/retry.js';
import type { PoolView } from '../policy/upstream/pipeline.js';

/** What a driver does with real I/O; the loop decides when. P is what a response is to the driver (e.g. a Response). */
export interface AttemptTransport<P> {
  /**
   * Sends attempt `attempt` with `headers` added, to origin `target` when given (an endpoint the balancer picked: the
   * request's path and query are kept); reports its end with `runner.settle(attempt, ...)`.
   */
  send(attempt: number, plan: AttemptPlan, headers: Record<string, string>, target: string | undefined): void;
  /** Stops attempt `attempt` (its timer fired or the call was aborted); it may still report, and will be ignored. */
  cancel(attempt: number, reason: unknown): void;
  /** The call ended with this response: hand it to the caller. */
  deliver(payload: P): void;
  /**
   * This response will not reach the caller: drain it within the client's bounds while a retry follows (so the
   * connection can be reused), or cancel it at once when the call has ended (callEnded came first).
   */
  discard(payload: P): void;
  /** The call is over (delivered, failed or aborted): stop any drain in progress; later discards cancel at once. */
  callEnded(): void;
  /** The call ended without a response for the caller. */
  fail(error: unknown): void;
  /**
   * Was attempt `attempt` provably never sent (still waiting for its connection: a hung connect or TLS handshake)?
   * Drivers that cannot tell leave it out, and a per-try timeout then counts as a timeout.
   */
  unsent?(attempt: number): boolean;
  /**
   * The driver's view of its connection pool, when it calls `runner.connected(attempt)` as the request is put on a
   * connection to be written (undici's onConnect): limits then count an attempt as pending only while no connection is
   * free for it (Envoy's max_pending_requests), and upstream_rq_total counts it only once it is sent. Drivers that
   * cannot tell leave it out: their attempts take a request slot and count as sent once admitted.
   */
  readonly pool?: PoolView;
  /** Outcomes of kind `response` carry no real status (execute's classifier verdicts): errors and events say null. */
  readonly statusless?: boolean;
}

/** An attempt with no headers to add (propagation off, no Idempotency-Key): drivers pass the caller's through as is. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
