// The mechanisms the suite claims to test, each with the one-line change that removes it and the tests that must catch it.

import type { Knockout } from './knockout.js';

export type { Knockout } from './knockout.js';

import { ALGORITHM_KNOCKOUTS } from './algorithms.js';
import { BREAKER_KNOCKOUTS } from './breakers.js';
import { CLI_KNOCKOUTS } from './cli.js';
import { CLI2_KNOCKOUTS } from './cli2.js';
import { DOCS_KNOCKOUTS } from './docs.js';
import { DRIVER_KNOCKOUTS } from './drivers.js';
import { ENVOY_INPUT_KNOCKOUTS } from './envoy-input.js';
import { EVENTS2_KNOCKOUTS } from './events2.js';
import { HOSTILE2_CLIENT_KNOCKOUTS } from './hostile2-client.js';
import { HOSTILE2_COMMAND_KNOCKOUTS } from './hostile2-commands.js';
import { HOSTILE2_GUARD_KNOCKOUTS } from './hostile2-guards.js';
import { HOSTILE2_SIM_KNOCKOUTS } from './hostile2-sim.js';
import { LAB_KNOCKOUTS } from './lab.js';
import { MESH_KNOCKOUTS } from './mesh.js';
import { MESH_REFUSAL_KNOCKOUTS } from './mesh-refusals.js';
import { PACKAGE_KNOCKOUTS } from './package.js';
import { PENDING_KNOCKOUTS } from './pending.js';
import { REPORT_KNOCKOUTS } from './report.js';
import { REPORT2_KNOCKOUTS } from './report2.js';
import { RETRY_LIMITS_KNOCKOUTS } from './retry-limits.js';
import { SIM_BOUNDS_KNOCKOUTS } from './sim-bounds.js';
import { SURFACE_KNOCKOUTS } from './surface.js';
import { THROTTLE_KNOCKOUTS } from './throttle.js';

const PER_TRY_CAP = 'return deadlineMs === null ? perTryMs : Math.min(perTryMs, deadlineMs - nowMs);';
const FLOOR = 'if (hint.delayMs > waitMs) waitMs = hint.delayMs;';

