// Sections 1-4 of docs/results.md: the incident, the seed's table beside Seawall's, total failure, a normal day.

import type { SimulationResult } from '../../../src/sim/index.js';
import {
  amp,
  type Claims,
  mdTable,
  meanPerS,
  num,
  pct,
  type Results,
  range,
  rate,
  recoveryVerdict,
  runOf,
  runsOf,
  seconds,
  seedsAgree,
  series,
  times,
  variantsOf,
  zeroStretch,
} from './format.js';

const MEMBER = 'member-api';
const ENTRY = 'checkout-bff';
/** The trigger's end and the windows of every checkout-* built-in (s). */
const TRIGGER_END_S = 65;
const AFTER: [number, number] = [65, 80];
/** member-api's capacity during the failover: 15 connections / 50 ms. Users arrive at 700/s. */
export const FAILOVER_SHARE = 300 / 700;

/** Section 1: every checkout-incident variant, seed 1, with the verdict of each seed. */
export function headline(r: Results, claims: Claims): string {
  const rows = variantsOf(r.incident).map((variant) => {
    const run = runOf(r.incident, variant);
    return [
      `\`${variant}\``,
      pct(rate(run, 'before')),
      pct(rate(run, 'during')),
      pct(rate(run, 'after')),
      num(run.p99Ms.during ?? Number.NaN),
      times(amp(run, MEMBER, 'total')),
      times(amp(run, MEMBER, 'after')),
      seconds(run.recoverySeconds),
      pct(run.wastedWorkFraction),
      recoveryVerdict(r.incident, variant),
    ];
  });
  for (const variant of variantsOf(r.incident))
    claims.check(seedsAgree(r.incident, variant), `seeds agree: ${variant}`);
  for (const variant of ['bad', 'a-jitter', 'b-bff-only']) {
    const runs = runsOf(r.incident, variant);
    claims.check(
      runs.every((run) => run.recoverySeconds === null && rate(run, 'after') < 0.05),
      `${variant} never recovers`,
    );
  }
  const good = runsOf(r.incident, 'good');
  claims.check(
    good.every((g) => (g.recoverySeconds ?? 99) <= 2 && rate(g, 'after') >= 0.99),
    'good recovers within 2 s with ≥ 99 % after',
  );
  claims.check(
    good.every((g) => rate(g, 'during') >= 0.85 * FAILOVER_SHARE),
    'good gets ≥ 85 % of capacity during the failover',
  );
  const g = runOf(r.incident, 'good');
  return `## 1. The incident: every variant of \`checkout-incident\`

\`npx seawall simulate checkout-incident --seeds 1,2,3\`. Seed 1; the last column gives each seed's verdict.
The trigger is the DB failover, 50 → 15 connections from 50 s to 65 s; windows: before 40–50 s, during 50–65 s,
after 65–80 s.

${mdTable(
  [
    'variant',
    'success before',
    'during',
    'after',
    'p99 during (ms)',
    'member-api attempts / user, whole run',
    'same, after',
    'recovery',
    'wasted work',
    'seeds 1 / 2 / 3',
  ],
  rows,
  [1, 2, 3, 4, 5, 6, 7, 8],
)}

The three deployed or proposed configurations (\`bad\`, proposal A \`a-jitter\`, proposal B \`b-bff-only\`) never
recover: after the trigger member-api receives ${times(amp(runOf(r.incident, 'bad'), MEMBER, 'after'), 1)} the
user traffic under \`bad\` — the incident's "about 16×" — and runs queries nobody waits for. \`good\` recovers
${seconds(g.recoverySeconds)} after the trigger and during it answers ${pct(rate(g, 'during'))} of users, against
the ${pct(FAILOVER_SHARE)} that 300 queries/s for 700 users/s allows (${pct(rate(g, 'during') / FAILOVER_SHARE, 0)}
of it; seeds 1–3: ${range(
    good.map((x) => rate(x, 'during')),
    (v) => pct(v),
  )}).${proposalC(r, claims)}`;
}

