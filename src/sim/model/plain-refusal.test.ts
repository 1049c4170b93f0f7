// A service without Seawall refuses with the standard Retry-After only (plain-refusal.ts), in the simulator and the lab.

import { describe, expect, it } from 'vitest';
import { DEADLINE_REFUSAL, queueFullRefusal } from '../../policy/hop/hop.js';
import { refusalWithoutSeawall } from './plain-refusal.js';

describe('refusalWithoutSeawall', () => {
  it("keeps a 503's Retry-After and drops Seawall's own headers (retry-after-ms, claims)", () => {
    const refusal = queueFullRefusal(1200);
    expect(Object.keys(refusal.headers).length).toBeGreaterThan(1);
    expect(refusalWithoutSeawall(refusal.headers)).toEqual({ 'retry-after': refusal.headers['retry-after'] });
  });

  it('is null for a refusal with no Retry-After, and one frozen object per refusal', () => {
    const withoutRetryAfter = Object.freeze({ 'x-seawall-claimed': '1' });
    expect(refusalWithoutSeawall(withoutRetryAfter)).toBeNull();
    const refusal = queueFullRefusal(200);
    expect(refusalWithoutSeawall(refusal.headers)).toBe(refusalWithoutSeawall(refusal.headers));
    expect(Object.isFrozen(refusalWithoutSeawall(refusal.headers))).toBe(true);
    expect(refusalWithoutSeawall(DEADLINE_REFUSAL.headers)).toEqual(
      DEADLINE_REFUSAL.headers['retry-after'] === undefined
        ? null
        : { 'retry-after': DEADLINE_REFUSAL.headers['retry-after'] },
    );
  });
});
