// mesh export and the adaptive throttle: no mesh setting has its meaning (Envoy's admission_control is close), so it is reported dropped.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportScenario } from './export.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-export-throttle-'));

describe('mesh export of a call with throttle:', () => {
  it('reports it dropped, naming the call and field and the closest Envoy filter', async () => {
    const file = join(dir, 'throttle.yaml');
    writeFileSync(
      file,
      'name: t\nextends: checkout-incident\nvariants:\n  t:\n    calls:\n      checkout-bff -> coupon-api:\n        throttle: { kind: adaptive, k: 2, window: 2m }\n',
    );
    const result = await exportScenario(file, { variant: 't' });
    const warning = result.warnings.find((w) => w.field === 'throttle');
    expect(warning).toMatchObject({ kind: 'dropped', where: 'checkout-bff -> coupon-api' });
    expect(warning?.message).toMatch(/admission_control .*sr_threshold 50%/);
    for (const f of result.files) expect(f.text).toMatch(/checkout-bff -> coupon-api: throttle: .*not written/);
    for (const f of result.files)
      expect(f.text).not.toMatch(/admission_control:|envoy\.filters\.http\.admission_control/);
  });
});