/** Section 1's paragraph on proposal C (empty when the results have no c-circuit-breaker run). */
function proposalC(r: Results, claims: Claims): string {
  if (!variantsOf(r.incident).includes('c-circuit-breaker')) return '';
  const g = runOf(r.incident, 'good');
  const c = runOf(r.incident, 'c-circuit-breaker');
  const cRuns = runsOf(r.incident, 'c-circuit-breaker');
  claims.check(
    cRuns.every((x) => x.recoverySeconds !== null && x.recoverySeconds <= 10 && rate(x, 'during') < rate(g, 'during')),
    'c-circuit-breaker recovers within 10 s but serves less than good during the trigger',
  );
  const breaker = c.edges['checkout-bff -> coupon-api']?.circuitBreaker;
  const openS = breaker?.openByBin.slice(50, 65).filter((n) => n > 0).length ?? 0;
  return `

Proposal C, \`c-circuit-breaker\` (\`bad\` plus a circuit breaker at the BFF with the policy's defaults,
[breakers.md](breakers.md#proposal-c-measured)), does recover: open, it refuses every BFF attempt at once, so the
load that sustains the loop is gone and member-api drains its queue. It recovers ${seconds(c.recoverySeconds)} after
the trigger (seeds 1–3: ${range(
    cRuns.map((x) => x.recoverySeconds ?? Number.NaN),
    (v) => `${num(v, 1)} s`,
  )}), about one 5 s break; after the trigger member-api gets ${times(amp(c, MEMBER, 'after'))} the user traffic. The
price is the users: the breaker was open ${num(openS)} s of the trigger's 15 s and refused everyone then, so during
the trigger it answers ${pct(rate(c, 'during'))} where \`good\` answers ${pct(rate(g, 'during'))}, and
${pct(rate(c, 'after'))} in 65–80 s where \`good\` answers ${pct(rate(g, 'after'))}.`;
}

