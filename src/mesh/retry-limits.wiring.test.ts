// The rate budget, the deposit bucket and the retry breaker in a scenario: loaded, exported as dropped, linted, drawn.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topologyOf } from '../report/topology-model.js';
import { loadScenario } from '../sim/scenario/load.js';
import { exportScenario } from './export.js';
import { lintTarget } from './lint/run.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-retry-limits-'));
const file = join(dir, 'limits.yaml');
writeFileSync(
  file,
  [
    'name: limits',
    'extends: checkout-incident',
    'variants:',
    '  limits:',
    '    services:',
    '      checkout-bff: { seawall: false }',
    '      coupon-api: { seawall: false }',
    '      member-api: { seawall: false }',
    '    calls:',
    '      checkout-bff -> coupon-api:',
    '        maxAttempts: 4',
    '        budget: { kind: rate, perSecond: 20, burst: 40 }',
    "        retryBreaker: { failureRate: 0.2, window: '10s' }",
    '      coupon-api -> member-api:',
    '        maxAttempts: 4',
    '        budget: { kind: deposit-bucket, deposit: 0.1, cost: 1, maxTokens: 10, startFull: true }',
    '',
  ].join('\n'),
);

describe('the new retry limits in a scenario', () => {
  it('load through the policy validator, with the path of a bad key', () => {
    expect(loadScenario(file).variants.map((v) => v.name)).toContain('limits');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'name: b\nextends: checkout-incident\nvariants:\n  b:\n    calls:\n      checkout-bff -> coupon-api: { budget: { kind: rate, perSecond: 0 }, retryBreaker: { failureRate: 1 } }\n',
    );
    expect(() => loadScenario(bad)).toThrow(/calls\.checkout-bff -> coupon-api\.budget\.perSecond/);
    expect(() => loadScenario(bad)).toThrow(/calls\.checkout-bff -> coupon-api\.retryBreaker\.failureRate/);
  });

  it('are reported as dropped by mesh export, each with its description', async () => {
    const result = await exportScenario(file, { variant: 'limits' });
    const dropped = result.warnings.filter((w) => w.kind === 'dropped');
    expect(dropped).toContainEqual(
      expect.objectContaining({
        where: 'checkout-bff -> coupon-api',
        field: 'budget',
        message: expect.stringMatching(/^the rate budget 20\/s, burst 40 has no Envoy or Istio setting/),
      }),
    );
    expect(dropped).toContainEqual(
      expect.objectContaining({
        where: 'coupon-api -> member-api',
        field: 'budget',
        message: expect.stringMatching(/^the deposit bucket \+0\.1\/call, −1\/retry, ≤ 10 has no Envoy/),
      }),
    );
    expect(dropped).toContainEqual(
      expect.objectContaining({
        where: 'checkout-bff -> coupon-api',
        field: 'retryBreaker',
        message: expect.stringMatching(/^the retry breaker over 20 % failed in 10 s has no Envoy or Istio setting/),
      }),
    );
  });

  it("lint counts a deposit bucket as its deposit / cost share, a rate budget's worst case as every attempt", async () => {
    const [report] = await lintTarget(file, { variant: 'limits' });
    // 4 attempts at each hop; a rate budget lets all 4 through at low traffic; the bucket 1 + 0.1.
    expect(report?.amplification).toEqual({ 'checkout-bff': 1, 'coupon-api': 4, 'member-api': 4.4 });
    expect(report?.findings.filter((f) => f.rule === 'no-budget')).toEqual([]);
  });

  it('the topology labels each limit with the same description', () => {
    const variant = loadScenario(file).variants.find((v) => v.name === 'limits');
    const t = topologyOf(variant?.model as never);
    const lines = (from: string) => t.edges.find((e) => e.from === from)?.lines ?? [];
    expect(lines('checkout-bff')).toContain('rate budget 20/s, burst 40');
    expect(lines('checkout-bff')).toContain('retry breaker over 20 % failed in 10 s');
    expect(lines('coupon-api')).toContain('deposit bucket +0.1/call, −1/retry, ≤ 10');
  });
});
