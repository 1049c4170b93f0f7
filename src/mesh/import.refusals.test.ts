// Configs Envoy or Istio refuse are refused on import, with file, path and reason; fields read as the meshes read them
// (Envoy's whole milliseconds, Istio's "0 means the default").
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envoyMs } from './durations.js';
import { MeshError } from './errors.js';
import { exportScenario } from './export.js';
import { readMeshText } from './import.js';

async function problems(text: string): Promise<string[]> {
  try {
    await readMeshText(text, 'in.yaml');
  } catch (error) {
    if (error instanceof MeshError) return [...error.problems];
    throw error;
  }
  throw new Error('no error');
}

const route = (action: string) => `virtual_hosts:
  - name: b
    domains: [b]
    routes:
      - match: { prefix: / }
        route: { cluster: b, ${action} }
`;
const backOff = (b: string) => route(`retry_policy: { retry_on: 5xx, num_retries: 2, retry_back_off: ${b} }`);
const cluster = (od: string) => `name: b\nconnect_timeout: 1s\noutlier_detection: ${od}\n`;

const vs = (http: string) => `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: { name: b }
spec:
  hosts: [b]
  http:
    - route: [{ destination: { host: b } }]
      ${http}
`;
const dr = (tp: string) => `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: { name: b }
spec:
  host: b
  trafficPolicy: ${tp}
`;