/** Section 2: incident.md's result table, row by row, with Seawall's figure and why they differ. */
export function seedTable(r: Results, claims: Claims): string {
  const inc = (variant: string, seed = 1) => runOf(r.incident, variant, seed);
  const tf = (variant: string) => runOf(r.totalFailure, variant);
  const tfBefore = (variant: string) =>
    range(
      runsOf(r.totalFailure, variant).map((x) => amp(x, MEMBER, 'before')),
      (v) => num(v, 2),
    );
  const good = inc('good');
  const noBudget = inc('good-no-budget');
  const noLimit = inc('good-no-queue-limit');
  const noDrop = inc('good-no-deadline-drop');
  const oneLayer = inc('one-layer-jitter-deadline-header');
  const budgetOnly = inc('budget-only');
  const callee = inc('callee-protection-only');
  const normalGood = runsOf(r.normal, 'good').flatMap((x) => ['before', 'during', 'after'].map((w) => rate(x, w)));
  const entry = series(r.incident, 'budget-only', 1, ENTRY);
  const zero = zeroStretch(entry, TRIGGER_END_S);
  const memberRows = (variant: string) => series(r.incident, variant, 1, MEMBER);
  const backlog = memberRows('budget-only').find((row) => row.t === TRIGGER_END_S - 1)?.queueLength ?? Number.NaN;
  const wastedAfter = (variant: string) => meanPerS(memberRows(variant), (row) => row.wasted, ...AFTER);
  const noLimitQueue = meanPerS(memberRows('good-no-queue-limit'), (row) => row.queueLength, 55, 65);

  claims.check(noDrop.successRate.during === good.successRate.during, 'good-no-deadline-drop equals good');
  claims.check((callee.p99Ms.during ?? 0) === (noBudget.p99Ms.during ?? 1), 'callee-protection-only = good-no-budget');
  claims.check(zero.afterS >= 10 && budgetOnly.recoverySeconds !== null, 'budget-only: long stretch at 0 %, recovers');
  claims.check(rate(budgetOnly, 'after') < 0.05, 'budget-only: after-window success below 5 %');
  claims.check(rate(noLimit, 'during') < 0.1, 'good-no-queue-limit collapses during the trigger');
  claims.check(Math.min(...normalGood) >= 0.999, 'good ≥ 99.9 % on a normal day');

  const rows: string[][] = [
    [
      'Bad, every attempt fails',
      '16.0 attempts at member-api per user request',
      `${num(amp(tf('bad'), MEMBER, 'before'), 2)} (before window; seeds 1–3: ${tfBefore('bad')})`,
      'none: it is counting, 4 × 4',
    ],
    [
      'Good, same condition',
      '< 1.1',
      `${num(amp(tf('good'), MEMBER, 'total'), 3)}`,
      'none: a few failures take the bucket to half, then the BFF tries once; coupon-api never retries',
    ],
    [
      'A (jitter only)',
      '16.02×, does not recover',
      `${num(amp(tf('a-jitter'), MEMBER, 'before'), 2)}× (seeds 1–3: ${tfBefore('a-jitter')}); incident: ${recoveryVerdict(r.incident, 'a-jitter')}`,
      'none beyond sampling: jitter moves attempts in time, it removes none (a window count can land a little above 16)',
    ],
    [
      'B (BFF only)',
      '4.00×, does not recover',
      `${num(amp(tf('b-bff-only'), MEMBER, 'before'), 2)}×; incident: ${recoveryVerdict(r.incident, 'b-bff-only')}`,
      'none',
    ],
    [
      'Bad after the trigger',
      'success in 65–80 s below 5 % (stays down)',
      `${range(
        runsOf(r.incident, 'bad').map((x) => rate(x, 'after')),
        (v) => pct(v),
      )}, never recovers in the 120 s run`,
      'none; the real incident lasted 47 min, the model stays down for as long as the 700/s keep coming',
    ],
    [
      'Good',
      'recovers the instant the trigger ends: 0 % → 100 %',
      `recovery ${seconds(good.recoverySeconds)}; after ${pct(rate(good, 'after'))} (bad ${pct(rate(inc('bad'), 'after'))})`,
      `none; the seed's "0 % → 100 %" is bad's after-window beside good's. During the trigger good keeps ${pct(rate(good, 'during'))} (capacity allows ${pct(FAILOVER_SHARE)})`,
    ],
    [
      'Good, normal 1 % transient failures',
      'success > 99.9 %',
      `lowest window over seeds 1–3: ${pct(Math.min(...normalGood), 2)}`,
      'none (section 4)',
    ],
    [
      'full jitter',
      "first retry's wait spreads over U(0, 0.1 s)",
      'not a simulator figure: `src/policy/retry/backoff.test.ts` checks U(0, min(500, 50·2^retry)) ms',
      'none: the same rule, tested where it lives',
    ],
    [
      'Good minus the budget',
      'still recovers; p99 during 752 → 1,046 ms',
      `recovery ${seconds(noBudget.recoverySeconds)}; p99 during ${num(good.p99Ms.during ?? 0)} → ${num(noBudget.p99Ms.during ?? 0)} ms`,
      "same direction. Good's p99 sits on the 800 ms per-try timeout: the slowest 1 % waited out one attempt and the drained budget refused their retry. Absolute p99 depends on details the seed does not give (its service-time shape, network)",
    ],
    [
      'Good minus the queue limit',
      'still recovers; wasted work 0.8 % → 4.7 %',
      `recovery ${seconds(noLimit.recoverySeconds)}; wasted ${pct(good.wastedWorkFraction)} → ${pct(noLimit.wastedWorkFraction)}; but success during ${pct(rate(noLimit, 'during'))}, after ${pct(rate(noLimit, 'after'))}`,
      'same verdict, more waste and a collapse during the trigger the seed does not report (note a)',
    ],
    [
      'one layer + full jitter + deadline header, no budget, no callee protection',
      'does not recover; wasted work 73.7 %',
      `${seconds(oneLayer.recoverySeconds)}; wasted ${pct(oneLayer.wastedWorkFraction)} of the run's queries; in 65–80 s ${num(wastedAfter('one-layer-jitter-deadline-header'))} wasted executions/s, all of member-api's throughput (~1,000/s)`,
      'same verdict. The share counts the whole 120 s run, 50 s of it healthy; after the trigger nearly every query is wasted. The seed does not give its run length',
    ],
    [
      'budget only',
      'recovers, but 19 s at 0 % while the work queued during the trigger drains',
      `recovery ${seconds(budgetOnly.recoverySeconds)}; success < 5 % for ${num(zero.afterS)} s after the trigger (${num(zero.totalS)} s in all, from ${num(zero.startS)} s)`,
      `same: ${num(backlog)} queries queued at the trigger's end drain at the spare 1,000 − 700 = 300/s (note b)`,
    ],
    [
      'callee protection only',
      'recovers; p99 during 1,046 ms',
      `recovery ${seconds(callee.recoverySeconds)}; p99 during ${num(callee.p99Ms.during ?? 0)} ms`,
      'same: it is the same configuration as good minus the budget, in the seed (1,046 ms twice) and here',
    ],
    [
      'budget on (amplification 1.00), queue limit and deadline drop both off',
      'success in 65–80 s only 35.2 %',
      `\`budget-only\`: ${pct(rate(budgetOnly, 'after'))} in 65–80 s (amplification ${num(amp(budgetOnly, MEMBER, 'total'), 2)})`,
      "differs: the seed's two figures for this configuration contradict each other (note b)",
    ],
    [
      'mutation testing: with the queue limit on, the deadline drop never acts',
      '3 of 7 mutants survived until a test switched one layer off',
      `\`good-no-deadline-drop\` = \`good\`: success ${['before', 'during', 'after'].map((w) => pct(rate(noDrop, w))).join(' / ')}, wasted ${pct(noDrop.wastedWorkFraction)}`,
      'same lesson: the queue limit keeps waits ≤ 200/300 s ≈ 0.67 s < 0.8 s, so removing the drop changes nothing measurable; `good-no-queue-limit` tests the drop alone',
    ],
  ];
  return `## 2. The seed's results beside Seawall's

The seed's table (\`../shared/docs/incident.md\`, from the Japanese original) and Seawall's figure (seed 1 unless
stated). incident.md warns that absolute figures (p99, waste, seconds at 0 %) depend on modelling details the seed
does not give; the shape — who recovers, who does not, and the amplification factors — must hold, and does.

${mdTable(['experiment', 'seed', 'Seawall', 'difference'], rows)}

**a. Good minus the queue limit.** Without the limit member-api's FIFO grows until requests expire at the 1.9 s
deadline (about ${num(noLimitQueue)} waiting on average in 55–65 s), so nearly every request it serves during the
failover has already waited past the BFF's 800 ms per-try timeout: the DB works, nobody is waiting, success
during is ${pct(rate(noLimit, 'during'))}. The deadline drop still caps the queue at 1.9 s of arrivals, so it is gone
${seconds(noLimit.recoverySeconds)} after the trigger. The queue limit is what makes a slow DB useful; the
deadline drop alone only bounds how long the damage lasts.

**b. Budget only: "19 s at 0 %" and "35.2 % in 65–80 s".** incident.md reads both as the same configuration
(\`budget-only\`). They cannot both hold with the same windows: 19 s at 0 % after the trigger means 0 % for all of
65–80 s. Seawall agrees with the first: member-api ends the trigger with ${num(backlog)} queries queued (~400/s more
than it could serve, for 15 s), which drain at the spare 300/s in about ${num(backlog / 300)} s; success stays below 5 %
for ${num(zero.afterS)} s after the trigger and the 65–80 s window gets ${pct(rate(budgetOnly, 'after'))}. The
35.2 % would need that backlog gone about 10 s after the trigger.`;
}

