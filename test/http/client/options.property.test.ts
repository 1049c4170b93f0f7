// Every option validator on 10,000 hostile configs each: a ConfigError naming keys, or a config with bounded values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientOptionIssues, requestOptionIssues } from '../../../src/driver/options-check.js';
import { resolveShedOptions } from '../../../src/http/server/options.js';
import { validateLoadShedderConfig } from '../../../src/policy/admission/shed.js';
import { ConfigError, type ConfigIssue } from '../../../src/policy/core/config-error.js';
import { MAX_DURATION_MS, tryParseDuration } from '../../../src/policy/core/duration.js';
import { validateBackoffConfig } from '../../../src/policy/retry/backoff.js';
import { validateBudgetConfig } from '../../../src/policy/retry/budget.js';
import { RetryPolicy } from '../../../src/policy/retry/retry.js';
import { validateRetryConfig } from '../../../src/policy/retry/retry-config.js';

const RUNS = { numRuns: 10_000 };

/** The values a confused user or a broken config file produce, valid ones among them. */
const junk = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1, 2, 3, 1.5, 100, 101, 1e9, -0, null, undefined, true),
  fc.constantFrom('3', '2s', '800ms', 'soon', '', '1e3', '-5ms', '24h', '25h', 'fifo', 'adaptive-lifo'),
  fc.integer({ min: -10, max: 2000 }),
  fc.double(),
  fc.string({ maxLength: 8 }),
  fc.constant({}),
  fc.constant([]),
  fc.array(fc.constantFrom(503, 'timeout', 'reset', 'nope', 700), { maxLength: 3 }),
);
const duration = fc.oneof(fc.constantFrom('50ms', '2s', '1m', 0, 800, '0.5s'), junk);

/** Objects with the validator's own keys (some misspelled) holding junk or plausible values. */
function configOf(keys: readonly string[], value: fc.Arbitrary<unknown> = junk) {
  const key = fc.oneof(
    fc.constantFrom(...keys),
    fc.constantFrom(...keys).map((k) => `${k}s`),
    fc.string({ maxLength: 6 }),
  );
  return fc.dictionary(key, value, { maxKeys: 6, size: 'max' });
}

function isBoundedIssueList(issues: readonly ConfigIssue[]): void {
  for (const issue of issues) {
    expect(typeof issue.path).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    expect(issue.message.length).toBeLessThan(400); // junk values are quoted short, never dumped whole
  }
}