describe('Envoy: what Envoy refuses at config load', () => {
  it('refuses a retry back-off whose max_interval is below its base_interval', async () => {
    expect(await problems(backOff('{ base_interval: 0.5s, max_interval: 0.1s }'))).toEqual([
      expect.stringMatching(
        /^in\.yaml: document 1\.virtual_hosts\[0\]\.routes\[0\]\.route\.retry_policy\.retry_back_off\.max_interval: 0\.1s is below base_interval 0\.5s .*Envoy refuses/,
      ),
    ]);
  });

  it('compares the back-off intervals as Envoy does: whole ms, at least 1 ms', async () => {
    // 0.3 ms and 0.9 ms are both 1 ms to Envoy: accepted, and read as 1 ms each.
    const read = await readMeshText(backOff('{ base_interval: 0.0009s, max_interval: 0.0003s }'), 'in.yaml');
    expect(read.edges[0]?.retry?.backoff).toEqual({ kind: 'envoy', base: '1ms', max: '1ms' });
  });

  it('names base_interval when a retry_back_off leaves it out', async () => {
    expect(await problems(backOff('{ max_interval: 1s }'))).toEqual([
      expect.stringMatching(/retry_back_off\.base_interval: is required: Envoy refuses a retry_back_off without/),
    ]);
  });

  it('refuses max_ejection_time below base_ejection_time, also below the 30 s default base', async () => {
    expect(await problems(cluster('{ base_ejection_time: 60s, max_ejection_time: 30s }'))).toEqual([
      expect.stringMatching(
        /^in\.yaml: document 1\.outlier_detection\.max_ejection_time: 30s is below base_ejection_time 60s/,
      ),
    ]);
    expect(await problems(cluster('{ max_ejection_time: 10s }'))).toEqual([
      expect.stringMatching(
        /outlier_detection\.max_ejection_time: 10s is below base_ejection_time 30s \(Envoy's default\)/,
      ),
    ]);
  });

  it("accepts base_ejection_time above 300 s without max_ejection_time: Envoy's max is then the base", async () => {
    const read = await readMeshText(cluster('{ base_ejection_time: 400s }'), 'in.yaml');
    expect(read.edges[0]?.outlierDetection).toMatchObject({ baseEjectionTime: '400s' });
  });
});

describe('Envoy: durations read as whole milliseconds, truncated', () => {
  it('envoyMs truncates below a millisecond', () => {
    expect(envoyMs('0.000000001s')).toBe(0);
    expect(envoyMs('0.0019s')).toBe(1);
    expect(envoyMs('1.5s')).toBe(1500);
    expect(envoyMs('86400s')).toBe(86_400_000);
  });

  it('a route timeout of 1 ns is 0 ms: no deadline; a sub-ms per_try_timeout is none', async () => {
    const read = await readMeshText(
      route('timeout: 0.000000001s, retry_policy: { retry_on: 5xx, per_try_timeout: 0.0005s }'),
      'in.yaml',
    );
    expect(read.edges[0]?.retry?.deadline).toBe(false);
    expect(read.edges[0]?.retry).not.toHaveProperty('perTryTimeout');
    const ms = await readMeshText(route('timeout: 0.0025s'), 'in.yaml');
    expect(ms.edges[0]?.retry?.deadline).toEqual({ patience: '2ms' });
  });

  it('refuses an outlier interval or ejection time Envoy reads as 0 ms (Seawall does not simulate it)', async () => {
    expect(await problems(cluster('{ interval: 0.0000001s, base_ejection_time: 0.0009s }'))).toEqual([
      'in.yaml: document 1.outlier_detection.interval: is 0 ms as Envoy reads it (whole milliseconds, truncated), which Seawall does not simulate: write at least 0.001s',
      expect.stringContaining('outlier_detection.base_ejection_time: is 0 ms as Envoy reads it'),
    ]);
  });

  it('outlier durations are whole ms too', async () => {
    const read = await readMeshText(cluster('{ interval: 1.0009s, base_ejection_time: 2.5009s }'), 'in.yaml');
    expect(read.edges[0]?.outlierDetection).toMatchObject({ interval: '1s', baseEjectionTime: '2500ms' });
  });
});

describe("Istio: what Istio's validation refuses", () => {
  it('refuses retry settings beside attempts 0 or unset (retries off)', async () => {
    expect(await problems(vs('retries: { attempts: 0, perTryTimeout: 1s }'))).toEqual([
      expect.stringMatching(
        /^in\.yaml: document 1 \(VirtualService b\): spec\.http\[0\]\.retries\.attempts: is 0, which turns retries off, yet perTryTimeout is set/,
      ),
    ]);
    expect(await problems(vs('retries: { retryOn: 5xx, retryRemoteLocalities: false }'))).toEqual([
      expect.stringMatching(/retries\.attempts: is unset \(0\), .*retryOn, retryRemoteLocalities are set/),
    ]);
    // backoff and retryIgnorePreviousHosts are not checked by Istio there.
    const off = await readMeshText(vs('retries: { backoff: 25ms, retryIgnorePreviousHosts: true }'), 'in.yaml');
    expect(off.edges[0]?.retry).toMatchObject({ maxAttempts: 1 });
  });

  it('refuses negative attempts', async () => {
    expect(await problems(vs('retries: { attempts: -1 }'))).toEqual([
      expect.stringContaining('spec.http[0].retries.attempts: must not be negative'),
    ]);
  });

  it('refuses durations under 1 ms or finer than 1 ms, in every field it checks', async () => {
    expect(await problems(vs('timeout: 0s'))).toEqual([
      expect.stringContaining('spec.http[0].timeout: must be at least 1ms'),
    ]);
    expect(await problems(vs('timeout: 1500us'))).toEqual([
      expect.stringContaining('spec.http[0].timeout: must be a whole number of milliseconds'),
    ]);
    expect(await problems(vs('retries: { attempts: 2, perTryTimeout: 500us, backoff: 1.5ms }'))).toEqual([
      expect.stringContaining('retries.perTryTimeout: must be at least 1ms'),
      expect.stringContaining('retries.backoff: must be a whole number of milliseconds'),
    ]);
    expect(
      await problems(
        dr(
          '{ outlierDetection: { interval: 0.5ms, baseEjectionTime: 1001us }, connectionPool: { tcp: { connectTimeout: 0s } } }',
        ),
      ),
    ).toEqual([
      expect.stringContaining('connectionPool.tcp.connectTimeout: must be at least 1ms'),
      expect.stringContaining('outlierDetection.interval: must be at least 1ms'),
      expect.stringContaining('outlierDetection.baseEjectionTime: must be a whole number of milliseconds'),
    ]);
    // tcp.idleTimeout under 1 ms is skipped by Istio (0s turns it off).
    await expect(
      readMeshText(dr('{ connectionPool: { tcp: { idleTimeout: 0s } } }'), 'in.yaml'),
    ).resolves.toBeDefined();
  });

  it('refuses minHealthPercent outside 0..100 and local-origin failures without the split', async () => {
    expect(await problems(dr('{ outlierDetection: { minHealthPercent: -1 } }'))).toEqual([
      expect.stringContaining('outlierDetection.minHealthPercent: must be a percentage from 0 to 100'),
    ]);
    expect(await problems(dr('{ outlierDetection: { consecutiveLocalOriginFailures: 3 } }'))).toEqual([
      expect.stringContaining(
        'outlierDetection.consecutiveLocalOriginFailures: is set but splitExternalLocalOriginErrors',
      ),
    ]);
  });

  it('refuses an empty traffic policy and an empty connection pool', async () => {
    expect(await problems(dr('{}'))).toEqual([
      expect.stringContaining('spec.trafficPolicy: must set at least one field'),
    ]);
    expect(await problems(dr('{ connectionPool: {} }'))).toEqual([
      expect.stringContaining('spec.trafficPolicy.connectionPool: must set tcp or http'),
    ]);
  });
});

describe('Istio: 0 read as Istio translates it', () => {
  it('retryBudget.minRetryConcurrency 0 is the default 3; an explicit percent 0 stays 0', async () => {
    const read = await readMeshText(
      `${dr('{ retryBudget: { percent: 0, minRetryConcurrency: 0 } }')}---\n${vs('retries: { attempts: 2 }')}`,
      'in.yaml',
    );
    expect(read.edges[0]?.limits?.retryBudget).toEqual({ percent: 0, minConcurrency: 3 });
    const five = await readMeshText(
      `${dr('{ retryBudget: { minRetryConcurrency: 5 } }')}---\n${vs('retries: { attempts: 2 }')}`,
      'in.yaml',
    );
    expect(five.edges[0]?.limits?.retryBudget).toEqual({ percent: 20, minConcurrency: 5 });
  });
});

describe('the export writes no duration the meshes would refuse or read as 0', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seawall-refusals-'));
  const file = join(dir, 'fine.yaml');
  writeFileSync(
    file,
    `name: fine\nextends: checkout-incident\nvariants:\n  fine:\n    calls:\n      checkout-bff -> coupon-api:\n        maxAttempts: 3\n        perTryTimeout: 0.5ms\n        deadline: { patience: 1.5ms }\n        backoff: { kind: envoy, base: 2.5ms, max: 30ms }\n        budget: false\n        retryOn: [5xx]\n        outlierDetection: { interval: 0.5ms, baseEjectionTime: 1.5ms, maxEjectionPercent: 50 }\n      coupon-api -> member-api: { maxAttempts: 1 }\n`,
  );

  it('Istio: whole milliseconds, at least 1 ms, each change reported; the files import again', async () => {
    const result = await exportScenario(file, { variant: 'fine', format: 'istio' });
    const text = result.files.map((f) => f.text).join('\n---\n');
    expect(text).toContain('perTryTimeout: 1ms');
    expect(text).toContain('timeout: 2ms');
    expect(text).toContain('backoff: 3ms');
    expect(text).toMatch(/interval: 1ms/);
    expect(text).toMatch(/baseEjectionTime: 2ms/);
    expect(text).not.toMatch(/\d(us|ns)\b/);
    const fields = result.warnings
      .filter((w) => w.message.startsWith('Istio takes whole milliseconds'))
      .map((w) => w.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'perTryTimeout',
        'deadline',
        'backoff',
        'outlierDetection.interval',
        'outlierDetection.baseEjectionTime',
      ]),
    );
    for (const f of result.files.filter((x) => x.path.endsWith('.yaml'))) await readMeshText(f.text, f.path);
  });

  it('Envoy: a positive duration under 1 ms is written as 1 ms, said so (Envoy would read 0: off)', async () => {
    const result = await exportScenario(file, { variant: 'fine', format: 'envoy' });
    const bff = result.files.find((f) => f.path === 'envoy/checkout-bff.yaml')?.text ?? '';
    expect(bff).toContain('per_try_timeout: 0.001s');
    expect(bff).toContain('timeout: 0.0015s');
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ kind: 'changed', where: 'checkout-bff -> coupon-api', field: 'perTryTimeout' }),
    );
    const read = await readMeshText(bff, 'envoy/checkout-bff.yaml');
    const edge = read.edges.find((e) => e.to === 'coupon-api');
    expect(edge?.retry).toMatchObject({ perTryTimeout: '1ms', deadline: { patience: '1ms' } });
  });
});