/** Section 3: member-api attempts per user request when every request fails at once. */
export function totalFailure(r: Results, claims: Claims): string {
  const expected: Record<string, string> = {
    bad: '16 (4 × 4)',
    'a-jitter': '≈ 16',
    'b-bff-only': '4 (4 × 1)',
    good: '< 1.1',
    'good-no-budget': '3 (3 × 1)',
    'one-layer-jitter-deadline-header': '3',
    'callee-protection-only': '3',
    'c-circuit-breaker': '≈ 0 (open: one probe, 4 attempts, every 5 s)',
  };
  const before = (variant: string) => runsOf(r.totalFailure, variant).map((x) => amp(x, MEMBER, 'before'));
  const within = (variant: string, target: number, tolerance: number) =>
    before(variant).every((v) => Math.abs(v / target - 1) <= tolerance);
  claims.check(within('bad', 16, 0.005), 'total failure: bad 16 ± 0.5 %');
  claims.check(within('b-bff-only', 4, 0.005), 'total failure: b-bff-only 4 ± 0.5 %');
  claims.check(within('a-jitter', 16, 0.02), 'total failure: a-jitter ≈ 16');
  claims.check(
    runsOf(r.totalFailure, 'good').every((x) => amp(x, MEMBER, 'total') < 1.1),
    'total failure: good < 1.1',
  );
  const rows = variantsOf(r.totalFailure).map((variant) => {
    const run = runOf(r.totalFailure, variant);
    return [
      `\`${variant}\``,
      num(amp(run, MEMBER, 'before'), 3),
      range(before(variant), (v) => num(v, 3)),
      num(amp(run, MEMBER, 'total'), 3),
      expected[variant] ?? '≈ 1 (budget)',
    ];
  });
  return `## 3. Counting: \`checkout-total-failure\`

member-api answers every request with an immediate 503 for the whole run
(\`npx seawall simulate checkout-total-failure --seeds 1,2,3\`). Attempts at member-api per user request:

${mdTable(['variant', 'before window, seed 1', 'seeds 1–3', 'whole run, seed 1', 'expected'], rows, [1, 2, 3])}

The window figure is the steady state. The whole-run figure of \`a-jitter\` is a little lower only because users
who arrive in the last seconds have not made all their jittered attempts when the run ends at 120 s.`;
}