export const KNOCKOUTS: Knockout[] = [
  {
    id: 'shed-drop-at-dequeue',
    mechanism: 'queued work whose deadline passed while waiting is answered 504 instead of run',
    mark: 'shed-drop-at-dequeue',
    find: 'if (cfg.dropExpired && deadlinePassed(deadlineMs, nowMs)) {',
    replace: 'if (false) {',
    tests: ['src/policy/admission/shed.property.test.ts'],
  },
  {
    id: 'shed-abandon-not-started',
    mechanism: 'a queued request whose connection died before its handler started counts as cancelled, not started',
    mark: 'shed-abandon-not-started',
    find: 'this.started--;',
    replace: 'void 0;',
    tests: ['src/policy/admission/shed.test.ts'],
  },
  {
    id: 'shed-drop-on-arrival',
    mechanism: 'work that arrives already expired is answered 504 at once',
    mark: 'shed-drop-on-arrival',
    find: 'if (cfg.dropExpired && deadlinePassed(deadline, nowMs)) {',
    replace: 'if (false) {',
    tests: ['src/policy/admission/shed.property.test.ts'],
  },
  {
    id: 'shed-queue-limit-off-by-one',
    mechanism: 'the queue holds at most queueLimit requests (an off-by-one lets one more wait)',
    mark: 'shed-queue-limit-off-by-one',
    find: 'if (waiting.size >= cfg.queueLimit) {',
    replace: 'if (waiting.size > cfg.queueLimit) {',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'shed-no-overtaking',
    mechanism: 'an arrival never takes a free worker ahead of requests already waiting',
    mark: 'shed-no-overtaking',
    find: 'if (this.runningNow < cfg.workers && waiting.size === 0) {',
    replace: 'if (this.runningNow < cfg.workers) {',
    tests: ['src/policy/admission/shed.property.test.ts'],
  },
  {
    id: 'shed-adaptive-lifo',
    mechanism: 'adaptive LIFO serves the newest request once the queue is stale',
    mark: 'shed-adaptive-lifo',
    find: 'slot = waiting.tail;',
    replace: 'slot = oldest;',
    tests: ['src/policy/admission/shed.property.test.ts'],
  },
  {
    id: 'retry-per-try-cap (policy)',
    mechanism: 'the per-try timeout is capped at the time left before the deadline',
    mark: 'retry-per-try-cap',
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-per-try-cap (simulator)',
    mechanism: 'the same cap, seen through the simulator alone',
    mark: 'retry-per-try-cap',
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['src/sim/model/shared-policy.test.ts'],
  },
  {
    id: 'retry-per-try-cap (HTTP)',
    mechanism: 'the same cap, seen through the fetch and undici drivers on loopback',
    mark: 'retry-per-try-cap',
    find: PER_TRY_CAP,
    replace: 'return perTryMs;',
    tests: ['test/http/client/fetch.test.ts', 'test/http/client/undici.test.ts', 'test/http/client/propagate.test.ts'],
  },
  {
    id: 'retry-after-floor (policy)',
    mechanism: "a server's Retry-After is a floor on the jittered wait",
    mark: 'retry-after-floor',
    find: FLOOR,
    replace: 'if (hint.delayMs > waitMs) waitMs = waitMs;',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-after-floor (simulator)',
    mechanism: 'the same floor, seen through the simulator alone',
    mark: 'retry-after-floor',
    find: FLOOR,
    replace: 'if (hint.delayMs > waitMs) waitMs = waitMs;',
    tests: ['src/sim/model/shared-policy.test.ts'],
  },
  {
    id: 'retry-pushback-exact',
    mechanism: 'grpc-retry-pushback-ms sets the wait exactly (gRPC A6)',
    mark: 'retry-pushback-exact',
    find: 'waitMs = pushbackMs;',
    replace: 'waitMs = 0;',
    tests: ['src/policy/retry/retry.edges.test.ts', 'src/policy/hop-and-hints.test.ts'],
  },
  {
    id: 'retry-max-retry-after',
    mechanism: 'a server asking for a longer wait than maxRetryAfter is not retried',
    mark: 'retry-max-retry-after',
    find: "if (hint.delayMs > config.maxRetryAfterMs) return this.stop('server-pushback');",
    replace: '',
    tests: ['src/policy/hot-path.test.ts'],
  },
  {
    id: 'retry-max-attempts',
    mechanism: 'a call makes at most maxAttempts attempts',
    mark: 'retry-max-attempts',
    find: 'if (this.attempts >= this.maxAttempts) {',
    replace: 'if (false) {',
    tests: ['src/policy/retry/retry.test.ts'],
  },
  {
    id: 'retry-deadline-would-pass',
    mechanism: 'no retry is scheduled whose wait reaches the deadline',
    mark: 'retry-deadline-would-pass',
    find: 'if (this.deadlineMs !== null && deadlinePassed(this.deadlineMs, nowMs + waitMs))',
    replace: 'if (false)',
    tests: ['src/policy/retry/retry.test.ts'],
  },
  {
    id: 'retry-deadline-would-pass (HTTP)',
    mechanism: 'the same rule, seen through the HTTP client against hints below maxRetryAfter',
    mark: 'retry-deadline-would-pass',
    find: 'if (this.deadlineMs !== null && deadlinePassed(this.deadlineMs, nowMs + waitMs))',
    replace: 'if (false)',
    tests: ['test/http/client/hardening.test.ts'],
  },
  {
    id: 'retry-one-layer',
    mechanism: 'inside a request from another Seawall hop, a call makes one attempt (retries at one layer)',
    mark: 'retry-one-layer',
    find: '  return fromSeawallHop && oneLayer !== false && !ownership;',
    replace: '  return false;',
    tests: ['src/policy/retry/retry.one-layer.test.ts'],
  },
  {
    id: 'deadline-propagation (policy)',
    mechanism: 'every attempt carries the remaining deadline downstream (grpc-timeout)',
    mark: 'deadline-propagation',
    find: 'headers[GRPC_TIMEOUT_HEADER] = encodeGrpcTimeout(Math.max(0, deadlineMs - nowMs));',
    replace: '',
    tests: ['src/policy/retry/retry.test.ts'],
  },
  {
    id: 'token-bucket-threshold',
    mechanism: 'gRPC A6: a retry is allowed only while tokens > maxTokens / 2 (equal is denied)',
    mark: 'token-bucket-threshold',
    find: 'return this.milliTokens * 2 > this.maxMilli;',
    replace: 'return this.milliTokens * 2 >= this.maxMilli;',
    tests: ['src/policy/retry/budget.test.ts'],
  },
  {
    id: 'percent-budget',
    mechanism: 'Envoy budget: at most max(percent × active, minConcurrency) retries in flight',
    mark: 'percent-budget',
    find: 'if (this.retries >= this.allowedRetries()) return false;',
    replace: '',
    tests: ['src/policy/retry/budget.test.ts'],
  },
  {
    id: 'full-jitter',
    mechanism: 'full jitter draws the wait uniformly below the exponential ceiling',
    mark: 'full-jitter',
    find: 'return r * ceilingMs(b.baseMs, b.capMs, b.multiplier, n);',
    replace: 'return ceilingMs(b.baseMs, b.capMs, b.multiplier, n);',
    tests: ['src/policy/retry/backoff.test.ts'],
  },
  {
    id: 'unsafe-500-not-replayed',
    mechanism: 'a 500 is replayed only when the request is idempotent or carries an idempotency key',
    mark: 'unsafe-500-not-replayed',
    find: 'if (!isReplaySafeStatus(status) && !safety.replaySafe) return UNSAFE;',
    replace: '',
    tests: ['src/policy/retry/classify.test.ts'],
  },
  {
    id: 'budget-lru-refresh',
    mechanism: 'a per-upstream budget in use is kept, the least recently used one is forgotten (not the oldest)',
    mark: 'budget-lru-refresh',
    find: 'budgets.delete(upstream); // most recently used goes last',
    replace: '// (knocked out) most recently used goes last',
    tests: ['src/policy/retry/retry.budget.test.ts'],
  },
  {
    id: 'sim-event-order',
    mechanism: 'simulator events at the same time fire in the order they were scheduled',
    mark: 'sim-event-order',
    find: 'if (pt < timeMs || (pt === timeMs && (seqs[slots[parent] as number] as number) < seq)) break;',
    replace: 'if (pt < timeMs || pt === timeMs) break;',
    tests: ['src/sim/engine.test.ts'],
  },
  {
    id: 'sim-token-bucket',
    mechanism: 'the token bucket, seen through the simulator alone',
    mark: 'sim-token-bucket',
    find: 'acquireRetry(): boolean {\n    return this.allowRetry();',
    replace: 'acquireRetry(): boolean {\n    return true;',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'sim-cancellation',
    mechanism: "a timed-out attempt is taken out of the simulated callee's queue",
    mark: 'sim-cancellation',
    find: 'if (world.cancellation) cancelAttempt(world, attempt);',
    replace: '',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'sim-deadline-propagation',
    mechanism: 'a simulated attempt carries its deadline to the callee, which drops it once expired',
    mark: 'sim-deadline-propagation',
    find: 'sentDeadlineMs(retry.deadlineMs, edge.propagate),',
    replace: 'null,',
    tests: ['src/sim/model/mechanisms.test.ts'],
  },
  {
    id: 'server-cancel-queued',
    mechanism: 'a queued request whose client went away leaves the queue (HTTP middleware)',
    mark: 'server-cancel-queued',
    find: 'this.shedder.cancel(request.ticket as QueueTicket<InboundRequest>);',
    replace: '',
    tests: ['test/http/server/node.test.ts'],
  },
  {
    id: 'ownership-unclaimed-stop',
    mechanism: 'with ownership, an error relayed unclaimed is not retried (a hop below already spent its retries)',
    mark: 'ownership-unclaimed-stop',
    find: "if (config.ownership && !ownershipDecision(this.lastClaim, true).retry) return this.stop('unclaimed-error');",
    replace:
      "if (false && config.ownership && !ownershipDecision(this.lastClaim, true).retry) return this.stop('unclaimed-error');",
    tests: ['src/policy/retry/retry.ownership.test.ts'],
  },
  {
    id: 'ownership-at-least-once',
    mechanism: 'a hop without retries relays a claimed error as criteria-met, so the hop above retries it once',
    mark: 'ownership-at-least-once',
    find: 'return retriesConfigured ? RETRY_THEN_UNCLAIM : PASS_CRITERIA_MET;',
    replace: 'return retriesConfigured ? RETRY_THEN_UNCLAIM : UNCLAIMED; // (knocked out) no at-least-once flag',
    tests: ['src/policy/hop/ownership.test.ts', 'src/policy/retry/retry.ownership.test.ts'],
  },
  {
    id: 'ownership-replaces-one-layer',
    mechanism: 'with ownership, a call inside a Seawall hop may retry: the claims decide, not the one-layer rule',
    mark: 'retry-one-layer',
    find: '  return fromSeawallHop && oneLayer !== false && !ownership;',
    replace: '  return fromSeawallHop && oneLayer !== false; // (knocked out) ownership keeps the one-layer rule',
    tests: ['src/policy/retry/retry.ownership.test.ts'],
  },
  {
    id: 'ratio-budget-window',
    mechanism: "the ratio budget forgets deposits and withdrawals older than its ttl (Finagle's sliding window)",
    mark: 'ratio-budget-window',
    find: 'if (!(nowMs - this.slotStartMs >= SLOT_MS) || nowMs === Number.POSITIVE_INFINITY) return;',
    replace: 'return; // (knocked out) the window never moves',
    tests: ['src/policy/retry/ratio-budget.test.ts'],
  },
  {
    id: 'ratio-budget-withdrawal',
    mechanism: 'each retry the ratio budget allows withdraws one retry from it',
    mark: 'ratio-budget-withdrawal',
    find: 'this.slots[this.current] = (this.slots[this.current] as number) - this.withdrawal;\n    this.sum -= this.withdrawal;',
    replace: '// (knocked out) a retry withdraws nothing',
    tests: ['src/policy/retry/ratio-budget.test.ts'],
  },
  {
    id: 'sim-hop-marker',
    mechanism:
      'a simulated Seawall service reads the hop marker, so its calls make one attempt (the outermost hop retries)',
    mark: 'sim-hop-marker',
    find: 'this.fromSeawallHop = seawall && marker;',
    replace: 'this.fromSeawallHop = false;',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-edge-without-seawall',
    mechanism: 'a scenario call marked seawall: false is made without Seawall (no hop marker, no claims read)',
    mark: 'sim-edge-without-seawall',
    find: "seawall = seawall && readFlag(edgeSeawall, joinKey(path, 'seawall'), problems) !== false;",
    replace: "readFlag(edgeSeawall, joinKey(path, 'seawall'), problems);",
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-relayed-unclaimed',
    mechanism: 'a simulated hop marks the error it relays as its failed call says, never as its own (claimed)',
    mark: 'sim-relayed-unclaimed',
    find: 'answerClaimHeaders(status, call.retry.relayMark)',
    replace: 'answerClaimHeaders(status, null)',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-own-error-claimed',
    mechanism:
      'a simulated Seawall service claims its own errors (so a caller without retries passes the at-least-once flag up)',
    mark: 'sim-own-error-claimed',
    find: 'this.respond(request, status, request.instance.service.seawall ? answerClaimHeaders(status, null) : null);',
    replace: 'this.respond(request, status, null);',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'sim-retry-radius',
    mechanism: 'the simulator counts each call edge that retries on behalf of a user request (retryRadius)',
    mark: 'sim-retry-radius',
    find: 'world.metrics.hopRetried(radiusOf(user));',
    replace: '',
    tests: ['src/sim/hops.test.ts'],
  },
  {
    id: 'http-relayed-marking',
    mechanism: 'the client tells the inbound request how to mark the error it relays (a relaying hop never claims)',
    mark: 'http-relayed-marking',
    find: 'context.relay?.note(call.relayMark);',
    replace: '',
    tests: ['test/http/ownership.test.ts', 'test/sim/hops-parity.test.ts'],
  },
  {
    id: 'http-answer-claims',
    mechanism:
      "a handler's 5xx carries the claim headers (its own error claimed, a relayed one marked), in every adapter",
    mark: 'http-answer-claims',
    find: 'return claimEdit(answerClaimHeaders(status, relayed));',
    replace: 'return null;',
    tests: ['test/http/ownership.test.ts', 'test/http/server/ownership-adapters.test.ts'],
  },
  {
    id: 'http-trust-claims',
    mechanism: 'claims from an upstream outside the trust boundary (trustClaims / propagate false) are ignored',
    mark: 'http-trust-claims',
    find: 'trustClaims: this.trustClaims ?? propagate,',
    replace: 'trustClaims: true,',
    tests: ['test/http/ownership.test.ts'],
  },
  {
    id: 'hop-inbound-marker',
    mechanism:
      'a call made for a request from another Seawall hop knows it (the hop marker reaches the policy) in both drivers',
    mark: 'hop-inbound-marker',
    find: 'const fromSeawallHop = traits.fromSeawallHop === true || inbound?.fromSeawallHop === true;',
    replace: 'const fromSeawallHop = traits.fromSeawallHop === true;',
    tests: ['src/policy/hop/hop.test.ts', 'src/sim/hops.test.ts', 'test/http/ownership.test.ts'],
  },
  {
    id: 'hop-inbound-deadline',
    mechanism: "the inbound request's deadline bounds every call made for it, in both drivers",
    mark: 'hop-inbound-deadline',
    find: '      deadlineMs = deadlineMs === null ? hopDeadline : Math.min(deadlineMs, hopDeadline);',
    replace: '      deadlineMs = deadlineMs ?? null;',
    tests: ['src/policy/hop/hop.test.ts', 'test/http/operate.test.ts', 'src/sim/hops.test.ts'],
  },
  ...BREAKER_KNOCKOUTS,
  ...DRIVER_KNOCKOUTS,
  ...LAB_KNOCKOUTS,
  ...SURFACE_KNOCKOUTS,
  ...MESH_REFUSAL_KNOCKOUTS,
  ...CLI_KNOCKOUTS,
  ...CLI2_KNOCKOUTS,
  ...REPORT_KNOCKOUTS,
  ...REPORT2_KNOCKOUTS,
  ...DOCS_KNOCKOUTS,
  ...ENVOY_INPUT_KNOCKOUTS,
  ...MESH_KNOCKOUTS,
  ...HOSTILE2_CLIENT_KNOCKOUTS,
  ...HOSTILE2_GUARD_KNOCKOUTS,
  ...HOSTILE2_COMMAND_KNOCKOUTS,
  ...HOSTILE2_SIM_KNOCKOUTS,
  ...PACKAGE_KNOCKOUTS,
  ...PENDING_KNOCKOUTS,
  ...SIM_BOUNDS_KNOCKOUTS,
  ...EVENTS2_KNOCKOUTS,
  ...ALGORITHM_KNOCKOUTS,
  ...THROTTLE_KNOCKOUTS,
  ...RETRY_LIMITS_KNOCKOUTS,
];
