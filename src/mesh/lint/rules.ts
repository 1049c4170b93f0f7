// `seawall lint`: worst-case amplification along every call path and the retry settings that cause storms.

import { type BudgetConfig, DEFAULT_BUDGET_PERCENT, DEFAULT_MIN_RETRY_CONCURRENCY } from '../../policy/retry/budget.js';
import { REPLAY_SAFE_5XX } from '../../policy/retry/classify.js';
import { resolveDepositBucket } from '../../policy/retry/deposit-bucket.js';
import { DEFAULT_RETRY_RATIO } from '../../policy/retry/ratio-budget.js';
import { retriesAtOneLayer } from '../../policy/retry/retry-call.js';
import { type ResolvedRetryConfig, validateRetryConfig } from '../../policy/retry/retry-config.js';
import { callDeadlineMs, effectiveAttempts } from '../../policy/retry/retry-facts.js';
import { validateConcurrencyBreakerConfig } from '../../policy/upstream/concurrency.js';
import { ENVOY_MAX_EJECTION_PERCENT, UINT32_MAX } from '../envoy/defaults.js';
import { MeshError } from '../errors.js';
import type { LintEdge, LintModel } from './model.js';

export type Severity = 'error' | 'warning';

export interface Finding {
  severity: Severity;
  rule: 'amplification' | 'nested-retries' | 'timeouts' | 'non-idempotent' | 'no-budget' | 'ejection-limit';
  /** file, variant and edge (or service) it is about. */
  file: string;
  variant: string | null;
  where: string;
  message: string;
  fix: string;
}

export interface LintReport {
  file: string;
  variant: string | null;
  /** Worst-case attempts per user request at each service (entries are 1). */
  amplification: Record<string, number>;
  findings: Finding[];
}

/** Above this many attempts per user request at one service, lint fails (more than one layer of 3 attempts). */
export const AMPLIFICATION_ERROR = 3;
/** Above this, a warning. */
export const AMPLIFICATION_WARNING = 2;
const MAX_PATH_STEPS = 200_000;

interface Resolved {
  edge: LintEdge;
  config: ResolvedRetryConfig | null;
  /** Attempts one call may make when it retries (1 for a call that never retries). */
  attempts: number;
  /** Budget share B: a budgeted layer sends at most 1 + B attempts per call under load; null without a budget. */
  budget: number | null;
  /** A percent budget's min_retry_concurrency when ≥ 1 (it admits that many retries at once at any load); else null. */
  floor: { minConcurrency: number; percent: number } | null;
}

/**
 * The floor of a percent budget (Envoy's retry_budget, Seawall's percent budget, limits.retryBudget): retries in flight
 * may reach max(percent × requests in flight, min_retry_concurrency), so with few requests in flight the budget does
 * not bind and every retry passes.
 */
export function budgetFloor(budget: BudgetConfig | null, limits: unknown): Resolved['floor'] {
  let percent: number;
  let minConcurrency: number;
  if (budget !== null && budget.kind !== 'none') {
    if (budget.kind !== 'percent') return null;
    percent = budget.percent ?? DEFAULT_BUDGET_PERCENT;
    minConcurrency = budget.minConcurrency ?? DEFAULT_MIN_RETRY_CONCURRENCY;
  } else {
    const resolved = limits === undefined ? undefined : validateConcurrencyBreakerConfig(limits, '', []);
    if (!resolved?.retryBudget) return null;
    ({ percent, minConcurrency } = resolved.retryBudget);
  }
  return minConcurrency >= 1 ? { minConcurrency, percent } : null;
}

/**
 * B of a budget: token bucket tokenRatio (gRPC A6), Envoy percent / 100, ratio budget's ratio, a deposit bucket's
 * deposit / cost. A rate budget caps retries a second, not a share of calls: it is not analysed here, and counts as
 * a budget that lets every attempt through (Infinity), the worst case at low traffic.
 */
export function budgetShare(budget: BudgetConfig | null, limits: unknown): number | null {
  if (budget !== null && budget.kind !== 'none') {
    if (budget.kind === 'token-bucket') return budget.tokenRatio;
    // @ko lint-deposit-bucket-share
    if (budget.kind === 'deposit-bucket') {
      const { deposit, cost } = resolveDepositBucket(budget);
      return deposit / cost;
    }
    if (budget.kind === 'rate') return Number.POSITIVE_INFINITY;
    if (budget.kind === 'percent') return (budget.percent ?? DEFAULT_BUDGET_PERCENT) / 100;
    return budget.ratio ?? DEFAULT_RETRY_RATIO;
  }
  const resolved = limits === undefined ? undefined : validateConcurrencyBreakerConfig(limits, '', []);
  return resolved?.retryBudget ? resolved.retryBudget.percent / 100 : null;
}

