// The knock-out list (tools/test/knockouts/list.ts) stays applicable and docs/testing.md shows it as it is.
// The knock-outs themselves run with `npm run knockouts` (they edit the source, so not beside the rest of the suite).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { knockoutTable, replaceTable, TABLE_END, TABLE_START } from '../../tools/docs/knockouts-doc.js';
import { KNOCKOUTS } from '../../tools/test/knockouts/list.js';
import { applyAtMark, marksIn, scanMarks, siteOf } from '../../tools/test/knockouts/marks.js';

const root = new URL('../../', import.meta.url);
const marks = scanMarks(fileURLToPath(root));

describe('knock-outs', () => {
  it('each names a mark found exactly once, its line holds the find exactly once, and its test files exist', () => {
    const problems: string[] = [];
    for (const k of KNOCKOUTS) {
      const site = siteOf(marks, k.mark);
      if (typeof site === 'string') problems.push(`${k.id}: ${site}`);
      else {
        const changed = applyAtMark(readFileSync(new URL(site.file, root), 'utf8'), site, k.find, k.replace);
        if ('problem' in changed) problems.push(`${k.id}: ${changed.problem}`);
      }
      if (k.find === k.replace) problems.push(`${k.id}: the change changes nothing`);
      for (const test of k.tests) if (!existsSync(new URL(test, root))) problems.push(`${k.id}: no file ${test}`);
    }
    expect(problems).toEqual([]);
    expect(new Set(KNOCKOUTS.map((k) => k.id)).size).toBe(KNOCKOUTS.length);
  });

  it('every mark in the code belongs to a knock-out (no orphan marks)', () => {
    const named = new Set(KNOCKOUTS.map((k) => k.mark));
    const orphans = [...marks.values()].flat().filter((s) => !named.has(s.mark));
    expect(orphans.map((s) => `${s.file}:${s.markLine + 1} ${s.mark}`)).toEqual([]);
  });

  it('reads a mark alone above its line or after code on it, in each file type, stacked, and nothing that mentions one', () => {
    const tag = (name: string) => ['@', 'ko ', name].join('');
    const ts = [
      'const a = 1;',
      `  // ${tag('above')}`,
      '  if (x) {',
      `  y(); // ${tag('trailing')}`,
      `// ${tag('<id>')}`,
    ];
    expect(marksIn('src/x.ts', ts.join('\n'))).toEqual([
      { tag: 'ko', mark: 'above', file: 'src/x.ts', markLine: 1, line: 2 },
      { tag: 'ko', mark: 'trailing', file: 'src/x.ts', markLine: 3, line: 3 },
    ]);
    expect(marksIn('s/x.yaml', `# ${tag('in-yaml')}\nkey: 1`)).toEqual([
      { tag: 'ko', mark: 'in-yaml', file: 's/x.yaml', markLine: 0, line: 1 },
    ]);
    expect(marksIn('d/x.md', `<!-- ${tag('in-md')} -->\ntext\n\`// ${tag('mentioned')}\``)).toEqual([
      { tag: 'ko', mark: 'in-md', file: 'd/x.md', markLine: 0, line: 1 },
    ]);
    expect(marksIn('package.json', `{\n  "//files": "${tag('in-json')}",\n  "files": []`)).toEqual([
      { tag: 'ko', mark: 'in-json', file: 'package.json', markLine: 1, line: 2 },
    ]);
    expect(marksIn('d/x.txt', `// ${tag('no-syntax')}`)).toEqual([]);
    // A knock-out's and a mutant's marks stacked above one line both guard it.
    const eq = (name: string) => ['@', 'eq ', name].join('');
    const stacked = `// ${tag('stacked')}\n// ${eq('equivalent')}\nif (x) {`;
    expect(marksIn('a.ts', stacked)).toEqual([{ tag: 'ko', mark: 'stacked', file: 'a.ts', markLine: 0, line: 2 }]);
    expect(marksIn('a.ts', stacked, 'eq')).toEqual([
      { tag: 'eq', mark: 'equivalent', file: 'a.ts', markLine: 1, line: 2 },
    ]);
    const site = marksIn('src/x.ts', ts.join('\n'))[0] as NonNullable<ReturnType<typeof marksIn>[number]>;
    expect(applyAtMark(ts.join('\n'), site, 'if (x) {', 'if (false) {')).toEqual({
      text: ts.join('\n').replace('if (x) {', 'if (false) {'),
    });
    // The find must start on the marked line: the same text a line further down is not it.
    expect(applyAtMark(ts.join('\n'), site, 'y();', '')).toHaveProperty('problem');
  });

  it('docs/testing.md lists every knock-out as the list says (npm run knockouts -- --doc)', () => {
    const doc = readFileSync(new URL('docs/testing.md', root), 'utf8');
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(replaceTable(doc, knockoutTable(KNOCKOUTS, marks))).toBe(doc);
  });
});
