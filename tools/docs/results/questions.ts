// Sections 5-8 of docs/results.md: the seed's open questions (fast errors, budget ratio, many clients), queueing, gaps.

import type { SimulationResult } from '../../../src/sim/index.js';
import {
  amp,
  type Claims,
  FAST_ERROR_BASES,
  FAST_ERROR_SWEEPS,
  type FastErrorSweep,
  MANY_INSTANCES,
  mdTable,
  meanAndStandardError,
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
  sweepName,
  times,
  variantsOf,
} from './format.js';

const MEMBER = 'member-api';
const BFF_CALLEE = 'coupon-api';
const RATIOS = [0.05, 0.1, 0.2];

/** "100.0 % · 1.12× · 230 ms", plus the verdict when the run never recovers or the seeds disagree. */
function sweepCell(result: SimulationResult, variant: string): string {
  const run = runOf(result, variant);
  const parts = [pct(rate(run, 'during')), times(amp(run, MEMBER, 'during')), `${num(run.p99Ms.during ?? 0)} ms`];
  if (!seedsAgree(result, variant)) parts.push(`**seeds split**: ${recoveryVerdict(result, variant)}`);
  else if (run.recoverySeconds === null) parts.push('**never recovers**');
  return parts.join(' · ');
}

function sweepTable(r: Results, sweep: FastErrorSweep): string {
  const rows = sweep.errorRates.map((errorRate) => [
    pct(errorRate, 0),
    ...FAST_ERROR_BASES.map((base) => sweepCell(r.sweep, sweepName(base, sweep, errorRate))),
  ]);
  return mdTable(['500s', ...FAST_ERROR_BASES.map((b) => `\`${b}\``)], rows);
}

/** Does the budget variant keep at least half of what unlimited retries add over no retries? */
function absorbs(r: Results, sweep: FastErrorSweep, ratio: number, errorRate: number): boolean {
  const during = (base: string) => rate(runOf(r.sweep, sweepName(base, sweep, errorRate)), 'during');
  const none = during('no-retries');
  return during(`budget-${Math.round(ratio * 100)}`) - none >= 0.5 * (during('bad') - none);
}

