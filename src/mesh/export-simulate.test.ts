// Export -> import -> simulate: every file export writes is one `simulate` accepts, and no guard is dropped unsaid.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMeshCommand } from '../cli/mesh.js';
import { listBuiltinScenarios, loadScenario } from '../sim/scenario/load.js';
import { exportScenario } from './export.js';
import { importRead, readMeshText } from './import.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-export-sim-'));

const cases = listBuiltinScenarios().flatMap((scenario) =>
  loadScenario(scenario).variants.flatMap((v) =>
    (['envoy', 'istio'] as const).map((format) => ({ scenario, variant: v.name, format })),
  ),
);

describe('every built-in scenario × variant × format, exported then imported, is accepted by simulate', () => {
  it('covers every built-in scenario and both formats', () => {
    expect(new Set(cases.map((c) => c.scenario))).toEqual(new Set(listBuiltinScenarios()));
    expect(cases.length).toBeGreaterThan(2 * listBuiltinScenarios().length);
  });

  it.each(cases)('$scenario [$variant] as $format', async ({ scenario, variant, format }) => {
    const exported = await exportScenario(scenario, { variant, format });
    const text = exported.files.map((f) => f.text).join('---\n');
    const read = await readMeshText(text, `${format}.yaml`);
    // Over the scenario (its traffic and faults), and standalone: both are what `mesh import` writes.
    const over = join(dir, `${scenario}.${variant}.${format}.yaml`);
    writeFileSync(over, importRead(read, `${format}.yaml`, { scenario, variant: 'mesh', outPath: over }).yaml);
    expect(loadScenario(over).variants.map((v) => v.name)).toEqual(['mesh']);
    const alone = join(dir, `${scenario}.${variant}.${format}.alone.yaml`);
    writeFileSync(alone, importRead(read, `${format}.yaml`, {}).yaml);
    expect(loadScenario(alone).variants.map((v) => v.name)).toEqual(['mesh']);
  });
});

describe("a variant's guards on a scenario without a top-level calls: block", () => {
  it("reports checkout-incident c-circuit-breaker's breaker as not exported, naming the variant, call and field", async () => {
    const result = await exportScenario('checkout-incident', { variant: 'c-circuit-breaker' });
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ kind: 'dropped', where: 'checkout-bff -> coupon-api', field: 'circuitBreaker' }),
    );
    for (const f of result.files) expect(f.text).toMatch(/checkout-bff -> coupon-api: circuitBreaker: .*not written/);
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) !== '' } };
    const command: Parameters<typeof runMeshCommand>[0] = {
      kind: 'mesh-export',
      target: 'checkout-incident',
      variant: 'c-circuit-breaker',
      format: 'both',
      out: join(dir, 'cb'),
      namespace: undefined,
    };
    const code = await runMeshCommand(command, io as unknown as Parameters<typeof runMeshCommand>[1]);
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^checkout-incident \[c-circuit-breaker\]: dropped: checkout-bff -> coupon-api: circuitBreaker: .*not written/m,
    );
  });

  it('exports limits and outlier detection a variant sets (Envoy circuit_breakers / outlier_detection, Istio connectionPool / outlierDetection)', async () => {
    const file = join(dir, 'guards.yaml');
    writeFileSync(
      file,
      'name: guards\nextends: checkout-incident\nvariants:\n  g:\n    extends: x\n  x:\n    calls:\n      checkout-bff -> coupon-api:\n        limits: { maxConnections: 7, maxPendingRequests: 3 }\n        outlierDetection: { consecutive5xx: 4, maxEjectionPercent: 50 }\n',
    );
    const result = await exportScenario(file, { variant: 'g' });
    const bff = result.files.find((f) => f.path === 'envoy/checkout-bff.yaml')?.text ?? '';
    expect(bff).toMatch(/circuit_breakers:[\s\S]*max_connections: 7/);
    expect(bff).toMatch(/outlier_detection:[\s\S]*consecutive_5xx: 4/);
    const istio = result.files.find((f) => f.path === 'istio/g.yaml')?.text ?? '';
    expect(istio).toMatch(/connectionPool:[\s\S]*maxConnections: 7/);
    expect(istio).toMatch(/outlierDetection:[\s\S]*consecutive5xxErrors: 4/);
  });
});
