// Tests for the retry_on / retryOn token mapping both ways, against the policy's own compiled meaning.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RetryCondition } from '../policy/retry/classify.js';
import { canonicalRetryOn, readMeshRetryOn, retryOnSemantics, writeMeshRetryOn } from './retry-on.js';

const read = (retryOn: string, codes: number[] = [], dialect: 'envoy' | 'istio' = 'envoy') =>
  readMeshRetryOn(retryOn, codes, 'a -> b', 'retry_on', dialect);

describe('reading Envoy and Istio retry conditions', () => {
  // Source: Envoy's router (retry_state_impl.cc): 5xx and gateway-error also retry resets, connect failures and
  // per-try timeouts.
  it.each([
    ['5xx', ['5xx', 'timeout']],
    ['gateway-error', ['reset', 'connect-failure', 'timeout', 502, 503, 504]],
    ['reset', ['reset']],
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

  it("reads Istio's numbers as status codes, and drops the ones Go does not name", () => {
    expect(read('503,429', [], 'istio').conditions).toEqual([429, 503]);
    const odd = read('499', [], 'istio');
    expect(odd.conditions).toEqual([]);
    expect(odd.warnings).toMatchObject([{ kind: 'dropped' }]);
  });

  it('maps gRPC statuses to the closest HTTP status and says so; cancelled does not map', () => {
    const r = read('unavailable,resource-exhausted,deadline-exceeded,cancelled', [], 'istio');
    expect(r.conditions).toEqual([429, 503, 504]);
    expect(r.warnings.map((w) => w.kind).sort()).toEqual(['changed', 'changed', 'changed', 'dropped']);
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

  it("writes Seawall's 5xx without timeout exactly, as status codes (Envoy's 5xx would add timeouts)", () => {
    const w = writeMeshRetryOn(['5xx'], 'a -> b', 'envoy');
    expect(w.tokens).toEqual(['reset', 'connect-failure', 'retriable-status-codes']);
    expect(w.codes).toHaveLength(100);
    expect(w.warnings).toEqual([]);
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
