// The mesh commands' scenario reader: it reads every block the simulator reads, in every form the simulator accepts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listBuiltinScenarios } from '../sim/scenario/load.js';
import { exportScenario } from './export.js';
import { readScenarioView } from './scenario-read.js';

function balancer(scenario: string, variant: string, from: string, to: string): unknown {
  const v = readScenarioView(scenario).variants.find((x) => x.name === variant);
  return v?.edges.find((e) => e.from === from && e.to === to)?.loadBalancer;
}

describe('readScenarioView', () => {
  it.each(listBuiltinScenarios())('reads every variant of the built-in scenario %s', (name) => {
    expect(readScenarioView(name).variants.length).toBeGreaterThan(0);
  });

  it('reads loadBalancer as the simulator does: the string shorthand, and { panicThreshold } with round-robin implied', () => {
    expect(balancer('member-api-outliers', 'one-sick-p2c', 'coupon-api', 'member-api')).toEqual({
      kind: 'p2c',
      panicThreshold: 50,
    });
    expect(balancer('member-api-outliers', 'shared-db-outlier-100-panic', 'coupon-api', 'member-api')).toEqual({
      kind: 'round-robin',
      panicThreshold: 50,
    });
  });

  it('exports the shorthand p2c as LEAST_REQUEST', async () => {
    const result = await exportScenario('member-api-outliers', { variant: 'one-sick-p2c', format: 'envoy' });
    const coupon = result.files.find((f) => f.path === 'envoy/coupon-api.yaml')?.text ?? '';
    expect(coupon).toContain('lb_policy: LEAST_REQUEST');
  });

  it('still refuses a balancer the simulator refuses, with its path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-scenario-read-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'name: bad\nextends: member-api-outliers\nvariants:\n  x:\n    calls:\n      coupon-api -> member-api: { loadBalancer: random }\n',
    );
    expect(() => readScenarioView(file)).toThrow(
      /variants\.x\.calls\.coupon-api -> member-api\.loadBalancer\.kind: must be one of round-robin, p2c/,
    );
  });
});
