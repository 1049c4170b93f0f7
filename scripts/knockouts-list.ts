// The mechanisms the suite claims to test, each with the one-line change that removes it and the tests that must catch it.

/** One mechanism switched off: `find` (which must occur exactly once in `file`) becomes `replace`. */
export interface Knockout {
  id: string;
  /** What the change removes, in a user's words. */
  mechanism: string;
  file: string;
  find: string;
  replace: string;
  /** Test files that must turn red with the change in place (run alone: one layer must not hide another's bug). */
  tests: string[];
}

import { BREAKER_KNOCKOUTS } from './knockouts-list-breakers.js';
import { CLI_KNOCKOUTS } from './knockouts-list-cli.js';
import { DOCS_KNOCKOUTS } from './knockouts-list-docs.js';
import { DRIVER_KNOCKOUTS } from './knockouts-list-drivers.js';
import { LAB_KNOCKOUTS } from './knockouts-list-lab.js';
import { REPORT_KNOCKOUTS } from './knockouts-list-report.js';
import { SURFACE_KNOCKOUTS } from './knockouts-list-surface.js';

const SHED = 'src/policy/shed.ts';
const RETRY = 'src/policy/retry-call.ts';
const RETRY_POLICY = 'src/policy/retry.ts';
const PER_TRY_CAP = 'return deadlineMs === null ? perTryMs : Math.min(perTryMs, deadlineMs - nowMs);';
const FLOOR = 'if (hint.delayMs > waitMs) waitMs = hint.delayMs;';

