// Tests for the retry_on / retryOn token mapping both ways, against the policy's own compiled meaning.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RetryCondition } from '../policy/retry/classify.js';
import { canonicalRetryOn, readMeshRetryOn, retryOnSemantics, writeMeshRetryOn } from './retry-on.js';

const read = (retryOn: string, codes: number[] = [], dialect: 'envoy' | 'istio' = 'envoy') =>
  readMeshRetryOn(retryOn, codes, 'a -> b', 'retry_on', dialect);

describe('reading Envoy and Istio retry conditions', () => {
  // Source: Envoy's router (source/common/router/retry_state_impl.cc, wouldRetryFromReset; a per-try timeout is
  // handed to it as a local reset): reset, 5xx and gateway-error each retry resets, connect failures and per-try
  // timeouts.
  it.each([
    ['5xx', ['5xx', 'timeout']],
    ['gateway-error', ['reset', 'connect-failure', 'timeout', 502, 503, 504]],
    ['reset', ['reset', 'connect-failure', 'timeout']],
    ['connect-failure', ['connect-failure']],
    ['retriable-4xx', [409]],
    ['refused-stream', ['reset-before-request']],
    ['reset-before-request', ['reset-before-request']],
  ])('%s means %j', (token, conditions) => {
    expect(read(token).conditions).toEqual(conditions);
  });

  it('reads retriable_status_codes only with retriable-status-codes, as Envoy does', () => {
    expect(read('retriable-status-codes', [429, 503]).conditions).toEqual([429, 503]);
    const ignored = read('connect-failure', [429]);
    expect(ignored.conditions).toEqual(['connect-failure']);
    expect(ignored.warnings[0]?.message).toContain('ignored');
  });

  it("reads Istio's numbers as status codes, and refuses the ones Go does not name, as Istio's webhook does", () => {
    expect(read('503,429', [], 'istio').conditions).toEqual([429, 503]);
    // pkg/config/validation/agent/validation.go, ValidateHTTPRetry: http.StatusText(499) is "".
    const odd = read('499', [], 'istio');
    expect(odd.problems).toEqual([expect.stringMatching(/^retry_on: "499" is not a valid retryOn policy/)]);
  });

  it('reads gRPC conditions as gRPC only: none of them retries an HTTP status, and each is reported', () => {
    const r = read('unavailable,resource-exhausted,deadline-exceeded,cancelled,internal', [], 'istio');
    expect(r.conditions).toEqual([]);
    expect(r.warnings).toHaveLength(5);
    expect(r.warnings.every((w) => w.kind === 'dropped' && /gRPC condition/.test(w.message))).toBe(true);
    expect(read('unavailable').conditions).toEqual([]);
  });

  it('refuses an unknown token with its path (Envoy would silently retry nothing)', () => {
    expect(read('5xxx').problems).toEqual([expect.stringMatching(/^retry_on: unknown retry condition "5xxx"/)]);
  });
});

describe('writing Seawall conditions for the mesh', () => {
  it('writes timeouts through gateway-error and reports what that adds', () => {
    const w = writeMeshRetryOn(['timeout', 429, 502, 503, 504], 'a -> b', 'envoy');
    expect(w.tokens).toEqual(['gateway-error', 'retriable-status-codes']);
    expect(w.codes).toEqual([429]);
    expect(w.warnings).toMatchObject([
      { kind: 'changed', field: 'retryOn', message: expect.stringContaining('resets and connect failures') },
    ]);
  });

  it('writes timeouts without 502-504 as reset, the closest exact condition (not gateway-error)', () => {
    const w = writeMeshRetryOn(['reset', 'connect-failure', 'timeout', 503], 'a -> b', 'envoy');
    expect(w.tokens).toEqual(['reset', 'retriable-status-codes']);
    expect(w.codes).toEqual([503]);
    expect(w.warnings).toEqual([]);
    const bare = writeMeshRetryOn(['timeout'], 'a -> b', 'envoy');
    expect(bare.tokens).toEqual(['reset']);
    expect(bare.warnings[0]?.message).toContain('also retries resets and connect failures');
  });

  it("writes Seawall's 5xx without timeout as 5xx and says it adds per-try timeouts (Envoy has no reset without them)", () => {
    const w = writeMeshRetryOn(['5xx'], 'a -> b', 'envoy');
    expect(w.tokens).toEqual(['5xx']);
    expect(w.codes).toEqual([]);
    expect(w.warnings).toMatchObject([{ kind: 'changed', message: expect.stringContaining('per-try timeouts') }]);
  });

  const condition = fc.oneof(
    fc.constantFrom<RetryCondition>(
      '5xx',
      'gateway-error',
      'reset',
      'reset-before-request',
      'connect-failure',
      'retriable-4xx',
      'timeout',
      '4xx',
    ),
    fc.integer({ min: 400, max: 599 }),
  );

  it('reads back the same meaning it wrote whenever it reported no change (Envoy and Istio)', () => {
    fc.assert(
      fc.property(
        fc.array(condition, { maxLength: 6 }),
        fc.constantFrom<'envoy' | 'istio'>('envoy', 'istio'),
        (conditions, dialect) => {
          const w = writeMeshRetryOn(conditions, 'a -> b', dialect);
          const text =
            dialect === 'envoy'
              ? w.tokens.join(',')
              : [...w.tokens.filter((t) => t !== 'retriable-status-codes'), ...w.codes].join(',');
          const back = readMeshRetryOn(text, dialect === 'envoy' ? w.codes : [], 'a -> b', 'retry_on', dialect);
          expect(back.problems).toEqual([]);
          const before = canonicalRetryOn(retryOnSemantics(conditions));
          if (w.warnings.length === 0) expect(back.conditions).toEqual(before);
          else {
            // A reported change only ever adds conditions (Envoy) or drops codes Istio cannot pass (Istio).
            expect(w.warnings.every((x) => x.kind === 'changed' && x.field === 'retryOn')).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('canonical lists are fixed points: equal meanings print equal', () => {
    fc.assert(
      fc.property(fc.array(condition, { maxLength: 8 }), (conditions) => {
        const once = canonicalRetryOn(retryOnSemantics(conditions));
        expect(canonicalRetryOn(retryOnSemantics(once))).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });
});
