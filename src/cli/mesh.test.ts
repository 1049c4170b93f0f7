// The mesh and lint commands through runCli: outputs, files written, exit codes and error lines.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';
import type { SimulatorApi } from './simulator-api.js';

function capture() {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: {
        write: (c: string) => {
          out += c;
          return true;
        },
        isTTY: false,
      },
      stderr: {
        write: (c: string) => {
          err += c;
          return true;
        },
        isTTY: false,
      },
      env: {},
      version: '0.0.0',
      loadChartJs: () => '',
    },
    out: () => out,
    err: () => err,
  };
}

const noSim = {} as SimulatorApi<unknown>;
const run = async (argv: string[]) => {
  const c = capture();
  const code = await runCli(argv, c.io as never, noSim);
  return { code, stdout: c.out(), stderr: c.err() };
};

describe('seawall lint', () => {
  it('exits 1 on errors (bad) and 0 with warnings only (good)', async () => {
    const bad = await run(['lint', 'checkout-incident', '--variant', 'bad']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('member-api 16×');
    const good = await run(['lint', 'checkout-incident', '--variant', 'good']);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('member-api 1.1×');
  });

  it('prints one JSON document with --json', async () => {
    const r = await run(['lint', 'checkout-incident', '--variant', 'good', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ errors: 0, reports: [{ variant: 'good' }] });
  });

  it('prints problems, not a stack trace, for a broken file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'virtual_hosts: [{ name: a, domains: [a], routes: [{ match: { prefix: / }, route: { cluster: a, timeout: 5 } }] }]\n',
    );
    const r = await run(['lint', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('route.timeout: must be a duration string such as "0.25s"');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('seawall mesh', () => {
  it('imports to a file and says how to run it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    const out = join(dir, 'sub', 'mesh.yaml');
    const r = await run([
      'mesh',
      'import',
      'examples/mesh/istio-checkout.yaml',
      '--scenario',
      'checkout-incident',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('extends: checkout-incident');
    expect(r.stderr).toContain(`run it: npx seawall simulate ${out}`);
  });

  it('imports to stdout as YAML, or as JSON with --json', async () => {
    const r = await run(['mesh', 'import', 'examples/mesh/envoy-checkout.yaml']);
    expect(r.stdout).toContain('checkout-bff -> coupon-api:');
    const j = await run(['mesh', 'import', 'examples/mesh/envoy-checkout.yaml', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ out: null, unmapped: [] });
  });

  it('exports files under --out and reports what does not map on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-cli-'));
    const r = await run(['mesh', 'export', 'checkout-incident', '--variant', 'good', '--out', dir]);
    expect(r.code).toBe(0);
    for (const f of ['envoy/checkout-bff.yaml', 'envoy/coupon-api.yaml', 'envoy/member-api.yaml', 'istio/good.yaml']) {
      expect(existsSync(join(dir, f))).toBe(true);
    }
    expect(r.stderr).toContain('checkout-incident [good]: changed: checkout-bff -> coupon-api: budget:');
    expect(readFileSync(join(dir, 'istio', 'good.yaml'), 'utf8')).toContain(
      '# What the mesh cannot say as Seawall does',
    );
  });

  it('exits 1 with the known variants for an unknown one', async () => {
    const r = await run(['mesh', 'export', 'checkout-incident', '--variant', 'gud']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no variant named gud (known: bad, a-jitter');
  });
});
