// Hostile and broken mesh input: every mistake is a clear line with its path, never a crash.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENTS, MAX_FILE_BYTES } from './bounds.js';
import { MeshError } from './errors.js';
import { readMeshFile, readMeshText } from './import.js';
import { validateIstioDocument } from './istio/models.js';

async function problems(text: string): Promise<string[]> {
  try {
    await readMeshText(text, 'in.yaml');
  } catch (error) {
    if (error instanceof MeshError) return [...error.problems];
    throw error;
  }
  throw new Error('no error');
}

const route = (policy: string) => `virtual_hosts:
  - name: b
    domains: [b]
    routes:
      - match: { prefix: / }
        route:
          cluster: b
          retry_policy: ${policy}
`;

const vs = (retries: string) => `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: { name: b }
spec:
  hosts: [b]
  http:
    - route: [{ destination: { host: b } }]
      retries: ${retries}
`;

describe('hostile mesh input', () => {
  it('reports malformed YAML with line and column', async () => {
    const lines = await problems('virtual_hosts: [\n  - a');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^in\.yaml: line \d+, column \d+: /);
  });

  it('refuses duplicate keys', async () => {
    expect((await problems('name: a\nname: b\nconnect_timeout: 1s\n'))[0]).toMatch(
      /in\.yaml: line 2, column 1: Map keys must be unique/,
    );
  });

  it('names the document that is neither Envoy nor Kubernetes', async () => {
    expect(await problems('hello: world\n')).toEqual([expect.stringContaining('document 1: neither an Envoy config')]);
  });

  it('ignores Kubernetes kinds outside networking.istio.io, and refuses an unknown kind inside it', async () => {
    const text = `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\n---\napiVersion: networking.istio.io/v1\nkind: VirtualSevice\nmetadata: { name: x }\n`;
    expect(await problems(text)).toEqual([
      'in.yaml: document 2: kind "VirtualSevice" is not a networking.istio.io/v1 kind Seawall reads (VirtualService, DestinationRule, Sidecar)',
    ]);
  });

  it('names an unknown Envoy field with its path and a suggestion', async () => {
    expect(await problems(route('{ retry_on: 5xx, num_retires: 3 }'))).toEqual([
      'in.yaml: document 1.virtual_hosts[0].routes[0].route.retry_policy.num_retires: unknown field; did you mean num_retries?',
    ]);
  });

  it.each([
    ['a string where a number belongs', '{ retry_on: 5xx, num_retries: "3" }', 'num_retries: must be a whole number'],
    [
      'NaN',
      '{ retry_on: 5xx, num_retries: .nan }',
      'num_retries: must be a whole number from 0 to 4294967295, got NaN',
    ],
    ['a negative count', '{ retry_on: 5xx, num_retries: -1 }', 'num_retries: must be a whole number'],
    ['an absurd count', '{ retry_on: 5xx, num_retries: 1e12 }', 'num_retries: must be a whole number'],
    [
      'a duration as a number',
      '{ retry_on: 5xx, per_try_timeout: 1 }',
      'per_try_timeout: must be a duration string such as "0.25s"',
    ],
    [
      'a Go-style duration in Envoy',
      '{ retry_on: 5xx, per_try_timeout: 250ms }',
      'per_try_timeout: must be a duration such as "0.25s"',
    ],
    [
      'a back-off without its required base',
      '{ retry_on: 5xx, retry_back_off: { max_interval: 1s } }',
      'retry_back_off.base_interval:',
    ],
  ])('explains %s', async (_, policy, message) => {
    const lines = await problems(route(policy));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });

  it('clamps an absurd but valid retry count and says so', async () => {
    const read = await readMeshText(route('{ retry_on: 5xx, num_retries: 4294967295 }'), 'in.yaml');
    expect(read.edges[0]?.retry?.maxAttempts).toBe(100);
    expect(read.warnings).toContainEqual(expect.objectContaining({ kind: 'changed', field: 'maxAttempts' }));
  });

  it('validates Istio documents with the strict schema, and with the published models where they are installed', async () => {
    // The models are an optional peer, not a dev dependency (3.x declares Node >= 22): CI runs without them, and
    // src/mesh/istio/schema.published.test.ts checks the strict schema against what they say about every field export writes.
    const modelsInstalled = (await validateIstioDocument('v1', 'VirtualService', {})) !== null;
    expect(await problems(vs('{ attempts: "three" }'))).toEqual([
      ...(modelsInstalled
        ? ['in.yaml: document 1 (VirtualService b): spec.http[0].retries.attempts: must be integer']
        : []),
      expect.stringContaining('spec.http[0].retries.attempts: must be a whole number'),
    ]);
    expect(await problems(vs('{ attempts: 2, perTryTimout: 1s }'))).toEqual([
      'in.yaml: document 1 (VirtualService b): spec.http[0].retries.perTryTimout: unknown field; did you mean perTryTimeout?',
    ]);
    expect(await problems(vs('{ attempts: 2, perTryTimeout: 1 s }'))).toEqual([
      expect.stringContaining('spec.http[0].retries.perTryTimeout: must be a duration such as "250ms" or "1s"'),
    ]);
  });

  it('refuses a DestinationRule whose limit is not a number', async () => {
    const text = `apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: { name: b }\nspec:\n  host: b\n  trafficPolicy:\n    connectionPool: { tcp: { maxConnections: many } }\n`;
    const lines = await problems(text);
    expect(lines.some((l) => l.includes('spec.trafficPolicy.connectionPool.tcp.maxConnections'))).toBe(true);
  });

  it('refuses an empty file, and a file with nothing Seawall reads', async () => {
    expect(await problems('')).toEqual(['in.yaml: no YAML document']);
    expect(await problems('apiVersion: v1\nkind: Service\nmetadata: { name: x }\n')).toEqual([
      expect.stringContaining('no route, cluster'),
    ]);
  });

  it('bounds the number of documents and the file size', async () => {
    expect((await problems('a: 1\n---\n'.repeat(MAX_DOCUMENTS + 1)))[0]).toContain('YAML documents is more than');
    const dir = mkdtempSync(join(tmpdir(), 'seawall-mesh-'));
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(MAX_FILE_BYTES)}\n`);
    await expect(readMeshFile(big)).rejects.toThrow(
      /big\.yaml: 4194307 bytes is more than the 4 MB a mesh file may be/,
    );
  });

  it('limits alias expansion (a billion laughs is an error, not a hang)', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    const lines = await problems(bomb);
    expect(lines[0]).toMatch(/document 1: .*alias/i);
  });

  it('reports a host that is no service name, and maps it with --map', async () => {
    const text = route('{ retry_on: 5xx }').replace('cluster: b', 'cluster: 10.0.0.7');
    expect(await problems(text)).toEqual([
      expect.stringMatching(/hosts not mapped to a service \(use --map HOST=SERVICE\): 10\.0\.0\.7$/),
    ]);
    const mapped = await readMeshText(text, 'in.yaml', ['10.0.0.7=member-api']);
    expect(mapped.edges[0]?.to).toBe('member-api');
    await expect(readMeshText(text, 'in.yaml', ['nonsense'])).rejects.toThrow(/must be HOST=SERVICE/);
  });
});
