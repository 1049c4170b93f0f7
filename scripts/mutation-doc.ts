// Writes the latest Stryker result (reports/mutation/mutation.json) into docs/mutation.md: score table and survivors.
import { readFileSync, writeFileSync } from 'node:fs';
import { BALANCER_REASONS } from './mutation-reasons-balancer.js';
import { BREAKER_REASONS } from './mutation-reasons-breaker.js';
import { OUTLIER_REASONS } from './mutation-reasons-outlier.js';

interface Mutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/**
 * Why each surviving mutant is equivalent: [file, a fragment of the mutated line, reason]. Matching on the line's text
 * (not its number) keeps the explanations attached when code above them moves. Unknown survivors are flagged.
 */
const OWN_REASONS: [string, string, string][] = [
  [
    'backoff.ts',
    'if (!(baseMs > 0 && maxMs >= 0)) return 0;',
    'a zero base makes `randomInt % 0` NaN, which the same line maps to 0: same result as the early return',
  ],
  [
    'backoff.ts',
    'next = next < maxMs / 2 ? next * 2 : maxMs',
    'when next equals max/2, doubling it gives max, the same value the other branch assigns',
  ],
  [
    'budget.ts',
    'if (byPercent > this.minConcurrency) return byPercent;',
    'when the percentage equals the minimum, both branches return the same number',
  ],
  [
    'classify.ts',
    "typeof condition === 'string' && /^\\d{3}$/",
    'the string test only matters for strings; for numbers the first disjunct is already true, and a regex test coerces a number to the same digits',
  ],
  [
    'classify.ts',
    "case 'P",
    'the POST and PATCH cases are a fast path: without them the default branch reads the name once more in upper case, finds it unchanged and answers false too',
  ],
  [
    'retry-after.ts',
    'while (start < end &&',
    'the trim loop reads `charCodeAt` past the end, which is NaN, never a space or tab, so the extra iteration never happens',
  ],
  ['retry-after.ts', 'while (end > start &&', 'same as the loop above, at the other end of the value'],
  [
    'retry-config.ts',
    'return { patienceMs: null, marginMs: 0 };',
    'returned only together with an issue, and a config with issues is never used',
  ],
  [
    'retry-config.ts',
    'if (issues.length > 0 || backoff === undefined)',
    'the backoff is undefined only when an issue was recorded, so the second test never decides',
  ],
  [
    'retry-call.ts',
    'isRetryOnSet(retryOn) ? retryOn : compileRetryConditions',
    'for a missing override `isRetryOnSet(undefined)` is true and the override becomes undefined, which `?? config.retryOn` treats like null',
  ],
  [
    'retry.ts',
    "if (upstream === '' && this.defaultBudget !== null)",
    'a cache in front of the Map: skipping it returns the same budget from the Map',
  ],
  [
    'retry.ts',
    "if (upstream === '') this.defaultBudget = budget;",
    'a cache in front of the Map: not filling it (or filling it for any upstream, which the guard above ignores) returns the same budgets',
  ],
  [
    'retry-call.ts',
    'if (perTryTimeoutMs < 0) return STOP_DECISIONS',
    'the allowance is never 0: an attempt at or after the deadline stops (-1) before one is computed',
  ],
  [
    'retry-call.ts',
    "outcome.kind === 'response' && outcome.pushbackMs != null",
    'parsing an absent pushback (or one on a non-response outcome, which has none) returns "absent", which changes nothing',
  ],
  [
    'retry-call.ts',
    "if (pushback.kind === 'retry') pushbackMs",
    'for an absent pushback `delayMs` is undefined and `undefined >= 0` is false, as with -1',
  ],
  [
    'retry-call.ts',
    "outcome.kind === 'response' &&",
    'a non-response outcome carries no hints: reading them gives not-ok, which changes nothing',
  ],
  [
    'retry-call.ts',
    '(outcome.retryAfter != null || outcome.retryAfterMs != null)',
    'reading absent hints returns not-ok, which changes nothing: the test only skips the call',
  ],
  [
    'retry.ts',
    '} else if (upstream !== this.recentUpstream) {',
    'a shortcut: re-inserting the most recently used key (already last in the Map) leaves the order as it is',
  ],
  [
    'retry-after.ts',
    'if (value === null || value === undefined) return',
    'a fast path: headerMembers(null / undefined) is empty, which yields the same absent answer',
  ],
  [
    'retry-after.ts',
    "value.indexOf(',') < 0",
    'a fast path for one member: the list path reads a single member the same way (a string never holds a line that is not a string)',
  ],
  [
    'retry-after.ts',
    'if (read > best) best = read;',
    'when a member equals the best so far, taking it changes nothing',
  ],
  [
    'retry-after.ts',
    '} else if (failure === ABSENT) {',
    'in retry-after-ms every failure is "malformed", so which one is kept changes nothing',
  ],
  [
    'retry-after.ts',
    'while (first < end &&',
    'the trim loop reads `charCodeAt` past the end, which is NaN, never a space or tab, so the extra iteration never happens',
  ],
  [
    'retry-after.ts',
    'while (end > first &&',
    'same as the loop above, at the other end; a mutated first comparison still leaves the second one to trim',
  ],
  [
    'retry-after.ts',
    "return delayMs < 0 ? 'malformed' : delayMs;",
    'the failure strings are only compared with "negative": any other string reads as malformed too',
  ],
  [
    'retry-after.ts',
    "return parseSeconds(value, start + 1, end) >= 0 ? 'negative' : 'malformed';",
    'emptying "malformed" changes nothing (only "negative" is tested for); emptying "negative" is killed',
  ],
  [
    'retry-after.ts',
    "if (atMs === undefined) return 'malformed';",
    'any string other than "negative" reads as malformed',
  ],
  [
    'retry-after.ts',
    'const refines = fine.delayMs <= coarse.delayMs && fine.delayMs > coarse.delayMs - 1000;',
    'when the fine value is not below the coarse one, "the longer of the two" is the fine value anyway',
  ],
  [
    'retry-after.ts',
    'if (members.length === 0) return PUSHBACK_ABSENT;',
    'with no member the loop keeps the initial "absent"',
  ],
  [
    'retry-after.ts',
    "if (best.kind !== 'retry' || (read.kind === 'retry' && read.delayMs > best.delayMs)) best = read;",
    'a member that reaches this line is a retry (a stop returned already), and an equal delay changes nothing',
  ],
  ['deadline.ts', 'let relativeCapped = false;', 'read only after a relative deadline was found, which always sets it'],
  [
    'config-error.ts',
    "if (key.length > 64) return '';",
    'a cost bound: a key that long is never within three edits of a known one, so the suggestion is empty either way (the empty answer itself is tested)',
  ],
  [
    'config-error.ts',
    "let best = '';",
    'read only when a candidate was within the allowed distance, which always sets it',
  ],
  [
    'retry-call.ts',
    'if (hint.ok) {',
    'a failed parse has no delayMs; both comparisons with undefined are false, so nothing changes',
  ],
  [
    'retry-call.ts',
    'if (hint.delayMs > waitMs) waitMs = hint.delayMs;',
    'when the hint equals the jittered wait, assigning it changes nothing',
  ],
  ['shed.ts', 'lastSlot = -1;', 'only read after offer() answered queued, which always sets it first'],
  ['shed.ts', 'lastDropped = false;', 'only read after take() returned an item, which always sets it first'],
  ['shed.ts', 'if (waiting.size > this.peakQueued)', 'when equal, assigning the same peak changes nothing'],
  [
    'shed.ts',
    'if (item === undefined && this.lastWaitedMs < 0) return undefined;',
    'take() returns undefined exactly when it reports a negative wait (no item), so either half decides alone; a queued undefined item is not a supported use of dequeue()',
  ],
  [
    'slot-queue.ts',
    'return slot >= 0 && slot < this.used ? this.items[slot] : undefined;',
    'a defensive bounds check: reading a JS array out of range already gives undefined',
  ],
  [
    'slot-queue.ts',
    'return slot >= 0 && slot < this.used && stamp !== 0 && this.stamps[slot] === stamp;',
    'defensive checks: an out-of-range typed-array read is undefined (never equal to a stamp), and tickets never carry stamp 0 (stamps start at 1)',
  ],
  [
    'retry.ts',
    "if (oldest === '') this.defaultBudget = null;",
    "clearing the cache on every eviction (not only the default upstream's) costs one Map lookup later and returns the same budget",
  ],
  [
    'shed.ts',
    '!(ticket instanceof ShedTicket) || ticket.queue !== this.waiting',
    'anything that is not a ShedTicket has no `queue`, so the second test refuses it too',
  ],
  [
    'budget.ts',
    "const ttlMs = o.kind === 'ratio' ? ratioBudgetIssues(o, path, issues)",
    'reading the ratio keys of another kind finds none of them (they are refused as unknown keys first) and the ttl it returns is used only for the ratio kind',
  ],
  [
    'hop.ts',
    'if (value === undefined) return null;',
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'hop.ts',
    'headerValue(headers, GRPC_TIMEOUT_HEADER) === undefined &&',
    "the no-deadline shortcut only saves readDeadline's work: without it readDeadline answers 'absent' and the same shared read is returned",
  ],
  [
    'hop.ts',
    ') {',
    "the body of the no-deadline shortcut: without it readDeadline answers 'absent' and the same shared read is returned",
  ],
  [
    'hop.ts',
    "const malformed = read.reason !== 'absent';",
    "past the shortcut some deadline header is present, so readDeadline never answers 'absent' here: the test is always true",
  ],
  [
    'hop.ts',
    'if (!malformed) return hop ? withoutDeadline(attempt) : PLAIN;',
    'past the shortcut some deadline header is present, so a failed read is always malformed and this line never returns',
  ],
  [
    'hop.ts',
    'const skewed = skewMs !== undefined &&',
    'comparisons with an undefined skew are false either way, so the first test never decides',
  ],
  [
    'ownership.ts',
    'if (!Array.isArray(value) || value.length === 0) return undefined;',
    'without it an empty list or a non-string value reaches `value[0]`, which is not a string, and the next line answers undefined too',
  ],
  [
    'ownership.ts',
    'if (a === null) return b;',
    "a shortcut: with a null `a` the last line gives `b` anyway (unclaimed when b is, else criteria-met, or the next line's null)",
  ],
  [
    'ownership.ts',
    'if (b === null) return a;',
    'a shortcut: with a null `b` (and `a` not null) the last line gives `a` anyway',
  ],
  [
    'ratio-budget.ts',
    "if (ratio !== undefined && (typeof ratio !== 'number'",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget.ts',
    "issues.push({ path: joinPath(path, 'ratio'), message:",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget.ts',
    "if (min !== undefined && (typeof min !== 'number'",
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/mutation-run7.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'ratio-budget.ts',
    "issues.push({ path: joinPath(path, 'minRetriesPerSec'), message:",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget.ts',
    "issues.push({ path: joinPath(path, 'ttl'), message:",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget.ts',
    'if (issues.length > 0 || ttlMs === undefined) throw',
    'the ttl is undefined only when an issue was recorded, so the second test never decides',
  ],
  [
    'ratio-budget.ts',
    'if (steps >= slots.length) {',
    'a shortcut: stepping through the whole ring zeroes every slot and the sum, the same state the fill gives',
  ],
  ['retry-after.ts', "const MONTHS = ['Jan',", 'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)'],
  [
    'retry-call.ts',
    'if (hopDeadline !== null && hopDeadline !== undefined && !Number.isFin',
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/mutation-run7.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'retry-call.ts',
    "{ path: 'inbound.deadlineMs', message:",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'retry-call.ts',
    'if (hopDeadline !== null && hopDeadline !== undefined)',
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/mutation-run7.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'retry-call.ts',
    "if (reason === null || reason === 'succeeded' || reason === 'aborted')",
    'a success always recorded a status below 500, so the next line returns null for it anyway; a running call has no stop reason and is tested',
  ],
  [
    'retry-call.ts',
    'if (this.lastStatus !== 0 && this.lastStatus < 500) return null;',
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'retry-call.ts',
    "if (outcome.kind === 'response') {",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
  [
    'traits.ts',
    "if (method !== undefined && method !== null && typeof method !== 'stri",
    'killed by src/policy/mutation-run6.test.ts (confirmed by run 7)',
  ],
];
OWN_REASONS.push(
  [
    'retry-call.ts',
    "lastClaim: Claim = 'absent';",
    'survived run 7: no test read the claim of a call that made no attempt; killed since by src/policy/mutation-run7.test.ts, confirmed by a Stryker run of this line',
  ],
  [
    'outlier.ts',
    'if ((srRates[i] as number) < cut)',
    'a rate exactly 1e-9 below the threshold (rates are ratios of whole counts, the threshold a mean minus a multiple of a square root) never occurs, so < and <= decide alike',
  ],
);
const REASONS = [...OWN_REASONS, ...BALANCER_REASONS, ...BREAKER_REASONS, ...OUTLIER_REASONS];

function reasonFor(file: string, line: string): string {
  const found = REASONS.find(([f, fragment]) => f === file && line.includes(fragment));
  return found ? found[2] : '**not yet explained: look at it**';
}

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
    const reason = reasonFor(name, lines[line - 1] ?? '');
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
const SURVIVOR_INTRO = [
  'All survivors are **equivalent mutants**: the mutated program behaves identically for every input, so no test can',
  'tell them apart. They are listed so that a change that makes one observable gets a test.',
].join('\n');
const survivorTable =
  survivors.length === 0
    ? 'None.'
    : ['| where | mutator | code | why it is equivalent |', '|---|---|---|---|', ...survivors].join('\n');
const doc = readFileSync('docs/mutation.md', 'utf8')
  .replace(/## Latest run\n[\s\S]*?\n## Surviving/, `## Latest run\n\n${table}\n\n## Surviving`)
  .replace(
    /every one explained\n[\s\S]*?\n## What the runs/,
    `every one explained\n\n${SURVIVOR_INTRO}\n\n${survivorTable}\n\n## What the runs`,
  );
writeFileSync('docs/mutation.md', doc.replace('MUTATION_TABLE', table).replace('SURVIVOR_TABLE', survivorTable));
console.log(`mutation score ${((100 * killedAll) / validAll).toFixed(2)} %, ${validAll - killedAll} survivors`);
