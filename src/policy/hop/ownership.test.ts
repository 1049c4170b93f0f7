// Error ownership (semantics.md §6): the decision table row by row, the strict reading of claims, the headers sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLAIM_HEADER,
  type Claim,
  CRITERIA_MET_HEADER,
  combineRelayed,
  errorClaimHeaders,
  ownershipDecision,
  readClaim,
} from './ownership.js';
import type { HeaderValue } from './retry-after.js';

const CLAIMS: readonly Claim[] = ['claimed', 'criteria-met', 'unclaimed', 'absent'];

describe('ownershipDecision: the table of semantics.md §6', () => {
  it('claimed, retries configured: retries, and passes up unclaimed (its retries were spent)', () => {
    expect(ownershipDecision('claimed', true)).toEqual({ retry: true, passUp: 'unclaimed' });
  });

  it('claimed, no retries: does not retry, passes up criteria-met (the at-least-once flag)', () => {
    expect(ownershipDecision('claimed', false)).toEqual({ retry: false, passUp: 'criteria-met' });
  });

  it('criteria-met, retries configured: retries, and passes up unclaimed', () => {
    expect(ownershipDecision('criteria-met', true)).toEqual({ retry: true, passUp: 'unclaimed' });
  });

  it('criteria-met, no retries: does not retry, passes the flag on', () => {
    expect(ownershipDecision('criteria-met', false)).toEqual({ retry: false, passUp: 'criteria-met' });
  });

  it('unclaimed, with or without retries: never retries, passes up unclaimed', () => {
    expect(ownershipDecision('unclaimed', true)).toEqual({ retry: false, passUp: 'unclaimed' });
    expect(ownershipDecision('unclaimed', false)).toEqual({ retry: false, passUp: 'unclaimed' });
  });

  it('absent, retries configured: retries as the nearest caller, passes up unclaimed', () => {
    expect(ownershipDecision('absent', true)).toEqual({ retry: true, passUp: 'unclaimed' });
  });

  it('absent, no retries: does not retry, passes up unclaimed', () => {
    expect(ownershipDecision('absent', false)).toEqual({ retry: false, passUp: 'unclaimed' });
  });

  it('never retries without retries configured, and a relaying hop never claims', () => {
    for (const claim of CLAIMS) {
      expect(ownershipDecision(claim, false).retry).toBe(false);
      for (const retries of [true, false]) {
        expect(['criteria-met', 'unclaimed']).toContain(ownershipDecision(claim, retries).passUp);
        // With retries configured, whatever fails after them is unclaimed: nobody above retries it again.
        if (retries) expect(ownershipDecision(claim, retries).passUp).toBe('unclaimed');
      }
    }
  });
});

