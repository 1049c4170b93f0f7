// The layout checker (tools/check-layout.ts): it catches each kind of violation in a synthetic tree, and the real tree
// passes it once the floors exist (issue #23's re-layout; before it, `npx tsx tools/check-layout.ts` lists what is left).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLayout, FLOORS, formatViolations, unitOf } from '../tools/check-layout.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(join(tmpdir(), 'seawall-layout-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the layout checker', () => {
  it('passes a tree whose imports all run down the floors', () => {
    const root = tree('clean', {
      'src/policy/core/types.ts': 'export type T = 1;\n',
      'src/policy/retry/retry.ts': "import type { T } from '../core/types.js';\nexport const r: T = 1;\n",
      'src/driver/loop.ts': "import { r } from '../policy/retry/retry.js';\nexport const l = r;\n",
      'src/http/client/fetch.ts': "export { l } from '../../driver/loop.js';\n",
      'src/index.ts': "export * from './http/client/fetch.js';\n",
    });
    expect(checkLayout(root)).toEqual([]);
  });

  it('reports an import that runs up a floor, and one that runs sideways, with file and line', () => {
    const root = tree('up', {
      'src/policy/core/types.ts': "// top comment\nimport { l } from '../../driver/loop.js';\nexport const t = l;\n",
      'src/driver/loop.ts': 'export const l = 1;\n',
      'src/execute/run.ts': "import { f } from '../http/get.js';\nexport const x = f;\n",
      'src/http/get.ts': 'export const f = 1;\n',
    });
    const text = formatViolations(checkLayout(root));
    expect(text).toContain('src/policy/core/types.ts:2: imports src/driver/loop.ts: runs up a floor');
    expect(text).toContain('src/execute/run.ts:1: imports src/http/get.ts: runs sideways a floor');
  });

  it('reports a two-file cycle made of type-only imports, at both ends', () => {
    const root = tree('cycle', {
      'src/policy/core/a.ts': "import type { B } from './b.js';\nexport type A = B | 1;\n",
      'src/policy/core/b.ts': "\nimport type { A } from './a.js';\nexport type B = A | 2;\n",
    });
    const found = checkLayout(root);
    expect(found.map((v) => `${v.file}:${v.line}`)).toEqual(['src/policy/core/a.ts:1', 'src/policy/core/b.ts:2']);
    expect(found[0]?.message).toContain('an import cycle of src/policy/core/a.ts -> src/policy/core/b.ts');
  });

  it('reports a longer cycle, a dynamic import() in it included', () => {
    const root = tree('ring', {
      'src/sim/a.ts': "import './b.js';\n",
      'src/sim/b.ts': "export {} from './c.js';\n",
      'src/sim/c.ts': "export const load = () => import('./a.js');\n",
    });
    expect(checkLayout(root).filter((v) => v.message.includes('cycle'))).toHaveLength(3);
  });

  it('reports a source file over 400 lines, not a test file, and one outside every floor', () => {
    const long = 'export const x = 1;\n'.repeat(401);
    const root = tree('long', { 'src/sim/big.ts': long, 'src/sim/big.test.ts': long, 'src/../src/index.ts': '' });
    expect(formatViolations(checkLayout(root))).toBe('src/sim/big.ts:401: 401 lines: over 400 (split it)');
    expect(
      formatViolations(checkLayout(root, { floors: FLOORS.filter((u) => u.dir !== 'src/sim' && u.dir !== 'src') })),
    ).toContain('src/sim/big.ts:1: sits in no floor of the table');
  });

  it('puts a file in the longest matching unit: policy/core below policy/upstream, both below driver', () => {
    expect(unitOf('src/policy/core/types.ts')?.floor).toBeLessThan(unitOf('src/policy/upstream/breaker.ts')!.floor);
    expect(unitOf('src/policy/index.ts')?.floor).toBeLessThan(unitOf('src/driver/attempt-loop.ts')!.floor);
    expect(unitOf('src/index.ts')?.dir).toBe('src');
  });
});

// Enforced on the real tree once the re-layout made the floors (src/policy/core exists).
describe.runIf(existsSync(join(repo, 'src/policy/core')))('the repository layout', () => {
  it('has no floor violation, no import cycle and no source file over 400 lines', () => {
    expect(formatViolations(checkLayout(repo))).toBe('');
  });
});