function resolveEdge(edge: LintEdge): Resolved {
  if (edge.retry === null) return { edge, config: null, attempts: 1, budget: null, floor: null };
  const config = validateRetryConfig(edge.retry).config ?? null;
  if (config === null) throw new MeshError([`${edge.path}: not a valid retry policy`]);
  return {
    edge,
    config,
    attempts: effectiveAttempts(config),
    budget: budgetShare(config.budget, edge.limits),
    floor: budgetFloor(config.budget, edge.limits),
  };
}

/**
 * Attempts per call on this edge, given whether the caller is handling a request from another Seawall hop: the worst
 * case, and under load (where a budget binds).
 */
function factor(r: Resolved, fromSeawallHop: boolean): { worst: number; load: number } {
  const e = r.edge;
  // The one-layer rule (docs/hops.md): a Seawall call inside a request from a Seawall hop tries once.
  if (e.seawall && retriesAtOneLayer(fromSeawallHop, e.oneLayer, e.ownership)) return { worst: 1, load: 1 };
  if (r.attempts <= 1) return { worst: 1, load: 1 };
  const load = r.budget === null ? r.attempts : Math.min(r.attempts, 1 + r.budget);
  // A percent budget's min_retry_concurrency admits that many retries at once however few requests are in flight:
  // with that few in flight every retry passes, so the worst case is the attempts themselves.
  // @ko lint-budget-floor-worst-case
  return { worst: r.floor === null ? load : r.attempts, load };
}

/** Where a percent budget does not bind: "below 15 requests in flight (3 ÷ 20 %) it still admits 3 retries at once". */
function floorText(floor: NonNullable<Resolved['floor']>): string {
  const { minConcurrency: min, percent } = floor;
  const where =
    percent <= 0
      ? `at ${fmt(percent)} %`
      : `below ${fmt(min / (percent / 100))} requests in flight (${min} ÷ ${fmt(percent)} %)`;
  return `${where} it still admits ${min} retries at once, so with ${min} or fewer in flight every retry passes`;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0+$/, '');
}

interface Step {
  edge: Resolved;
  factor: number;
  /** The factor under load, where every budget binds. */
  load: number;
}

