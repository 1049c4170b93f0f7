// Benchmark harness: times batched operations with tinybench and prints ns/op side by side with a baseline.
import { Bench } from 'tinybench';

export interface BenchCase {
  name: string;
  /** Runs `batch` operations. */
  run(batch: number): void;
  /** Name of the baseline case it is compared with (in the same suite), if any. */
  baseline?: string;
}

export interface BenchRow {
  suite: string;
  name: string;
  nsPerOp: number;
  /** ± relative margin of error of the batch latency, in percent. */
  rmePercent: number;
  /** This case's time per op divided by its baseline's (1.00 = as fast). */
  vsBaseline: number | null;
}

const BATCH = 1000;

/** Measures each case for `timeMs` (after warm-up) and returns one row per case. */
export async function measure(suite: string, cases: BenchCase[], timeMs = 500): Promise<BenchRow[]> {
  const bench = new Bench({ time: timeMs, warmupTime: 100 });
  for (const c of cases) bench.add(c.name, () => c.run(BATCH));
  await bench.run();
  const nsPerOp = new Map<string, { ns: number; rme: number }>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (!result || !('latency' in result)) throw new Error(`benchmark ${task.name} failed`);
    nsPerOp.set(task.name, { ns: (result.latency.mean * 1e6) / BATCH, rme: result.latency.rme });
  }
  return cases.map((c) => {
    const own = nsPerOp.get(c.name) as { ns: number; rme: number };
    const base = c.baseline ? nsPerOp.get(c.baseline) : undefined;
    return {
      suite,
      name: c.name,
      nsPerOp: own.ns,
      rmePercent: own.rme,
      vsBaseline: base ? own.ns / base.ns : null,
    };
  });
}

/** The q-quantile of `values` (linear interpolation between order statistics). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

/** Prints rows as an aligned table. */
export function printRows(rows: BenchRow[]): void {
  const lines = rows.map((r) => [
    r.suite,
    r.name,
    r.nsPerOp.toFixed(1),
    `±${r.rmePercent.toFixed(1)}%`,
    r.vsBaseline === null ? '' : `${r.vsBaseline.toFixed(2)}x`,
  ]);
  const header = ['suite', 'case', 'ns/op', 'rme', 'vs baseline'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
}
