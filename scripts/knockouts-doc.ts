// The knock-out table of docs/testing.md, rendered from scripts/knockouts-list.ts (kept in sync by a test).
import type { Knockout } from './knockouts-list.js';

export const TABLE_START = '<!-- knockouts:start (npm run knockouts -- --doc) -->';
export const TABLE_END = '<!-- knockouts:end -->';

function code(text: string): string {
  if (text === '') return '*(line removed)*';
  const flat = text.replace(/\n\s*/g, ' ').replace(/\|/g, '\\|');
  return `\`${flat}\``;
}

export function knockoutTable(list: readonly Knockout[]): string {
  const rows = list.map(
    (k) =>
      `| \`${k.id}\` | ${k.mechanism} | \`${k.file}\`: ${code(k.find)} → ${code(k.replace)} | ${k.tests
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
