// Several seeds of one variant as one figure: the mean and the spread (the largest distance of a seed from it).

/** Mean and spread of finite values: every value lies in [mean − spread, mean + spread]; null without any. */
export function meanSpread(values: readonly (number | null | undefined)[]): { mean: number; spread: number } | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, spread: Math.max(...xs.map((x) => Math.abs(x - mean))) };
}

/** "mean±spread" with `format` applied to both; "-" when there is nothing to average. */
export function formatMeanSpread(
  values: readonly (number | null | undefined)[],
  format: (x: number) => string,
): string {
  const stats = meanSpread(values);
  return stats === null ? '-' : `${format(stats.mean)}±${format(stats.spread)}`;
}
