// Writes the latest Stryker result (reports/mutation/mutation.json) into docs/mutation.md: score table and survivors.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { marksIn } from '../test/knockouts/marks.js';
import { BALANCER_REASONS } from '../test/mutation-reasons/balancer.js';
import { BREAKER_REASONS } from '../test/mutation-reasons/breaker.js';
import { OUTLIER_REASONS } from '../test/mutation-reasons/outlier.js';

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
 * Why each surviving mutant is equivalent: [mark, reason]. The mark, `@eq <mark>` in a comment on the mutated line or
 * alone above it (tools/test/knockouts/marks.ts), keeps the explanation attached to the line when it moves, within its
 * file or to another; one reason may mark several lines. Unknown survivors are flagged.
 */
const OWN_REASONS: [string, string][] = [
  [
    'backoff-basems-maxms',
    'a zero base makes `randomInt % 0` NaN, which the same line maps to 0: same result as the early return',
  ],
  [
    'backoff-next-next-maxms-next',
    'when next equals max/2, doubling it gives max, the same value the other branch assigns',
  ],
  [
    'budget-bypercent-minconcurrency-bypercent',
    'when the percentage equals the minimum, both branches return the same number',
  ],
  [
    'classify-condition-string',
    'the string test only matters for strings; for numbers the first disjunct is already true, and a regex test coerces a number to the same digits',
  ],
  [
    'classify-post-patch-fast-path',
    'the POST and PATCH cases are a fast path: without them the default branch reads the name once more in upper case, finds it unchanged and answers false too',
  ],
  [
    'retry-after-start-end',
    'the trim loop reads `charCodeAt` past the end, which is NaN, never a space or tab, so the extra iteration never happens',
  ],
  ['retry-after-end-start', 'same as the loop above, at the other end of the value'],
  ['retry-config-patiencems-marginms', 'returned only together with an issue, and a config with issues is never used'],
  [
    'retry-config-issues-length-backoff',
    'the backoff is undefined only when an issue was recorded, so the second test never decides',
  ],
  [
    'retry-call-isretryonset-retryon-retryon-compileretryconditions',
    'for a missing override `isRetryOnSet(undefined)` is true and the override becomes undefined, which `?? config.retryOn` treats like null',
  ],
  ['retry-upstream-defaultbudget', 'a cache in front of the Map: skipping it returns the same budget from the Map'],
  [
    'retry-upstream-defaultbudget-budget',
    'a cache in front of the Map: not filling it (or filling it for any upstream, which the guard above ignores) returns the same budgets',
  ],
  [
    'retry-call-pertrytimeoutms-stop-decisions',
    'the allowance is never 0: an attempt at or after the deadline stops (-1) before one is computed',
  ],
  [
    'retry-call-outcome-kind-response-outcome',
    'parsing an absent pushback (or one on a non-response outcome, which has none) returns "absent", which changes nothing',
  ],
  [
    'retry-call-pushback-kind-retry-pushbackms',
    'for an absent pushback `delayMs` is undefined and `undefined >= 0` is false, as with -1',
  ],
  [
    'retry-call-outcome-kind-response',
    'a non-response outcome carries no hints: reading them gives not-ok, which changes nothing',
  ],
  [
    'retry-call-outcome-retryafter-outcome-retryafterms',
    'reading absent hints returns not-ok, which changes nothing: the test only skips the call',
  ],
  [
    'retry-upstream-recentupstream',
    'a shortcut: re-inserting the most recently used key (already last in the Map) leaves the order as it is',
  ],
  [
    'retry-after-value-value',
    'a fast path: headerMembers(null / undefined) is empty, which yields the same absent answer',
  ],
  [
    'retry-after-value-indexof',
    'a fast path for one member: the list path reads a single member the same way (a string never holds a line that is not a string)',
  ],
  ['retry-after-read-best-best-read', 'when a member equals the best so far, taking it changes nothing'],
  [
    'retry-after-failure-absent',
    'in retry-after-ms every failure is "malformed", so which one is kept changes nothing',
  ],
  [
    'retry-after-first-end',
    'the trim loop reads `charCodeAt` past the end, which is NaN, never a space or tab, so the extra iteration never happens',
  ],
  [
    'retry-after-end-first',
    'same as the loop above, at the other end; a mutated first comparison still leaves the second one to trim',
  ],
  [
    'retry-after-delayms-malformed-delayms',
    'the failure strings are only compared with "negative": any other string reads as malformed too',
  ],
  [
    'retry-after-parseseconds-value-start-end',
    'emptying "malformed" changes nothing (only "negative" is tested for); emptying "negative" is killed',
  ],
  ['retry-after-atms-malformed', 'any string other than "negative" reads as malformed'],
  [
    'retry-after-refines-fine-delayms-coarse',
    'when the fine value is not below the coarse one, "the longer of the two" is the fine value anyway',
  ],
  ['retry-after-members-length-pushback-absent', 'with no member the loop keeps the initial "absent"'],
  [
    'retry-after-best-kind-retry-read',
    'a member that reaches this line is a retry (a stop returned already), and an equal delay changes nothing',
  ],
  ['deadline-relativecapped', 'read only after a relative deadline was found, which always sets it'],
  [
    'config-error-key-length-64',
    'a cost bound: a key that long is never within three edits of a known one, so the suggestion is empty either way (the empty answer itself is tested)',
  ],
  ['config-error-best', 'read only when a candidate was within the allowed distance, which always sets it'],
  [
    'retry-call-hint-ok',
    'a failed parse has no delayMs; both comparisons with undefined are false, so nothing changes',
  ],
  ['retry-call-hint-delayms-waitms-waitms', 'when the hint equals the jittered wait, assigning it changes nothing'],
  ['shed-lastslot', 'only read after offer() answered queued, which always sets it first'],
  ['shed-lastdropped', 'only read after take() returned an item, which always sets it first'],
  ['shed-waiting-size-peakqueued', 'when equal, assigning the same peak changes nothing'],
  [
    'slot-queue-slot-slot-used-stamp',
    'defensive checks: an out-of-range typed-array read is undefined (never equal to a stamp), and tickets never carry stamp 0 (stamps start at 1)',
  ],
  [
    'shed-ticket-instanceof-shedticket-ticket',
    'anything that is not a ShedTicket has no `queue`, so the second test refuses it too',
  ],
  [
    'budget-ttlms-kind-ratio-ratiobudgetissues',
    'reading the ratio keys of another kind finds none of them (they are refused as unknown keys first) and the ttl it returns is used only for the ratio kind',
  ],
  ['hop-value', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  [
    'hop-headervalue-headers-grpc-timeout',
    "the no-deadline shortcut only saves readDeadline's work: without it readDeadline answers 'absent' and the same shared read is returned",
  ],
  [
    'hop-no-deadline-shortcut-body',
    "the body of the no-deadline shortcut: without it readDeadline answers 'absent' and the same shared read is returned",
  ],
  [
    'hop-malformed-read-reason-absent',
    "past the shortcut some deadline header is present, so readDeadline never answers 'absent' here: the test is always true",
  ],
  [
    'hop-malformed-hop-withoutdeadline-attempt',
    'past the shortcut some deadline header is present, so a failed read is always malformed and this line never returns',
  ],
  ['hop-skewed-skewms', 'comparisons with an undefined skew are false either way, so the first test never decides'],
  [
    'ownership-array-isarray-value-value',
    'without it an empty list or a non-string value reaches `value[0]`, which is not a string, and the next line answers undefined too',
  ],
  [
    'ownership-a-null-shortcut',
    "a shortcut: with a null `a` the last line gives `b` anyway (unclaimed when b is, else criteria-met, or the next line's null)",
  ],
  ['ownership-b-null-shortcut', 'a shortcut: with a null `b` (and `a` not null) the last line gives `a` anyway'],
  ['ratio-budget-ratio-ratio-number', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  ['ratio-budget-issues-push-path-joinpath', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  [
    'ratio-budget-min-min-number',
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/ratio-hop-call-edges.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'ratio-budget-issues-push-path-joinpath-2',
    'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget-issues-push-path-joinpath-3',
    'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)',
  ],
  [
    'ratio-budget-issues-length-ttlms-throw',
    'the ttl is undefined only when an issue was recorded, so the second test never decides',
  ],
  [
    'ratio-budget-steps-slots-length',
    'a shortcut: stepping through the whole ring zeroes every slot and the sum, the same state the fill gives',
  ],
  ['retry-after-months-jan', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  [
    'retry-call-hopdeadline-hopdeadline-number-isfin',
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/ratio-hop-call-edges.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'retry-call-path-inbound-deadlinems-message',
    'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)',
  ],
  [
    'retry-call-hopdeadline-hopdeadline',
    "survived run 7 (run 6's test used a non-numeric value); killed since by src/policy/ratio-hop-call-edges.test.ts, confirmed by a Stryker run of this line",
  ],
  [
    'retry-call-reason-reason-succeeded-reason',
    'a success always recorded a status below 500, so the next line returns null for it anyway; a running call has no stop reason and is tested',
  ],
  ['retry-call-laststatus-laststatus-500', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  ['retry-call-outcome-kind-response-2', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
  ['traits-method-method-method-stri', 'killed by src/policy/ratio-hop-date-edges.test.ts (confirmed by run 7)'],
];
OWN_REASONS.push(
  [
    'retry-call-lastclaim-claim-absent',
    'survived run 7: no test read the claim of a call that made no attempt; killed since by src/policy/ratio-hop-call-edges.test.ts, confirmed by a Stryker run of this line',
  ],
  [
    'outlier-srrates-number-cut',
    'a rate exactly 1e-9 below the threshold (rates are ratios of whole counts, the threshold a mean minus a multiple of a square root) never occurs, so < and <= decide alike',
  ],
);
export const REASONS: [string, string][] = [
  ...OWN_REASONS,
  ...BALANCER_REASONS,
  ...BREAKER_REASONS,
  ...OUTLIER_REASONS,
];
const BY_MARK = new Map(REASONS);

/** The reason for a survivor on `line` (0-based) of the file Stryker mutated, found by the `@eq` mark guarding it. */
export function reasonFor(path: string, source: string, line: number): string {
  const site = marksIn(path, source, 'eq').find((s) => s.line === line);
  return (site && BY_MARK.get(site.mark)) ?? '**not yet explained: look at it**';
}

function main(): void {
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
      const reason = reasonFor(path, file.source, line - 1);
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
}

// Run as a script (npm run mutate:doc); imported (test/tools/mutation-notes.test.ts) it only gives the reasons.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
