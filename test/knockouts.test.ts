// The knock-out list (scripts/knockouts-list.ts) stays applicable and docs/testing.md shows it as it is.
// The knock-outs themselves run with `npm run knockouts` (they edit the source, so not beside the rest of the suite).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { knockoutTable, replaceTable, TABLE_END, TABLE_START } from '../scripts/knockouts-doc.js';
import { KNOCKOUTS } from '../scripts/knockouts-list.js';

const root = new URL('../', import.meta.url);

describe('knock-outs', () => {
  it('each names a line that occurs exactly once in its file, and test files that exist', () => {
    const problems: string[] = [];
    for (const k of KNOCKOUTS) {
      const source = readFileSync(new URL(k.file, root), 'utf8');
      const count = source.split(k.find).length - 1;
      if (count !== 1) problems.push(`${k.id}: the line occurs ${count} times in ${k.file}`);
      if (k.find === k.replace) problems.push(`${k.id}: the change changes nothing`);
      for (const test of k.tests) if (!existsSync(new URL(test, root))) problems.push(`${k.id}: no file ${test}`);
    }
    expect(problems).toEqual([]);
    expect(new Set(KNOCKOUTS.map((k) => k.id)).size).toBe(KNOCKOUTS.length);
  });

  it('docs/testing.md lists every knock-out as the list says (npm run knockouts -- --doc)', () => {
    const doc = readFileSync(new URL('docs/testing.md', root), 'utf8');
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(replaceTable(doc, knockoutTable(KNOCKOUTS))).toBe(doc);
  });
});
