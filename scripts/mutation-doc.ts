// Writes the latest Stryker result (reports/mutation/mutation.json) into docs/mutation.md: score table and survivors.
import { readFileSync, writeFileSync } from 'node:fs';

interface Mutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** Why each surviving mutant is equivalent, keyed by `file:line`. Unknown survivors are flagged for a human. */
const REASONS: Record<string, string> = {
  'backoff.ts:174':
    'a zero base makes `randomInt % 0` NaN, which the same line maps to 0: same result as the early return',
  'backoff.ts:177': 'when next equals max/2, doubling it gives max, the same value the other branch assigns',
  'budget.ts:191': 'when the percentage equals the minimum, both branches return the same number',
  'classify.ts:66':
    'the string test only matters for strings; for numbers the first disjunct is already true, and a regex test coerces a number to the same digits',
  'retry-after.ts:112':
    'the trim loop reads `charCodeAt` past the end, which is NaN, never a space or tab, so the extra iteration never happens',
  'retry-after.ts:113': 'same as line 112, at the other end of the value',
  'retry-config.ts:119': 'returned only together with an issue, and a config with issues is never used',
  'retry-config.ts:183': 'the backoff is undefined only when an issue was recorded, so the second test never decides',
  'retry.ts:177':
    'for a missing override `isRetryOnSet(undefined)` is true and the override becomes undefined, which `?? config.retryOn` treats like null',
  'retry.ts:222':
    'parsing an absent pushback (or one on a non-response outcome, which has none) returns "absent", which changes nothing',
  'retry.ts:229': 'for an absent pushback `delayMs` is undefined and `undefined >= 0` is false, as with -1',
  'retry.ts:252': 'parsing an absent Retry-After returns not-ok, which changes nothing',
  'retry.ts:254': 'a failed parse has no delayMs; both comparisons with undefined are false, so nothing changes',
  'retry.ts:256': 'when the hint equals the jittered wait, assigning it changes nothing',
};

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8')) as Report;
const rows: string[] = [];
const survivors: string[] = [];
let killedAll = 0;
let validAll = 0;
for (const [path, file] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const name = path.replace(/^src\/policy\//, '');
  const count = (s: string) => file.mutants.filter((m) => m.status === s).length;
  const killed = count('Killed') + count('Timeout');
  const valid = killed + count('Survived') + count('NoCoverage');
  killedAll += killed;
  validAll += valid;
  rows.push(
    `| ${name} | ${valid} | ${killed} | ${count('Survived') + count('NoCoverage')} | ${((100 * killed) / valid).toFixed(2)} % |`,
  );
  const lines = file.source.split('\n');
  for (const m of file.mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const { line, column } = m.location.start;
    const reason = REASONS[`${name}:${line}`] ?? '**not yet explained: look at it**';
    const code = (lines[line - 1] ?? '').trim().slice(0, 70).replaceAll('|', '\\|');
    survivors.push(`| ${name}:${line}:${column} | ${m.mutatorName} | \`${code}\` | ${reason} |`);
  }
}
const table = [
  '| file | mutants | killed (incl. timeouts) | survived | score |',
  '|---|---|---|---|---|',
  ...rows,
  `| **all** | **${validAll}** | **${killedAll}** | **${validAll - killedAll}** | **${((100 * killedAll) / validAll).toFixed(2)} %** |`,
].join('\n');
const survivorTable =
  survivors.length === 0
    ? 'None.'
    : ['| where | mutator | code | why it is equivalent |', '|---|---|---|---|', ...survivors].join('\n');
const doc = readFileSync('docs/mutation.md', 'utf8')
  .replace(/## Latest run\n[\s\S]*?\n## Surviving/, `## Latest run\n\n${table}\n\n## Surviving`)
  .replace(/every one explained\n[\s\S]*?\n## What the first/, (match) => {
    const head = match.slice(0, match.indexOf('\n\n', match.indexOf('tests.')) + 2);
    return `${head}${survivorTable}\n\n## What the first`;
  });
writeFileSync('docs/mutation.md', doc.replace('MUTATION_TABLE', table).replace('SURVIVOR_TABLE', survivorTable));
console.log(`mutation score ${((100 * killedAll) / validAll).toFixed(2)} %, ${validAll - killedAll} survivors`);