export const KNOCKOUTS: Knockout[] = [
  {
    id: 'shed-drop-at-dequeue',
    mechanism: 'queued work whose deadline passed while waiting is answered 504 instead of run',
    file: SHED,
    find: 'if (cfg.dropExpired && deadlinePassed(deadlineMs, nowMs)) {',
    replace: 'if (false) {',
    tests: ['src/policy/shed.property.test.ts'],
  },
  {
    id: 'shed-drop-on-arrival',
    mechanism: 'work that arrives already expired is answered 504 at once',
    file: SHED,
    find: 'if (cfg.dropExpired && deadlinePassed(deadline, nowMs)) {',
    replace: 'if (false) {',
    tests: ['src/policy/shed.property.test.ts'],
  },
  {
    id: 'shed-queue-limit-off-by-one',
    mechanism: 'the queue holds at most queueLimit requests (an off-by-one lets one more wait)',
    file: SHED,
    find: 'if (waiting.size >= cfg.queueLimit) {',
    replace: 'if (waiting.size > cfg.queueLimit) {',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'shed-no-overtaking',
    mechanism: 'an arrival never takes a free worker ahead of requests already waiting',
    file: SHED,
    find: 'if (this.runningNow < cfg.workers && waiting.size === 0) {',
    replace: 'if (this.runningNow < cfg.workers) {',
    tests: ['src/policy/shed.property.test.ts'],
  },
  {
    id: 'shed-adaptive-lifo',
    mechanism: 'adaptive LIFO serves the newest request once the queue is stale',
    file: SHED,
    find: 'slot = waiting.tail;',
    replace: 'slot = oldest;',
    tests: ['src/policy/shed.property.test.ts'],
  },
  {
    id: 'retry-per-try-cap (policy)',
    mechanism: 'the per-try timeout is capped at the time left before the deadline',
    file: RETRY,
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-per-try-cap (simulator)',
    mechanism: 'the same cap, seen through the simulator alone',
    file: RETRY,
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['src/sim/model/shared-policy.test.ts'],
  },
  {
    id: 'retry-per-try-cap (HTTP)',
    mechanism: 'the same cap, seen through the fetch and undici drivers on loopback',
    file: RETRY,
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['test/http/fetch.test.ts', 'test/http/undici.test.ts', 'test/http/propagate.test.ts'],
  },
  {
    id: 'retry-after-floor (policy)',
    mechanism: "a server's Retry-After is a floor on the jittered wait",
    file: RETRY,
    find: FLOOR,
    replace: 'if (hint.delayMs > waitMs) waitMs = waitMs;',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-after-floor (simulator)',
    mechanism: 'the same floor, seen through the simulator alone',
    file: RETRY,
    find: FLOOR,
    replace: 'if (hint.delayMs > waitMs) waitMs = waitMs;',
    tests: ['src/sim/model/shared-policy.test.ts'],
  },
  {
    id: 'retry-pushback-exact',
    mechanism: 'grpc-retry-pushback-ms sets the wait exactly (gRPC A6)',
    file: RETRY,
    find: 'waitMs = pushbackMs;',
    replace: 'waitMs = 0;',
    tests: ['src/policy/retry-edges.test.ts', 'src/policy/hop-and-hints.test.ts'],
  },
  {
    id: 'retry-max-retry-after',
    mechanism: 'a server asking for a longer wait than maxRetryAfter is not retried',
    file: RETRY,
    find: "if (hint.delayMs > config.maxRetryAfterMs) return this.stop('server-pushback');",
    replace: '',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-max-attempts',
    mechanism: 'a call makes at most maxAttempts attempts',
    file: RETRY,
    find: 'if (this.attempts >= this.maxAttempts) {',
    replace: 'if (false) {',
    tests: ['src/policy/retry.test.ts'],
  },
  {
    id: 'retry-deadline-would-pass',
    mechanism: 'no retry is scheduled whose wait reaches the deadline',
    file: RETRY,
    find: 'if (this.deadlineMs !== null && deadlinePassed(this.deadlineMs, nowMs + waitMs))',
    replace: 'if (false)',
    tests: ['src/policy/retry.test.ts'],
  },
  {
    id: 'retry-deadline-would-pass (HTTP)',
    mechanism: 'the same rule, seen through the HTTP client against hints below maxRetryAfter',
    file: RETRY,
    find: 'if (this.deadlineMs !== null && deadlinePassed(this.deadlineMs, nowMs + waitMs))',
    replace: 'if (false)',
    tests: ['test/http/hardening-client.test.ts'],
  },
  {
    id: 'retry-one-layer',
    mechanism: 'inside a request from another Seawall hop, a call makes one attempt (retries at one layer)',
    file: RETRY,
    find: '  return fromSeawallHop && oneLayer !== false && !ownership;',
    replace: '  return false;',
    tests: ['src/policy/retry-one-layer.test.ts'],
  },
  {
    id: 'deadline-propagation (policy)',
    mechanism: 'every attempt carries the remaining deadline downstream (grpc-timeout)',
    file: 'src/policy/hop.ts',
    find: 'headers[GRPC_TIMEOUT_HEADER] = encodeGrpcTimeout(Math.max(0, deadlineMs - nowMs));',
    replace: '',
    tests: ['src/policy/retry.test.ts'],
  },
  {
    id: 'token-bucket-threshold',
    mechanism: 'gRPC A6: a retry is allowed only while tokens > maxTokens / 2 (equal is denied)',
    file: 'src/policy/budget.ts',
    find: 'return this.milliTokens * 2 > this.maxMilli;',
    replace: 'return this.milliTokens * 2 >= this.maxMilli;',
    tests: ['src/policy/budget.test.ts'],
  },
  {
    id: 'percent-budget',
    mechanism: 'Envoy budget: at most max(percent × active, minConcurrency) retries in flight',
    file: 'src/policy/budget.ts',
    find: 'if (this.retries >= this.allowedRetries()) return false;',
    replace: '',
    tests: ['src/policy/budget.test.ts'],
  },
  {
    id: 'full-jitter',
    mechanism: 'full jitter draws the wait uniformly below the exponential ceiling',
    file: 'src/policy/backoff.ts',
    find: 'return r * ceilingMs(b.baseMs, b.capMs, b.multiplier, n);',
    replace: 'return ceilingMs(b.baseMs, b.capMs, b.multiplier, n);',
    tests: ['src/policy/backoff.test.ts'],
  },
  {
    id: 'unsafe-500-not-replayed',
    mechanism: 'a 500 is replayed only when the request is idempotent or carries an idempotency key',
    file: 'src/policy/classify.ts',
    find: 'if (!isReplaySafeStatus(status) && !safety.replaySafe) return UNSAFE;',
    replace: '',
    tests: ['src/policy/classify.test.ts'],
  },
  {
    id: 'budget-lru-refresh',
    mechanism: 'a per-upstream budget in use is kept, the least recently used one is forgotten (not the oldest)',
    file: RETRY_POLICY,
    find: 'budgets.delete(upstream); // most recently used goes last',
    replace: '// (knocked out) most recently used goes last',
    tests: ['src/policy/retry-budget.test.ts'],
  },
  {
    id: 'sim-event-order',
    mechanism: 'simulator events at the same time fire in the order they were scheduled',
    file: 'src/sim/heap.ts',
    find: 'if (pt < timeMs || (pt === timeMs && (seqs[slots[parent] as number] as number) < seq)) break;',
    replace: 'if (pt < timeMs || pt === timeMs) break;',
    tests: ['src/sim/engine.test.ts'],
  },
  {
    id: 'sim-token-bucket',
    mechanism: 'the token bucket, seen through the simulator alone',
    file: 'src/policy/budget.ts',
    find: 'acquireRetry(): boolean {\n    return this.allowRetry();',
    replace: 'acquireRetry(): boolean {\n    return true;',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'sim-cancellation',
    mechanism: "a timed-out attempt is taken out of the simulated callee's queue",
    file: 'src/sim/model/caller.ts',
    find: 'if (world.cancellation) cancelAttempt(world, attempt);',
    replace: '',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'sim-deadline-propagation',
    mechanism: 'a simulated attempt carries its deadline to the callee, which drops it once expired',
    file: 'src/sim/model/caller.ts',
    find: 'sentDeadlineMs(retry.deadlineMs, edge.propagate),',
    replace: 'null,',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'server-cancel-queued',
    mechanism: 'a queued request whose client went away leaves the queue (HTTP middleware)',
    file: 'src/http/server-core.ts',
    find: 'this.shedder.cancel(request.ticket as QueueTicket<InboundRequest>);',
    replace: '',
    tests: ['test/http/server.test.ts'],
  },
  {
    id: 'ownership-unclaimed-stop',
    mechanism: 'with ownership, an error relayed unclaimed is not retried (a hop below already spent its retries)',
    file: RETRY,
    find: "if (config.ownership && !ownershipDecision(this.lastClaim, true).retry) return this.stop('unclaimed-error');",
    replace:
      "if (false && config.ownership && !ownershipDecision(this.lastClaim, true).retry) return this.stop('unclaimed-error');",
    tests: ['src/policy/retry-ownership.test.ts'],
  },
  {
    id: 'ownership-at-least-once',
    mechanism: 'a hop without retries relays a claimed error as criteria-met, so the hop above retries it once',
    file: 'src/policy/ownership.ts',
    find: 'return retriesConfigured ? RETRY_THEN_UNCLAIM : PASS_CRITERIA_MET;',
    replace: 'return retriesConfigured ? RETRY_THEN_UNCLAIM : UNCLAIMED; // (knocked out) no at-least-once flag',
    tests: ['src/policy/ownership.test.ts', 'src/policy/retry-ownership.test.ts'],
  },
  {
    id: 'ownership-replaces-one-layer',
    mechanism: 'with ownership, a call inside a Seawall hop may retry: the claims decide, not the one-layer rule',
    file: RETRY,
    find: '  return fromSeawallHop && oneLayer !== false && !ownership;',
    replace: '  return fromSeawallHop && oneLayer !== false; // (knocked out) ownership keeps the one-layer rule',
    tests: ['src/policy/retry-ownership.test.ts'],
  },
  {
    id: 'ratio-budget-window',
    mechanism: "the ratio budget forgets deposits and withdrawals older than its ttl (Finagle's sliding window)",
    file: 'src/policy/ratio-budget.ts',
    find: 'if (!(nowMs - this.slotStartMs >= SLOT_MS) || nowMs === Number.POSITIVE_INFINITY) return;',
    replace: 'return; // (knocked out) the window never moves',
    tests: ['src/policy/ratio-budget.test.ts'],
  },
  {
    id: 'ratio-budget-withdrawal',
    mechanism: 'each retry the ratio budget allows withdraws one retry from it',
    file: 'src/policy/ratio-budget.ts',
    find: 'this.slots[this.current] = (this.slots[this.current] as number) - MILLI;\n    this.sum -= MILLI;',
    replace: '// (knocked out) a retry withdraws nothing',
    tests: ['src/policy/ratio-budget.test.ts'],
  },
  {
    id: 'sim-hop-marker',
    mechanism:
      'a simulated Seawall service reads the hop marker, so its calls make one attempt (the outermost hop retries)',
    file: 'src/sim/model/records.ts',
    find: 'this.fromSeawallHop = seawall && marker;',
    replace: 'this.fromSeawallHop = false;',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-edge-without-seawall',
    mechanism: 'a scenario call marked seawall: false is made without Seawall (no hop marker, no claims read)',
    file: 'src/sim/scenario/edges.ts',
    find: "seawall = seawall && readFlag(edgeSeawall, joinKey(path, 'seawall'), problems) !== false;",
    replace: "readFlag(edgeSeawall, joinKey(path, 'seawall'), problems);",
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-relayed-unclaimed',
    mechanism: 'a simulated hop marks the error it relays as its failed call says, never as its own (claimed)',
    file: 'src/sim/model/caller.ts',
    find: 'answerClaimHeaders(status, call.retry.relayMark)',
    replace: 'answerClaimHeaders(status, null)',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-own-error-claimed',
    mechanism:
      'a simulated Seawall service claims its own errors (so a caller without retries passes the at-least-once flag up)',
    file: 'src/sim/model/world.ts',
    find: 'this.respond(request, status, request.instance.service.seawall ? answerClaimHeaders(status, null) : null);',
    replace: 'this.respond(request, status, null);',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-retry-radius',
    mechanism: 'the simulator counts each call edge that retries on behalf of a user request (retryRadius)',
    file: 'src/sim/model/caller.ts',
    find: 'world.metrics.hopRetried(radiusOf(user));',
    replace: '',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'http-relayed-marking',
    mechanism: 'the client tells the inbound request how to mark the error it relays (a relaying hop never claims)',
    file: 'src/http/client.ts',
    find: 'context.relay?.note(call.relayMark);',
    replace: '',
    tests: ['test/http/ownership.test.ts', 'test/parity/hops-parity.test.ts'],
  },
  {
    id: 'http-answer-claims',
    mechanism:
      "a handler's 5xx carries the claim headers (its own error claimed, a relayed one marked), in every adapter",
    file: 'src/http/answer-claims.ts',
    find: 'return claimEdit(answerClaimHeaders(status, relayed));',
    replace: 'return null;',
    tests: ['test/http/ownership.test.ts', 'test/http/ownership-adapters.test.ts'],
  },
  {
    id: 'http-trust-claims',
    mechanism: 'claims from an upstream outside the trust boundary (trustClaims / propagate false) are ignored',
    file: 'src/http/options.ts',
    find: 'trustClaims: this.trustClaims ?? propagate,',
    replace: 'trustClaims: true,',
    tests: ['test/http/ownership.test.ts'],
  },
  {
    id: 'hop-inbound-marker',
    mechanism:
      'a call made for a request from another Seawall hop knows it (the hop marker reaches the policy) in both drivers',
    file: RETRY,
    find: 'const fromSeawallHop = traits.fromSeawallHop === true || inbound?.fromSeawallHop === true;',
    replace: 'const fromSeawallHop = traits.fromSeawallHop === true;',
    tests: ['src/policy/hop.test.ts', 'src/sim/hops.test.ts', 'test/http/ownership.test.ts'],
  },
  {
    id: 'hop-inbound-deadline',
    mechanism: "the inbound request's deadline bounds every call made for it, in both drivers",
    file: RETRY,
    find: '      deadlineMs = deadlineMs === null ? hopDeadline : Math.min(deadlineMs, hopDeadline);',
    replace: '      deadlineMs = deadlineMs ?? null;',
    tests: ['src/policy/hop.test.ts', 'test/http/operate.test.ts', 'src/sim/hops.test.ts'],
  },
  ...BREAKER_KNOCKOUTS,
  ...DRIVER_KNOCKOUTS,
  ...LAB_KNOCKOUTS,
  ...SURFACE_KNOCKOUTS,
  ...CLI_KNOCKOUTS,
  ...REPORT_KNOCKOUTS,
  ...DOCS_KNOCKOUTS,
];