describe('readClaim: exact values only', () => {
  it('reads "1" as claimed and "0" as unclaimed', () => {
    expect(readClaim('1', undefined)).toBe('claimed');
    expect(readClaim('0', undefined)).toBe('unclaimed');
  });

  it('reads the criteria flag "1" as criteria-met, with or without an unclaimed header', () => {
    expect(readClaim('0', '1')).toBe('criteria-met');
    expect(readClaim(undefined, '1')).toBe('criteria-met');
    expect(readClaim(null, '1')).toBe('criteria-met');
  });

  it('lets a claim "1" win over the flag', () => {
    expect(readClaim('1', '1')).toBe('claimed');
  });

  it('ignores a flag other than exactly "1"', () => {
    expect(readClaim('0', '0')).toBe('unclaimed');
    expect(readClaim('0', 'true')).toBe('unclaimed');
    expect(readClaim(undefined, 'yes')).toBe('absent');
    expect(readClaim(undefined, ['1', '0'])).toBe('absent');
  });

  it('trims whitespace around a value', () => {
    expect(readClaim(' 1 ', undefined)).toBe('claimed');
    expect(readClaim('\t0', undefined)).toBe('unclaimed');
    expect(readClaim('0', ' 1 ')).toBe('criteria-met');
    expect(readClaim([' 1', ' 1'], undefined)).toBe('claimed');
  });

  it('accepts a repeated identical value', () => {
    expect(readClaim(['1', '1'], undefined)).toBe('claimed');
    expect(readClaim(['0', '0', '0'], undefined)).toBe('unclaimed');
    expect(readClaim(['0'], ['1', '1'])).toBe('criteria-met');
  });

  it('reads conflicting repeats, garbage, empty values and non-strings as absent', () => {
    const absent: HeaderValue[] = [
      ['1', '0'],
      ['0', '1'],
      'yes',
      'true',
      '01',
      '1.0',
      '2',
      '-1',
      '',
      '   ',
      [],
      [''],
      null,
      undefined,
      '1,1',
      '1 1',
    ];
    for (const claim of absent) expect(readClaim(claim, undefined), JSON.stringify(claim)).toBe('absent');
    const odd = [[1, 1], [true], [{}], [null], [undefined], ['1', 1], 1, 0, true, {}] as unknown as HeaderValue[];
    for (const claim of odd) expect(readClaim(claim, undefined), JSON.stringify(claim)).toBe('absent');
    expect(readClaim(undefined, [1] as unknown as HeaderValue)).toBe('absent');
  });

  it('reads nothing from an untrusted callee', () => {
    expect(readClaim('1', undefined, false)).toBe('absent');
    expect(readClaim('0', undefined, false)).toBe('absent');
    expect(readClaim('0', '1', false)).toBe('absent');
    expect(readClaim('1', '1', false)).toBe('absent');
    expect(readClaim('1', undefined, true)).toBe('claimed');
  });

  it('never throws and answers one of the four claims for any input (property)', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (claim, flag, trusted) => {
        const read = readClaim(claim as HeaderValue, flag as HeaderValue, trusted as boolean);
        expect(CLAIMS).toContain(read);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back exactly what errorClaimHeaders sends', () => {
    const sent = (relayed: 'criteria-met' | 'unclaimed' | null) => {
      const h = errorClaimHeaders(relayed);
      return readClaim(h[CLAIM_HEADER], h[CRITERIA_MET_HEADER]);
    };
    expect(sent(null)).toBe('claimed');
    expect(sent('criteria-met')).toBe('criteria-met');
    expect(sent('unclaimed')).toBe('unclaimed');
  });
});

describe('errorClaimHeaders', () => {
  it("claims the service's own error, and marks a relayed one unclaimed, with the flag when criteria were met", () => {
    expect(CLAIM_HEADER).toBe('x-seawall-claimed');
    expect(CRITERIA_MET_HEADER).toBe('x-seawall-retry-criteria-met');
    expect(errorClaimHeaders(null)).toEqual({ 'x-seawall-claimed': '1' });
    expect(errorClaimHeaders('unclaimed')).toEqual({ 'x-seawall-claimed': '0' });
    expect(errorClaimHeaders('criteria-met')).toEqual({
      'x-seawall-claimed': '0',
      'x-seawall-retry-criteria-met': '1',
    });
  });

  it('hands out frozen objects (shared by every answer)', () => {
    for (const relayed of [null, 'unclaimed', 'criteria-met'] as const) {
      expect(Object.isFrozen(errorClaimHeaders(relayed))).toBe(true);
    }
  });
});

describe('combineRelayed: several failed calls behind one answer', () => {
  it('unclaimed wins, in either order; criteria-met only when every mark says so; null is no mark', () => {
    expect(combineRelayed(null, null)).toBeNull();
    expect(combineRelayed(null, 'criteria-met')).toBe('criteria-met');
    expect(combineRelayed('unclaimed', null)).toBe('unclaimed');
    expect(combineRelayed('criteria-met', 'criteria-met')).toBe('criteria-met');
    expect(combineRelayed('criteria-met', 'unclaimed')).toBe('unclaimed');
    expect(combineRelayed('unclaimed', 'criteria-met')).toBe('unclaimed');
  });
});