/** Section 5: the fast-error trigger and the budget ratio. */
export function fastErrors(r: Results, claims: Claims): string {
  const fe = r.fastErrors;
  const builtIn = variantsOf(fe).map((variant) => {
    const run = runOf(fe, variant);
    return [
      `\`${variant}\``,
      ...['before', 'during', 'after'].map((w) => pct(rate(run, w))),
      times(amp(run, MEMBER, 'during')),
      num(run.p99Ms.during ?? 0),
      recoveryVerdict(fe, variant),
    ];
  });
  const [free, costly, peak] = FAST_ERROR_SWEEPS as [FastErrorSweep, FastErrorSweep, FastErrorSweep];
  const cell = (base: string, sweep: FastErrorSweep, errorRate: number) =>
    runOf(r.sweep, sweepName(base, sweep, errorRate));
  const ratioRows = RATIOS.map((ratio) => {
    const absorbed = free.errorRates.filter((e) => absorbs(r, free, ratio, e));
    const stops = free.errorRates.find((e) => !absorbs(r, free, ratio, e));
    const highest = absorbed.at(-1);
    const load =
      highest === undefined
        ? null
        : amp(cell(`budget-${Math.round(ratio * 100)}`, free, highest), MEMBER, 'during') - 1;
    return [
      pct(ratio, 0),
      pct(ratio / (1 + ratio)),
      absorbed.length === 0 ? 'none swept' : `up to ${pct(highest ?? 0, 0)}`,
      stops === undefined ? '—' : pct(stops, 0),
      load === null ? '—' : `+${pct(load)} at ${pct(highest ?? 0, 0)}`,
    ];
  });
  const p99 = (base: string, sweep: FastErrorSweep, e: number) => cell(base, sweep, e).p99Ms.during ?? 0;
  const b10 = (e: number) => rate(cell('budget-10', free, e), 'during');
  const b20 = (e: number) => rate(cell('budget-20', free, e), 'during');
  claims.check(b20(0.1) > b10(0.1) + 0.05, 'fast errors: budget-20 absorbs 10 % failures, budget-10 does not');
  claims.check(
    p99('budget-20', peak, 0.15) > 2 * p99('budget-10', peak, 0.15),
    'peak: budget-20 queues, budget-10 not',
  );
  claims.check(cell('bad', peak, 0.15).recoverySeconds === null, 'peak: bad melts down at 15 %');
  claims.check(cell('bad', costly, 0.5).recoverySeconds === null, 'costly 50 %: bad melts down');
  claims.check(
    r.sweep.runs.filter((x) => x.variant.startsWith('budget-')).every((x) => x.recoverySeconds !== null),
    'every budget variant recovers in every sweep',
  );
  claims.check(cell('bad', free, 0.5).recoverySeconds !== null, 'free 50 %: bad recovers');
  const spreadOf = (v: string) => {
    const rates = runsOf(r.sweep, v).map((x) => rate(x, 'during'));
    return Math.max(...rates) - Math.min(...rates);
  };
  const meltsDown = (v: string) => runsOf(r.sweep, v).some((x) => x.recoverySeconds === null);
  const spread = Math.max(
    ...variantsOf(r.sweep)
      .filter((v) => !meltsDown(v))
      .map(spreadOf),
  );
  const meltdownSpread = Math.max(0, ...variantsOf(r.sweep).filter(meltsDown).map(spreadOf));
  const p99Range = (base: string, sweep: FastErrorSweep, e: number) =>
    range(
      runsOf(r.sweep, sweepName(base, sweep, e)).map((x) => x.p99Ms.during ?? 0),
      (v) => num(v),
    );
  const peak10 = Math.max(
    ...peak.errorRates.flatMap((e) => runsOf(r.sweep, sweepName('budget-10', peak, e)).map((x) => x.p99Ms.during ?? 0)),
  );
  return `## 5. Fast errors: which budget ratio?

The seed's open question: instead of a slow DB, 15 s (50–65 s) in which member-api answers a share of requests
with an immediate 500. While errors cost no work capacity is intact, so the queue limit and the deadline drop have
nothing to do; only a budget limits amplification. The \`budget-N\` variants are \`bad\` (two naive layers) with a gRPC-A6 token bucket
(10 tokens, ratio N %) at each caller. \`good\` does not retry a 500 at all (its \`retryOn\` is 429, 502, 503, 504
and timeouts), so it behaves like \`no-retries\` here.

**Do errors cost the callee work?** Both are modelled. In \`checkout-fast-errors\` a 500 costs no worker time
(\`cost: 0\`, a fast failure); the \`*-costly-errors\` variants and the "costly" sweep charge 50 ms of a DB
connection per 500, as a query that fails after doing its work.

### 5.1 The built-in scenario

\`npx seawall simulate checkout-fast-errors --seeds 1,2,3\` (seed 1; the last column gives each seed's verdict):

${mdTable(
  [
    'variant',
    'success before',
    'during',
    'after',
    'member-api attempts / user, during',
    'p99 during (ms)',
    'seeds 1 / 2 / 3',
  ],
  builtIn,
  [1, 2, 3, 4, 5],
)}

### 5.2 Sweep: failure rate × budget ratio

The built-in variants with only the fault's error rate, its cost and the traffic changed (built in
\`tools/docs/results/main.ts\`, not in a scenario file). Each cell: success during the trigger · member-api attempts per
user during it · p99 during. Seed 1. Across seeds 1–3 success during varies by at most ${num(spread * 100, 1)}
points in a cell that recovers; in the cells that never recover (on the edge of a meltdown, where a seed can melt
down a few seconds later) by up to ${num(meltdownSpread * 100, 1)} points, with the same verdict. A cell says so
where the seeds' verdicts differ. Every attempt also meets the baseline 1 % of 503s.

Errors free (cost 0), ${free.ratePerS} users/s (70 % utilisation):

${sweepTable(r, free)}

Errors cost 50 ms of a connection, ${costly.ratePerS} users/s:

${sweepTable(r, costly)}

Errors cost 50 ms, ${peak.ratePerS} users/s (a 90 % peak, e.g. the sale itself):

${sweepTable(r, peak)}

### 5.3 The trade-off and the answer

A token bucket with ratio r earns r per success and loses 1 per failed attempt, so it stays full while failures
are under r / (1 + r) of attempts; then it drains to half and retries stop. Below that point a retrying caller
adds f / (1 − f) attempts per request, at most r: **the ratio is both the failure rate at which retries stop and
the most extra load they may add, per retrying layer.** Measured (errors free, 700/s; "absorbs" = keeps at least half of what
unlimited retries add over none):

${mdTable(['ratio', 'stops at (theory)', 'absorbs (measured)', 'stops (measured)', 'extra load when absorbing'], ratioRows, [1])}

- With free errors retries cost nothing, so \`bad\` wins every cell (100 % at 50 % errors for
  ${times(amp(cell('bad', free, 0.5), MEMBER, 'during'))} the attempts) and every budget only gives up success.
- When errors cost work, unlimited retries are what turns a fast-error trigger into the incident: \`bad\` with
  50 % costly errors never recovers (${pct(rate(cell('bad', costly, 0.5), 'after'))} after), and at the 90 % peak
  it already melts down at 15 % (${pct(rate(cell('bad', peak, 0.15), 'after'))} after). Every budget variant
  recovers in every cell.
- 20 % absorbs a 10 % failure (${pct(b20(0.1))} vs ${pct(b10(0.1))} for 10 %), but at the 90 % peak its extra
  load lands on a nearly full DB: with 15 % costly errors p99 during rises to ${num(p99('budget-20', peak, 0.15))} ms
  (seeds 1–3: ${p99Range('budget-20', peak, 0.15)} ms; 10 %: ${p99Range('budget-10', peak, 0.15)} ms) — one step from
  \`bad\`'s meltdown in the same cell.
- 5 % stops retrying at a 5 % failure rate and saved no load anywhere 10 % did not.

**Answer: 10 %**, the seed's and gRPC's example, for this system: retries absorb failure rates up to 9 % (the 1 %
normal rate with room to spare) and add at most ~10 % load, which fits even at a 90 % peak (its p99 during stayed
at or below ${num(peak10)} ms in every peak cell and seed). Choose 20 % only for a
callee that keeps at least 20 % headroom at its peak. Whatever the ratio, the budget is what keeps a fast-error
trigger from sustaining itself once errors cost work.`;
}

