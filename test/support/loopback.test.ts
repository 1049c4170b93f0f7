// One loopback helper (test/support/loopback.ts listenLoopback): no other test starts a server on an ephemeral port itself.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const HELPER = 'test/support/loopback.ts';
/** Files that only mention listen(0) as text (the docs checker's sandbox refuses a server on every interface). */
const MENTIONS = new Set(['test/docs/checkers.test.ts', 'test/support/loopback.test.ts']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : testFiles(path);
    const file = relative(root, path);
    const isTest = file.startsWith('test/') ? file.endsWith('.ts') : file.endsWith('.test.ts');
    return isTest ? [file] : [];
  });
}

describe('the loopback helper', () => {
  it('is the only test code that listens on port 0 (every test server starts through listenLoopback)', () => {
    const files = [...testFiles(join(root, 'test')), ...testFiles(join(root, 'src'))];
    expect(files).toContain(HELPER);
    const own = files.filter(
      (f) => f !== HELPER && !MENTIONS.has(f) && /\.listen\(\s*0\b/.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(own).toEqual([]);
  });
});