/** Lints one variant (or one mesh file). */
export function lintModel(model: LintModel): LintReport {
  const findings: Finding[] = [];
  const add = (severity: Severity, rule: Finding['rule'], where: string, message: string, fix: string) =>
    findings.push({ severity, rule, file: model.file, variant: model.variant, where, message, fix });
  const seawall = new Map(model.services.map((s) => [s.name, s.seawall]));
  const resolved = new Map<string, Resolved[]>();
  for (const edge of model.edges) resolved.set(edge.from, [...(resolved.get(edge.from) ?? []), resolveEdge(edge)]);

  // Every call path from every entry: attempts multiply along it; the sum over paths is what arrives at a service.
  const amplification: Record<string, number> = {};
  const worstPath = new Map<string, { total: number; steps: Step[] }>();
  const nested = new Map<string, { outer: Step; inner: Step }>();
  let steps = 0;
  for (const entry of model.entries) {
    const totals = new Map<string, number>([[entry, 1]]);
    const walk = (service: string, fromSeawallHop: boolean, product: number, path: Step[], onPath: Set<string>) => {
      for (const r of resolved.get(service) ?? []) {
        if (++steps > MAX_PATH_STEPS)
          throw new MeshError([`${model.file}: more than ${MAX_PATH_STEPS} call-path steps; too many paths to lint`]);
        if (onPath.has(r.edge.to)) continue;
        const { worst: f, load } = factor(r, fromSeawallHop);
        // @ko lint-amplification-multiplies
        const total = product * f;
        const step = { edge: r, factor: f, load };
        const next = [...path, step];
        totals.set(r.edge.to, (totals.get(r.edge.to) ?? 0) + total);
        const best = worstPath.get(r.edge.to);
        if (best === undefined || total > best.total) worstPath.set(r.edge.to, { total, steps: next });
        if (f > 1) {
          const outer = path.find((s) => s.factor > 1);
          if (outer !== undefined) nested.set(`${outer.edge.edge.path}|${r.edge.path}`, { outer, inner: step });
        }
        const arrivesFromSeawall = r.edge.seawall && (seawall.get(r.edge.to) ?? true);
        walk(r.edge.to, arrivesFromSeawall, total, next, new Set([...onPath, r.edge.to]));
      }
    };
    walk(entry, false, 1, [], new Set([entry]));
    for (const [service, total] of totals) amplification[service] = Math.max(amplification[service] ?? 0, total);
  }
  for (const service of Object.keys(amplification).sort()) {
    const total = amplification[service] as number;
    const path = worstPath.get(service);
    if (path === undefined || total <= AMPLIFICATION_WARNING) continue;
    const chain = path.steps.map((s) => `${s.edge.edge.from} -> ${s.edge.edge.to} ${fmt(s.factor)}`).join(' × ');
    const last = path.steps[path.steps.length - 1] as Step;
    const floors = [
      ...new Set(
        path.steps
          .filter((s) => s.edge.floor !== null && s.factor > s.load)
          .map((s) => floorText(s.edge.floor as never)),
      ),
    ];
    const underLoad = path.steps.reduce((x, s) => x * s.load, 1);
    const budgetNote =
      floors.length === 0
        ? ''
        : `; the retry budget does not cap that: ${floors.join('; ')}; ${fmt(underLoad)}× under load`;
    add(
      total > AMPLIFICATION_ERROR ? 'error' : 'warning',
      'amplification',
      last.edge.edge.path,
      `${service} gets ${fmt(total)}× attempts per user request in the worst case (${chain})${budgetNote}`,
      'retry at one layer (a Seawall hop below another makes one attempt; in a mesh, retries only at the edge) and give that layer a budget (token-bucket 10 / 0.1, or Envoy retry_budget)',
    );
  }
  for (const { outer, inner } of [...nested.values()].sort((a, b) =>
    a.inner.edge.edge.path < b.inner.edge.edge.path ? -1 : 1,
  )) {
    const bothUnbudgeted = outer.edge.budget === null && inner.edge.budget === null;
    add(
      bothUnbudgeted ? 'error' : 'warning',
      'nested-retries',
      inner.edge.edge.path,
      `${inner.edge.edge.from} -> ${inner.edge.edge.to} retries (${fmt(inner.factor)}) below ${outer.edge.edge.from} -> ${outer.edge.edge.to}, which retries too (${fmt(outer.factor)}): attempts multiply`,
      `retry at one layer: maxAttempts: 1 on ${inner.edge.edge.from} -> ${inner.edge.edge.to} (or make it a Seawall hop: the one-layer rule), keep the retries and the budget at ${outer.edge.edge.from} -> ${outer.edge.edge.to}`,
    );
  }
  const reachedOnce = new Map<string, boolean>();
  for (const [key, { steps: p }] of worstPath) reachedOnce.set(key, p.length > 0);
  for (const list of resolved.values()) {
    for (const r of list) {
      const c = r.config;
      const e = r.edge;
      if (c === null || r.attempts <= 1) continue;
      // An edge whose every request is under the one-layer rule never retries: nothing below applies.
      if (!edgeRetries(e, model, seawall)) continue;
      const tries = c.maxAttempts;
      const deadlineMs = callDeadlineMs(c);
      if (!Number.isFinite(c.perTryTimeoutMs)) {
        add(
          'warning',
          'timeouts',
          e.path,
          `retries without a per-try timeout: the first attempt can use up the whole ${deadlineMs === null ? 'call' : `${fmt(deadlineMs)} ms deadline`} and leave no time to retry`,
          `set perTryTimeout (Envoy per_try_timeout, Istio perTryTimeout) so that perTryTimeout × ${tries} ≤ the overall timeout`,
        );
      } else if (deadlineMs === null) {
        add(
          'warning',
          'timeouts',
          e.path,
          `no overall timeout: ${tries} attempts of ${fmt(c.perTryTimeoutMs)} ms can keep a caller waiting ${fmt(tries * c.perTryTimeoutMs)} ms plus back-off, long after its user left`,
          `set a deadline (Envoy route timeout, Istio http timeout) of at least perTryTimeout × ${tries} = ${fmt(tries * c.perTryTimeoutMs)} ms, and no longer than the user waits`,
        );
      } else if (c.perTryTimeoutMs * tries > deadlineMs) {
        add(
          'warning',
          'timeouts',
          e.path,
          `perTryTimeout × attempts = ${fmt(c.perTryTimeoutMs)} ms × ${tries} = ${fmt(c.perTryTimeoutMs * tries)} ms is longer than the ${fmt(deadlineMs)} ms deadline: later attempts get only what is left (the seed's rule: timeout ≥ per_try × (retries + 1))`,
          `perTryTimeout ≤ ${fmt(Math.floor(deadlineMs / tries))} ms, or a deadline ≥ ${fmt(c.perTryTimeoutMs * tries)} ms, or fewer attempts`,
        );
      }
      if (e.unsafeReplay === 'explicit') {
        add(
          'error',
          'non-idempotent',
          e.path,
          'retries non-idempotent requests (POST, PATCH) on 5xx, resets or timeouts: the server may have done the work, a retry does it twice (double payment)',
          `retry writes only on connect-failure, refused-stream/reset-before-request, 429, ${REPLAY_SAFE_5XX.join(', ')} (Seawall does this by itself), or send an idempotency key; drop retryNonIdempotent`,
        );
      } else if (e.unsafeReplay === 'all-methods') {
        add(
          'warning',
          'non-idempotent',
          e.path,
          'the route carries every method and retries on 5xx, resets or timeouts: a POST that timed out is replayed (Envoy does not look at the method)',
          'split the route: retries on 5xx/timeouts only for GET, HEAD, PUT, DELETE (a :method match); writes only on connect-failure, refused-stream, 503',
        );
      }
      const limits = e.limits === undefined ? undefined : validateConcurrencyBreakerConfig(e.limits, '', []);
      const capped = limits !== undefined && (limits.retryBudget !== null || limits.maxRetries < UINT32_MAX);
      if (r.budget === null && !capped) {
        add(
          'warning',
          'no-budget',
          e.path,
          `${tries} attempts with no retry budget and no max_retries: when ${e.to} slows down, every call becomes ${tries}`,
          'add a budget (budget: { kind: token-bucket, maxTokens: 10, tokenRatio: 0.1 }; Envoy circuit_breakers.thresholds.retry_budget; Istio trafficPolicy.retryBudget) or at least max_retries',
        );
      }
    }
  }
  for (const e of model.edges) {
    if (e.outlierDetection === undefined) continue;
    const percent = (e.outlierDetection as { maxEjectionPercent?: unknown }).maxEjectionPercent;
    if (percent === undefined) {
      add(
        'warning',
        'ejection-limit',
        e.path,
        `outlier detection without maxEjectionPercent: Envoy's default ${ENVOY_MAX_EJECTION_PERCENT} % ejects nothing in a pool under ${100 / ENVOY_MAX_EJECTION_PERCENT} hosts, and the limit is the only guard against a shared-DB outage ejecting everyone`,
        'set maxEjectionPercent (Envoy max_ejection_percent, Istio maxEjectionPercent) explicitly, at most 50',
      );
    } else if (typeof percent === 'number' && percent > 50) {
      add(
        'error',
        'ejection-limit',
        e.path,
        `maxEjectionPercent ${percent} % lets outlier detection eject more than half the hosts: when a shared dependency fails every host looks like an outlier and the service stops`,
        "maxEjectionPercent: 50 (the seed's setting): half the hosts keep serving what they can",
      );
    }
  }
  findings.sort((a, b) =>
    a.severity !== b.severity
      ? a.severity === 'error'
        ? -1
        : 1
      : a.where < b.where
        ? -1
        : a.where > b.where
          ? 1
          : a.rule < b.rule
            ? -1
            : a.rule > b.rule
              ? 1
              : 0,
  );
  const rounded: Record<string, number> = {};
  for (const k of Object.keys(amplification).sort())
    rounded[k] = Math.round((amplification[k] as number) * 1000) / 1000;
  return { file: model.file, variant: model.variant, amplification: rounded, findings };
}

/** Does some request make this edge retry (is it ever called outside the one-layer rule)? */
function edgeRetries(e: LintEdge, model: LintModel, seawall: Map<string, boolean>): boolean {
  if (!(e.seawall && retriesAtOneLayer(true, e.oneLayer, e.ownership))) return true;
  if (model.entries.includes(e.from)) return true;
  const inbound = model.edges.filter((x) => x.to === e.from);
  return inbound.some((x) => !(x.seawall && (seawall.get(e.from) ?? true)));
}