/** Section 6: what per-instance budgets add up to. */
export function manyClients(r: Results, claims: Claims): string {
  type Row = { result: SimulationResult; variant: string; label: string; instances: number };
  const builtIn: Row[] = variantsOf(r.manyClients).map((variant) => ({
    result: r.manyClients,
    variant,
    label: `\`${variant}\``,
    instances: variant.endsWith('one-instance') ? 1 : 10,
  }));
  const scaled: Row[] = variantsOf(r.manyInstances).map((variant) => ({
    result: r.manyInstances,
    variant,
    label: `\`${variant}\` (×${MANY_INSTANCES}, derived)`,
    instances: MANY_INSTANCES,
  }));
  const rows = [...builtIn, ...scaled].map(({ result, variant, label, instances }) => {
    const run = runOf(result, variant);
    return [
      label,
      String(instances),
      num(amp(run, BFF_CALLEE, 'during'), 3),
      pct(rate(run, 'during')),
      pct(rate(run, 'after')),
      seconds(run.recoverySeconds),
      recoveryVerdict(result, variant),
    ];
  });
  const bffAmp = (result: SimulationResult, variant: string) => amp(runOf(result, variant), BFF_CALLEE, 'during');
  const percent1 = bffAmp(r.manyClients, 'percent-budget-only-one-instance');
  const percent10 = bffAmp(r.manyClients, 'percent-budget-only');
  const percent100 = bffAmp(r.manyInstances, 'percent-budget-only');
  const good100 = runOf(r.manyInstances, 'good');
  const users = runOf(r.manyInstances, 'good').userRequests / 120;
  const extra100 = (bffAmp(r.manyInstances, 'budget-only') - 1) * users * 15;
  const refilledAt = (result: SimulationResult, variant: string) => {
    const row = series(result, variant, 1, 'checkout-bff').find((x) => x.t >= 65 && (x.budgetTokens ?? 0) > 5);
    return row === undefined ? 'the end of the run' : `${num(row.t + 1)} s`;
  };
  const bffOne = series(r.manyClients, 'percent-budget-only-one-instance', 1, 'checkout-bff');
  const inFlight = meanPerS(bffOne, (row) => row.inFlight, 55, 65);
  claims.check(percent100 > percent10 + 0.2, 'percent budget: floors add up at 100 instances');
  claims.check(Math.abs(percent10 - percent1) < 0.05, 'percent budget: 1 and 10 instances alike');
  claims.check(
    runsOf(r.manyClients, 'percent-budget-only-one-instance').every((x) => x.recoverySeconds === null),
    'percent budget alone never recovers',
  );
  return `## 6. Many clients: per-instance budgets

\`npx seawall simulate checkout-many-clients --seeds 1,2,3\`: checkout-bff scaled out (round-robin), each instance
with its own budget, during the DB failover. The ×${MANY_INSTANCES} rows are the same variants with
${MANY_INSTANCES} instances (derived in \`tools/docs/results/main.ts\`). "BFF attempts / user" is attempts at coupon-api
per user request during the trigger: 1 + the retries the budgets let through.

${mdTable(
  ['variant', 'BFF instances', 'BFF attempts / user, during', 'success during', 'after', 'recovery', 'seeds 1 / 2 / 3'],
  rows,
  [1, 2, 3, 4],
)}

**Ten per-instance budgets add up to one**: with 10 instances the token buckets let through
${num(bffAmp(r.manyClients, 'good'), 3)} BFF attempts per user during the failover (one instance:
${num(bffAmp(r.manyClients, 'good-one-instance'), 3)}), and every verdict is the same. Differences appear at
${MANY_INSTANCES} instances:

- **Token bucket (gRPC A6).** It throttles by the ratio of failures, which does not change with the number of
  instances; what adds up is each bucket's start: N instances hold N × 5 retries before all of them reach half.
  With ${MANY_INSTANCES} instances that is ${num(MANY_INSTANCES * 5)} retries against ~${num(users * 15)} users in the
  15 s trigger (measured: ~${num(extra100)} extra attempts). The other cost is the refill: each of
  ${MANY_INSTANCES} instances sees ${num(users / MANY_INSTANCES)} users/s and earns 0.1 token per success, so the
  mean bucket is back above half only by ${refilledAt(r.manyInstances, 'good')} (10 instances: by
  ${refilledAt(r.manyClients, 'good')}; the trigger ends at 65 s); until then the 1 % transient failures go unretried and \`good\` gets
  ${pct(rate(good100, 'after'))} after the trigger instead of 100 %.
- **Percent budget (Envoy: 20 % of active requests, at least 3 retries per instance).** 1 and 10 instances allow the
  same ${times(percent1)} / ${times(percent10)}: 20 % of the ~${num(inFlight)} requests in flight at the BFF (55–65 s)
  is ~${num(inFlight * 0.2)} concurrent retries, more than 10 × 3. At ${MANY_INSTANCES} instances the floors add up
  to ${MANY_INSTANCES * 3} and attempts rise to ${times(percent100)}. Without callee protection this budget never
  recovers with any number of instances: it caps retries in flight, not the failure ratio, and in a meltdown every
  request stays in flight for its full timeout. Each proxy (or process) enforces its own budget, so a fleet adds up
  this way whatever the budget is configured on.`;
}

