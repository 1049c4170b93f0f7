// The equivalent-mutant notes (tools/docs/mutation-doc.ts, tools/mutation-reasons-*.ts) stay attached to their lines:
// each is keyed by an `@eq` mark in the code (tools/test/knockouts/marks.ts), not by a file name and a fragment of text.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REASONS, reasonFor } from '../../tools/docs/mutation-doc.js';
import { scanMarks } from '../../tools/test/knockouts/marks.js';

const marks = scanMarks(fileURLToPath(new URL('../../', import.meta.url)), 'eq');

describe('equivalent-mutant notes', () => {
  it('each names a mark on at least one line of src/policy (the code Stryker mutates), and no two the same', () => {
    const problems: string[] = [];
    for (const [mark] of REASONS) {
      const sites = marks.get(mark) ?? [];
      if (sites.length === 0) problems.push(`${mark}: no line is marked with it`);
      for (const s of sites) if (!s.file.startsWith('src/policy/')) problems.push(`${mark}: in ${s.file}`);
    }
    expect(problems).toEqual([]);
    expect(new Set(REASONS.map(([mark]) => mark)).size).toBe(REASONS.length);
  });

  it('every @eq mark in the code has its note (no orphan marks)', () => {
    const noted = new Set(REASONS.map(([mark]) => mark));
    const orphans = [...marks.values()].flat().filter((s) => !noted.has(s.mark));
    expect(orphans.map((s) => `${s.file}:${s.markLine + 1} ${s.mark}`)).toEqual([]);
  });

  it("finds a survivor's reason by the mark guarding its line, wherever the line is", () => {
    const [mark, reason] = REASONS[0] as [string, string];
    const eq = ['@', 'eq ', mark].join('');
    const source = ['const a = 1;', `  // ${eq}`, '  if (a > 0) return 0;', 'const b = 2;'].join('\n');
    expect(reasonFor('src/policy/moved.ts', source, 2)).toBe(reason);
    expect(reasonFor('src/policy/moved.ts', source, 3)).toMatch(/not yet explained/);
  });
});