describe('policy validators on hostile input (10,000 cases each)', () => {
  it('validateRetryConfig: issues or a config whose every number is finite and in range', () => {
    let valid = 0;
    const keys = ['maxAttempts', 'perTryTimeout', 'budget', 'retryOn', 'honorRetryAfter', 'maxRetryAfter', 'deadline'];
    fc.assert(
      fc.property(configOf(keys, fc.oneof(junk, duration)), (input) => {
        const result = validateRetryConfig(input);
        isBoundedIssueList(result.issues);
        const c = result.config;
        if (c === undefined) return;
        valid++;
        expect(Number.isInteger(c.maxAttempts) && c.maxAttempts >= 1 && c.maxAttempts <= 100).toBe(true);
        expect(c.perTryTimeoutMs > 0).toBe(true);
        expect(Number.isFinite(c.maxRetryAfterMs) && c.maxRetryAfterMs <= MAX_DURATION_MS).toBe(true);
        if (c.patienceMs !== null) expect(c.patienceMs > c.marginMs).toBe(true);
      }),
      RUNS,
    );
    expect(valid).toBeGreaterThan(300);
  });

  it('validateLoadShedderConfig: issues or integer workers and a bounded or infinite queue', () => {
    let valid = 0;
    const keys = ['workers', 'queueLimit', 'retryAfter', 'dropExpired', 'discipline', 'lifoAfter'];
    // Half the configs carry a valid worker count, so the rest of the keys decide.
    const withWorkers = configOf(['queueLimit', 'retryAfter', 'dropExpired'], fc.oneof(junk, duration)).map((c) => ({
      workers: 4,
      ...c,
    }));
    fc.assert(
      fc.property(fc.oneof(configOf(keys), withWorkers), (input) => {
        const issues: ConfigIssue[] = [];
        const c = validateLoadShedderConfig(input, '', issues);
        isBoundedIssueList(issues);
        if (c === undefined) return;
        valid++;
        expect(Number.isInteger(c.workers) && c.workers >= 1).toBe(true);
        expect(c.queueLimit === Number.POSITIVE_INFINITY || (Number.isInteger(c.queueLimit) && c.queueLimit >= 0)).toBe(
          true,
        );
        expect(Number.isFinite(c.retryAfterMs) && c.retryAfterMs >= 0).toBe(true);
      }),
      RUNS,
    );
    expect(valid).toBeGreaterThan(50);
  });

  it('validateBackoffConfig and validateBudgetConfig: never throw; issues or usable values', () => {
    const backoffKeys = ['kind', 'base', 'cap', 'delay', 'multiplier', 'initial', 'max'];
    const kinds = fc.constantFrom('none', 'constant', 'full-jitter', 'envoy', 'grpc', 'token-bucket', 'percent', 'x');
    fc.assert(
      fc.property(configOf(backoffKeys, fc.oneof(junk, kinds)), kinds, (input, kind) => {
        const issues: ConfigIssue[] = [];
        const backoff = validateBackoffConfig({ kind, ...input }, 'backoff', issues);
        if (backoff !== undefined) expect(issues).toEqual([]);
        const budgetIssues: ConfigIssue[] = [];
        validateBudgetConfig({ kind, ...input }, 'budget', budgetIssues);
        isBoundedIssueList([...issues, ...budgetIssues]);
      }),
      RUNS,
    );
  });

  it('tryParseDuration: a finite ms within a day, or a message', () => {
    fc.assert(
      fc.property(fc.oneof(duration, fc.string({ maxLength: 12 })), (value) => {
        const read = tryParseDuration(value);
        if (read.ok) expect(read.ms >= 0 && read.ms <= MAX_DURATION_MS).toBe(true);
        else expect(read.message.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('RetryPolicy.start: a ConfigError for bad traits, else a call with a bounded attempt cap', () => {
    const policy = new RetryPolicy({ budget: false });
    let started = 0;
    fc.assert(
      fc.property(configOf(['maxAttempts', 'deadlineMs', 'inheritedDeadlineMs', 'perTryTimeoutMs']), (traits) => {
        let call: ReturnType<RetryPolicy['start']>;
        try {
          call = policy.start(1000, traits as never);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return;
        }
        started++;
        expect(call.maxAttempts >= 1 && call.maxAttempts <= 100).toBe(true);
        call.abort(1000);
      }),
      RUNS,
    );
    expect(started).toBeGreaterThan(1000);
    expect(policy.stats().active).toBe(0);
  });
});

describe('driver validators on hostile input (10,000 cases each)', () => {
  it('requestOptionIssues: never throws, names every bad key under seawall.', () => {
    const keys = ['maxAttempts', 'retryOn', 'perTryTimeout', 'deadlineMs', 'timeout', 'idempotencyKey', 'propagate'];
    fc.assert(
      fc.property(fc.oneof(configOf(keys), junk), (input) => {
        const issues = requestOptionIssues(input);
        isBoundedIssueList(issues);
        for (const issue of issues) expect(issue.path.startsWith('seawall')).toBe(true);
        // An oracle for two keys: a validator that accepts everything fails here.
        const o = (typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {}) as Record<
          string,
          unknown
        >;
        const attempts = o.maxAttempts;
        const badAttempts =
          attempts !== undefined &&
          !(Number.isInteger(attempts) && (attempts as number) >= 1 && (attempts as number) <= 100);
        expect(issues.some((i) => i.path === 'seawall.maxAttempts')).toBe(badAttempts);
        const badPropagate = o.propagate !== undefined && typeof o.propagate !== 'boolean';
        expect(issues.some((i) => i.path === 'seawall.propagate')).toBe(badPropagate);
      }),
      RUNS,
    );
  });

  it('clientOptionIssues: never throws; a policy is always required', () => {
    const keys = ['policy', 'oneLayer', 'reads', 'writes', 'drain', 'upstream', 'telemetry', 'env', 'fetch'];
    fc.assert(
      fc.property(
        fc.oneof(configOf(keys), junk),
        fc.constantFrom('fetch' as const, 'pool' as const, null),
        (input, own) => {
          const issues = clientOptionIssues(input, own);
          isBoundedIssueList(issues);
          const policy = (input as { policy?: unknown } | null)?.policy;
          if (policy === undefined || policy === null) expect(issues.length).toBeGreaterThan(0);
          const oneLayer = (input as { oneLayer?: unknown } | null)?.oneLayer;
          const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
          expect(issues.some((i) => i.path === 'oneLayer')).toBe(
            isObject && oneLayer !== undefined && typeof oneLayer !== 'boolean',
          );
        },
      ),
      RUNS,
    );
  });

  it('resolveShedOptions: a ConfigError or a complete LoadShedder config', () => {
    let valid = 0;
    const keys = ['workers', 'queueLimit', 'retryAfter', 'maxDeadline', 'trustDeadline', 'name', 'meter'];
    fc.assert(
      fc.property(fc.oneof(configOf(keys), junk), (input) => {
        try {
          const resolved = resolveShedOptions(input);
          valid++;
          expect(Number.isInteger(resolved.shedder.workers)).toBe(true);
          expect(Number.isFinite(resolved.maxDeadlineMs)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      RUNS,
    );
    expect(valid).toBeGreaterThan(100);
  });
});