/** Section 7: queueing theory against the engine. */
export function queueing(r: Results, claims: Claims): string {
  const rows = r.queueing.map((check) => {
    const { mean, se } = meanAndStandardError(check.seeds);
    const show = (v: number) => (check.unit === 'ms' ? `${num(v, 3)} ms` : pct(v, 2));
    const z = se === 0 ? 0 : (mean - check.formula) / se;
    claims.check(Math.abs(z) < 4, `${check.scenario} ${check.variant} ${check.quantity}: within 4 SE`);
    return [
      `\`${check.scenario}\` ${check.variant}`,
      check.quantity,
      show(check.formula),
      check.seeds.map(show).join(' / '),
      show(mean),
      num(z, 1),
    ];
  });
  return `## 7. Queueing checks

The engine against closed formulas, over the steady window 20–300 s, seeds 1–3 (\`src/sim/queueing.test.ts\`
asserts the same with 6 seeds and a tolerance derived from run length). M/M/50 with exponential 50 ms service at
700/s and 900/s; M/M/10/20 with exponential 100 ms at 90/s and 120/s.

${mdTable(
  ['scenario', 'quantity', 'formula', 'seeds 1 / 2 / 3', 'mean', '(mean − formula) / standard error'],
  rows,
  [2, 3, 4, 5],
)}`;
}

/** Section 8: what the model leaves out. */
export function notModelled(): string {
  return `## 8. What is not modelled

- **Circuit breaker (proposal C)** is modelled since issue #12 (\`c-circuit-breaker\`, section 1), but only at the
  BFF with the policy's defaults; other settings and placements are not swept here.
- **Transport and runtime:** TCP (connection set-up, retransmission, head-of-line blocking), connection pools at
  the callers, GC pauses, CPU contention — checkout-bff and coupon-api have unlimited workers. The network is a
  constant 1 ms each way without loss.
- **Autoscaling and load balancing:** instance counts are fixed; traffic to several instances is round-robin (an
  edge's \`loadBalancer\` and \`outlierDetection\` are exercised by \`member-api-outliers\`, not here).
- **Users:** open-loop Poisson arrivals; a user who gives up does not reload the page (a real third retry layer).
- **The real incident's timeline:** 47 minutes, and the banner removal that ended it; the model stays down as long
  as arrivals continue (a \`surge\` fault below 1 could model the banner; not run here).
- **Writes:** simulated requests are idempotent GETs; POST retries need idempotency keys (out of scope here).
- **Cancellation:** every built-in runs without it (\`cancellation: false\`, as deployed); the option exists
  (\`docs/scenario-format.md\`) but no figure above uses it.`;
}
