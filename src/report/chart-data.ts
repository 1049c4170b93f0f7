// The data report.html's script draws from: series per seed × variant × service, groups, colours and chart specs.

import { recoveryOverSeeds } from '../sim/metrics/verdict.js';
import { type VariantGroup, variantGroups, variantStyles } from './groups.js';
import type { SimulationResult } from './result.js';
import { serviceNames, triggerInterval } from './result.js';

/** What the report needs from outside the result (the CLI passes what it knows of the scenario). */
export interface ChartHints {
  /** Intervals [startS, endS] to shade as the trigger when the result has no `during` window (e.g. fault intervals). */
  faultIntervals?: [number, number][];
  /** The deepest service (most calls away from the traffic); default: the last service. */
  focusService?: string;
  /** The variant shown beside the first one by default (topology, detail charts); default: the first that recovers. */
  selectedVariant?: string;
}

/** One detail chart: a field of one service's series, one line per shown variant. */
export interface ChartSpec {
  canvasId: string;
  title: string;
  service: string;
  field: 'arrivals' | 'queueLength';
  unit: string;
  yLabel: string;
}

/** The four charts of each group's row, all about the focus (deepest) service except success (the entry). */
export type GroupMetric = 'success' | 'load' | 'amplification' | 'wasted';
export const GROUP_METRICS: readonly GroupMetric[] = ['success', 'load', 'amplification', 'wasted'];

/** The JSON embedded in the page for the browser script: per-series arrays, not rows, to stay small. */
export interface ChartData {
  durationS: number;
  /** Width of a time-series bin, s (1 unless the rows say otherwise). */
  binS: number;
  tickStepS: number;
  /** Intervals shaded as the trigger, [startS, endS]. */
  triggers: [number, number][];
  seeds: number[];
  variants: string[];
  groups: VariantGroup[];
  styles: Record<string, { color: string; dash: number[] }>;
  /** The first variant (the base every other is compared with) and the one shown beside it by default. */
  baseVariant: string | null;
  selectedVariant: string | null;
  /** Per group: one canvas per metric. */
  groupCharts: { group: string; charts: { canvasId: string; metric: GroupMetric }[] }[];
  /** Load per service (and queues where one formed): base and selected variant by default, others on request. */
  charts: ChartSpec[];
  entryService: string | null;
  focusService: string | null;
  series: {
    seed: number;
    variant: string;
    service: string;
    t: number[];
    arrivals: number[];
    successRate: (number | null)[];
    queueLength: number[];
    wasted: number[];
  }[];
}

function tickStep(durationS: number): number {
  const candidates = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1800, 3600];
  return candidates.find((step) => durationS / step <= 14) ?? Math.ceil(durationS / 12);
}

/** The smallest gap between consecutive bins of any series (the bin width), or 1 s when no series has two bins. */
function binWidth(series: { t: number[] }[]): number {
  let width = Number.POSITIVE_INFINITY;
  for (const s of series)
    for (let i = 1; i < s.t.length; i++) width = Math.min(width, (s.t[i] ?? 0) - (s.t[i - 1] ?? 0));
  return Number.isFinite(width) && width > 0 ? width : 1;
}

/** Sorted, overlapping intervals merged: [[50, 65], [60, 70]] -> [[50, 70]]. */
export function mergeIntervals(intervals: readonly [number, number][]): [number, number][] {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/**
 * The variant compared with the base by default: the hint if it ran, else, of the others whose every seed recovered,
 * the one with the best mean success in the last window (`after` in the incident; first in run order on a tie).
 */
function pickSelected(result: SimulationResult, variants: string[], hint: string | undefined): string | null {
  if (hint !== undefined && variants.includes(hint)) return hint;
  const windows = Object.keys(result.windows);
  const last = windows.includes('after') ? 'after' : windows[windows.length - 1];
  let best: string | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const v of variants.slice(1)) {
    const runs = result.runs.filter((r) => r.variant === v);
    const verdict = recoveryOverSeeds(runs).verdict; // the one verdict: a variant some seed never recovers in is out
    if (runs.length === 0 || verdict === 'never' || verdict === 'some-seeds') continue;
    const score = runs.reduce((sum, r) => sum + (last === undefined ? 0 : (r.successRate[last] ?? 0)), 0) / runs.length;
    if (score > bestScore) {
      best = v;
      bestScore = score;
    }
  }
  return best ?? variants[1] ?? variants[0] ?? null;
}

/** Groups the time series by seed × variant × service and picks the charts to draw. */
export function buildChartData(result: SimulationResult, hints: ChartHints = {}): ChartData {
  const seeds = [...new Set(result.runs.map((r) => r.seed))];
  const groups = variantGroups(result);
  const variants = groups.flatMap((g) => g.variants);
  const services = serviceNames(result);
  const byKey = new Map<string, ChartData['series'][number]>();
  const entryServices = new Set<string>();
  const queued = new Set<string>();
  for (const row of result.timeseries) {
    const key = JSON.stringify([row.seed, row.variant, row.service]);
    let series = byKey.get(key);
    if (series === undefined) {
      series = {
        seed: row.seed,
        variant: row.variant,
        service: row.service,
        t: [],
        arrivals: [],
        successRate: [],
        queueLength: [],
        wasted: [],
      };
      byKey.set(key, series);
    }
    series.t.push(row.t);
    series.arrivals.push(row.arrivals);
    series.successRate.push(row.successRate);
    series.queueLength.push(row.queueLength);
    series.wasted.push(row.wasted);
    if (row.successRate !== null || row.goodput !== null) entryServices.add(row.service);
    if (row.queueLength > 0) queued.add(row.service);
  }
  const charts: ChartSpec[] = [
    ...services.map(
      (service, i): ChartSpec => ({
        canvasId: `chart-arrivals-${i}`,
        title: `Load at ${service} (attempts arriving per second)`,
        service,
        field: 'arrivals',
        unit: '/s',
        yLabel: 'attempts per s',
      }),
    ),
    ...services
      .filter((service) => queued.has(service))
      .map(
        (service, i): ChartSpec => ({
          canvasId: `chart-queue-${i}`,
          title: `Waiting queue at ${service} (requests)`,
          service,
          field: 'queueLength',
          unit: '',
          yLabel: 'queued requests',
        }),
      ),
  ];
  const during = triggerInterval(result);
  return {
    durationS: result.durationS,
    binS: binWidth([...byKey.values()]),
    tickStepS: tickStep(result.durationS),
    triggers: during ? [during] : mergeIntervals(hints.faultIntervals ?? []),
    seeds,
    variants,
    groups,
    styles: variantStyles(groups),
    baseVariant: variants[0] ?? null,
    selectedVariant: pickSelected(result, variants, hints.selectedVariant),
    groupCharts: groups.map((g, i) => ({
      group: g.name,
      charts: GROUP_METRICS.map((metric) => ({ canvasId: `group-${i}-${metric}`, metric })),
    })),
    charts,
    entryService: [...entryServices][0] ?? null,
    focusService:
      hints.focusService !== undefined && services.includes(hints.focusService)
        ? hints.focusService
        : (services[services.length - 1] ?? null),
    series: [...byKey.values()],
  };
}