/** Section 4: checkout-normal, no trigger. */
export function normalDay(normal: SimulationResult, claims: Claims): string {
  const rows = variantsOf(normal).map((variant) => {
    const run = runOf(normal, variant);
    const lowest = Math.min(
      ...runsOf(normal, variant).flatMap((x) => ['before', 'during', 'after'].map((w) => rate(x, w))),
    );
    return [
      `\`${variant}\``,
      ...['before', 'during', 'after'].map((w) => pct(rate(run, w), 2)),
      num(run.p99Ms.during ?? Number.NaN),
      num(amp(run, MEMBER, 'total'), 3),
      pct(lowest, 2),
    ];
  });
  const goodLowest = Math.min(...runsOf(normal, 'good').map((x) => Math.min(rate(x, 'before'), rate(x, 'after'))));
  claims.check(goodLowest >= 0.999, 'normal day: good ≥ 99.9 %');
  return `## 4. A normal day: \`checkout-normal\`

No trigger, only member-api's 1 % transient 503s (\`npx seawall simulate checkout-normal --seeds 1,2,3\`). The
"during" window is the same 50–65 s, with nothing happening in it. There is no trigger, so no recovery time.

${mdTable(
  [
    'variant',
    'success before',
    'during',
    'after',
    'p99 during (ms)',
    'member-api attempts / user',
    'lowest window, seeds 1–3',
  ],
  rows,
  [1, 2, 3, 4, 5, 6],
)}

Every variant absorbs 1 % failures: a retry succeeds 99 % of the time, and a 10 % token bucket stays full while
failures are under 9.1 % of attempts (section 5). \`good\` costs 1 % more queries than the user traffic, as
\`bad\` does: on a healthy day the budget and the retries are invisible.`;
}
