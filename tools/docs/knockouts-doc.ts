// The knock-out table of docs/testing.md, rendered from tools/test/knockouts/list.ts and the marks in the code (kept in
// sync by a test).
import type { Knockout } from '../test/knockouts/list.js';
import { type MarkSite, siteOf } from '../test/knockouts/marks.js';

export const TABLE_START = '<!-- knockouts:start (npm run knockouts -- --doc) -->';
export const TABLE_END = '<!-- knockouts:end -->';

function code(text: string): string {
  if (text === '') return '*(line removed)*';
  const flat = text.replace(/\n\s*/g, ' ').replace(/\|/g, '\\|');
  return `\`${flat}\``;
}

/** The table; each change is shown in the file its mark is found in (`marks`: scanMarks of the tree). */
export function knockoutTable(list: readonly Knockout[], marks: Map<string, MarkSite[]>): string {
  const where = (k: Knockout): string => {
    const site = siteOf(marks, k.mark);
    const file = typeof site === 'string' ? '(mark not found)' : site.file;
    return k.mark === k.id ? `\`${file}\`` : `\`${file}\` (mark \`${k.mark}\`)`;
  };
  const rows = list.map(
    (k) =>
      `| \`${k.id}\` | ${k.mechanism} | ${where(k)}: ${code(k.find)} → ${code(k.replace)} | ${k.tests
        .map((t) => `\`${t}\``)
        .join(', ')} |`,
  );
  return [
    '| knock-out | mechanism removed | the one-line change | tests that turn red |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `doc` with the text between the markers replaced by `table`; throws if the markers are missing. */
export function replaceTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/testing.md lacks the ${TABLE_START} ... ${TABLE_END} markers`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}\n${doc.slice(end)}`;
}
