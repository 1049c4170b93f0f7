// The package's types under each moduleResolution a consumer may set: node10 (package.json's typesVersions), node16 and
// bundler (its exports). A throwaway project holds this checkout's package.json and built dist/ as node_modules/seawall.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let app: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'policy', 'index.d.ts'))) throw new Error('no dist/: run npm run build first');
  app = mkdtempSync(join(tmpdir(), 'seawall-types-'));
  const pkg = join(app, 'node_modules', 'seawall');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(ROOT, 'dist'), join(pkg, 'dist'), 'dir');
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

/** A consumer's file: each subpath's names, typed; a misspelt duration unit must not compile. */
const USER = `import { RetryPolicy } from 'seawall';
import { TokenBucket, type Duration } from 'seawall/policy';
import { parseScenario } from 'seawall/sim';
const wait: Duration = '800ms';
// @ts-expect-error a misspelt unit
const typo: Duration = '800sm';
const bucket: TokenBucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
const level: number = bucket.level();
export const used = [new RetryPolicy({ maxAttempts: 2, perTryTimeout: wait }), level, parseScenario, typo];
`;

/**
 * The settings, with the kind of file the consumer writes: under node16 a CommonJS file may not import an ES module
 * (TypeScript 5.9 reports TS1479, though Node ≥ 20.19 would load it), so node16 is checked on an .mts file; nodenext
 * lets a CommonJS file require() one, as the package's test (package.test.ts) does from user.ts.
 */
const SETTINGS = {
  node10: { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, ext: 'ts' },
  node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, ext: 'mts' },
  'nodenext (CommonJS)': {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    ext: 'cts',
  },
  bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, ext: 'ts' },
} as const;

const parsed = new Map<string, ts.SourceFile>();

function check(resolution: keyof typeof SETTINGS): string[] {
  const { module, moduleResolution, ext } = SETTINGS[resolution];
  const file = join(app, `user-${resolution.replace(/\W+/g, '-')}.${ext}`);
  writeFileSync(file, USER);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module,
    moduleResolution,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2023.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  // The lib and the package's declarations parse once for all the settings (each program took ~4 s on its own).
  host.getSourceFile = (name, version, onError, create) => {
    const key = `${name}\0${typeof version === 'object' ? `${version.languageVersion}/${version.impliedNodeFormat}` : version}`;
    const cached = parsed.get(key);
    if (cached !== undefined) return cached;
    const source = read(name, version, onError, create);
    if (source !== undefined && name !== file) parsed.set(key, source);
    return source;
  };
  const program = ts.createProgram({ rootNames: [file], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file || d.file === undefined)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
}

describe("the package's types", () => {
  it.each(Object.keys(SETTINGS) as (keyof typeof SETTINGS)[])(
    'resolve seawall, seawall/policy and seawall/sim under moduleResolution %s',
    (resolution) => {
      expect(check(resolution)).toEqual([]);
    },
    30_000,
  );
});
