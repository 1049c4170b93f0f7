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

const SHED = 'src/policy/shed.ts';
const RETRY = 'src/policy/retry.ts';
const PER_TRY_CAP = 'return deadlineMs === null ? perTryMs : Math.min(perTryMs, deadlineMs - nowMs);';
const FLOOR = 'if (hint.delayMs > waitMs) waitMs = hint.delayMs;';

export const KNOCKOUTS: Knockout[] = [
  {
    id: 'shed-drop-at-dequeue',
    mechanism: 'queued work whose deadline passed while waiting is answered 504 instead of run',
    file: SHED,
    find: 'if (cfg.dropExpired && deadlineMs <= nowMs) {',
    replace: 'if (false) {',
    tests: ['src/policy/shed.property.test.ts'],
  },
  {
    id: 'shed-drop-on-arrival',
    mechanism: 'work that arrives already expired is answered 504 at once',
    file: SHED,
    find: 'if (cfg.dropExpired && deadline <= nowMs) {',
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
    find: "if (this.deadlineMs !== null && nowMs + waitMs >= this.deadlineMs) return this.stop('deadline-would-pass');",
    replace: '',
    tests: ['src/policy/retry.test.ts'],
  },
  {
    id: 'retry-deadline-would-pass (HTTP)',
    mechanism: 'the same rule, seen through the HTTP client against hints below maxRetryAfter',
    file: RETRY,
    find: "if (this.deadlineMs !== null && nowMs + waitMs >= this.deadlineMs) return this.stop('deadline-would-pass');",
    replace: '',
    tests: ['test/http/hardening-client.test.ts'],
  },
  {
    id: 'retry-one-layer',
    mechanism: 'inside a request from another Seawall hop, a call makes one attempt (retries at one layer)',
    file: RETRY,
    find: 'this.attemptsOverride = oneLayer ? 1 : (traits.maxAttempts ?? null);',
    replace: 'this.attemptsOverride = traits.maxAttempts ?? null;',
    tests: ['src/policy/retry-one-layer.test.ts'],
  },
  {
    id: 'deadline-propagation (policy)',
    mechanism: 'every attempt carries the remaining deadline downstream (grpc-timeout)',
    file: RETRY,
    find: "headers['grpc-timeout'] = encodeGrpcTimeout(Math.max(0, this.deadlineMs - this.nowMs));",
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
    find: 'if (status >= 500 && status !== 502 && status !== 503 && status !== 504 && !safety.replaySafe) return UNSAFE;',
    replace: '',
    tests: ['src/policy/classify.test.ts'],
  },
  {
    id: 'budget-lru-refresh',
    mechanism: 'a per-upstream budget in use is kept, the least recently used one is forgotten (not the oldest)',
    file: RETRY,
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
    find: 'const deadlineMs = edge.propagate ? retry.deadlineMs : null;',
    replace: 'const deadlineMs = null;',
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
];
