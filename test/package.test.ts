// The package as a user installs it: `npm pack`'s tarball, its subpath exports, from ESM and from CommonJS.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_VALUES, ROOT_VALUES, SIM_VALUES } from './surface-names.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  engines: { node: string };
};

let work: string;
let files: string[];
/** An app with the tarball installed and its dependencies present. */
let app: string;
/** An app with the tarball installed and no dependency at all: what needs none must still load. */
let bare: string;

function install(dir: string, tarball: string, withDependencies: boolean): void {
  const target = join(dir, 'node_modules', 'seawall');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  if (withDependencies) {
    for (const name of Object.keys(pkg.dependencies)) {
      symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
    }
  }
  writeFileSync(join(dir, 'package.json'), '{ "name": "app", "private": true }\n');
}

function node(dir: string, file: string, source: string): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(join(dir, file), source);
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'seawall-pack-'));
  // --ignore-scripts: dist/ is built already (npm test builds first); `prepare` would rebuild it under other tests.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [info] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
  files = info.files.map((f) => f.path);
  const tarball = join(work, info.filename);
  app = join(work, 'app');
  bare = join(work, 'bare');
  install(app, tarball, true);
  install(bare, tarball, false);
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the compiled code, the scenarios and the docs; no source map pointing into an unshipped src/', () => {
    for (const f of ['dist/index.js', 'dist/policy/index.js', 'dist/sim/index.js', 'dist/cli/main.js']) {
      expect(files).toContain(f);
    }
    expect(files).toContain('scenarios/checkout-incident.yaml');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.test.js'))).toEqual([]);
  });

  it('ships the driver entry points as bundles: a cold import of seawall reads its entry and one shared chunk', () => {
    const shipped = join(app, 'node_modules', 'seawall', 'dist');
    const relativeImports = (file: string) =>
      [...readFileSync(join(shipped, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map(
        (m) => m[1] ?? '',
      );
    for (const entry of ['index.js', 'policy/index.js']) {
      const imports = relativeImports(entry);
      expect(imports.length, entry).toBeGreaterThan(0);
      // Only chunks: not tsc's per-module files (http/client.js, policy/retry.js, ...), which would be ~70 reads.
      expect(
        imports.filter((i) => !/^\.{1,2}\/(\.\.\/)?chunks\/chunk-[\w-]+\.js$/.test(i)),
        entry,
      ).toEqual([]);
    }
    expect(files.filter((f) => f.startsWith('dist/chunks/')).length).toBeGreaterThan(0);
  });

  it('says which Node.js it needs: the first with require() of ES modules on by default', () => {
    expect(pkg.engines.node).toBe('>=20.19');
  });

  it('loads from CommonJS with require(): the root, seawall/policy and seawall/sim', () => {
    const r = node(
      app,
      'main.cjs',
      `const seawall = require('seawall');
const policy = require('seawall/policy');
const sim = require('seawall/sim');
const p = new seawall.RetryPolicy({ maxAttempts: 2, perTryTimeout: '100ms' });
const call = p.start(1000, { method: 'GET' });
const first = call.beginAttempt(1000);
let internal = 'exported';
try { require('seawall/dist/index.js'); } catch (e) { internal = e.code; }
console.log(JSON.stringify({
  root: typeof seawall.createFetch, shed: typeof seawall.seawallHandler, attempt: first.attempt,
  samePolicy: policy.RetryPolicy === seawall.RetryPolicy, simInRoot: 'simulate' in seawall,
  simulate: typeof sim.simulate, scenario: sim.loadScenario('checkout-incident').name, internal,
}));`,
    );
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      root: 'function',
      shed: 'function',
      attempt: 1,
      samePolicy: true,
      simInRoot: false,
      simulate: 'function',
      scenario: 'checkout-incident',
      internal: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
  });

  it('loads from ES modules with import, and its types resolve per subpath', () => {
    const r = node(
      app,
      'main.mjs',
      `import { RetryPolicy, retryInterceptor } from 'seawall';
import { TokenBucket } from 'seawall/policy';
import { parseScenario } from 'seawall/sim';
const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
console.log(JSON.stringify({ policy: typeof RetryPolicy, interceptor: typeof retryInterceptor,
  level: bucket.level(), parse: typeof parseScenario }));`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ policy: 'function', interceptor: 'function', level: 10, parse: 'function' });
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/seawall/package.json'), 'utf8'));
    for (const [subpath, entry] of Object.entries(manifest.exports as Record<string, { types?: string }>)) {
      if (subpath === './package.json') continue;
      expect(files, subpath).toContain((entry.types as string).replace(/^\.\//, ''));
    }
  });

  it('exports exactly the pinned names from each entry point, to import and to require alike', () => {
    const source = (load: string) => `const out = {};
for (const entry of ['seawall', 'seawall/policy', 'seawall/sim']) out[entry] = Object.keys(${load}).sort();
console.log(JSON.stringify(out));`;
    const esm = node(app, 'names.mjs', source('await import(entry)'));
    const cjs = node(app, 'names.cjs', source('require(entry)'));
    const expected = {
      seawall: [...ROOT_VALUES].sort(),
      'seawall/policy': [...POLICY_VALUES].sort(),
      'seawall/sim': [...SIM_VALUES].sort(),
    };
    expect(esm.status, esm.stderr).toBe(0);
    expect(cjs.status, cjs.stderr).toBe(0);
    expect(JSON.parse(esm.stdout)).toEqual(expected);
    expect(JSON.parse(cjs.stdout)).toEqual(expected);
  });

  it("types a user's code against the shipped declarations, without the simulator's hot-loop twins", () => {
    writeFileSync(
      join(app, 'user.ts'),
      `import { RetryPolicy, type RetryCall, type StopReason } from 'seawall';
import { LoadShedder } from 'seawall/policy';
import { simulate } from 'seawall/sim';
const call: RetryCall = new RetryPolicy({ maxAttempts: 2 }).start(0, { method: 'GET' });
const plan = call.beginAttempt(0);
const stop: StopReason | null = 'stop' in plan ? plan.stop : null;
const shedder = new LoadShedder<string>({ workers: 1 });
shedder.admit(0, null, 'job');
// @ts-expect-error the allocation-free twins are the simulator's, not public API
call.beginAttemptMs(0);
// @ts-expect-error
call.onOutcomeMs({ kind: 'response', status: 200 }, 0);
// @ts-expect-error
shedder.offer(0, null, 'job');
// @ts-expect-error
shedder.take(0);
// @ts-expect-error
shedder.lastSlot;
export const used = [stop, simulate];
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['user.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 60_000);

  it('runs the policy core and loads the drivers with no dependency installed; undici is needed only when used', () => {
    const r = node(
      bare,
      'main.cjs',
      `const policy = require('seawall/policy');
const p = new policy.RetryPolicy({ maxAttempts: 3 });
const seawall = require('seawall');
let connector = 'built';
try { seawall.seawallConnector(); } catch (e) { connector = String(e.message).split('\\n')[0]; }
let sim = 'loaded';
try { require('seawall/sim'); } catch (e) { sim = String(e.message).split('\\n')[0]; }
console.log(JSON.stringify({ attempt: p.start(0, { method: 'GET' }).beginAttempt(0).attempt,
  handler: typeof seawall.seawallHandler, connector, sim }));`,
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { attempt: number; handler: string; connector: string; sim: string };
    expect(out.attempt).toBe(1);
    expect(out.handler).toBe('function');
    expect(out.connector).toMatch(/Cannot find module 'undici'/);
    expect(out.sim).toMatch(/Cannot find (module|package) '(yaml|zod)'/);
  });
});
