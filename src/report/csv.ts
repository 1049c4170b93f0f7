// timeseries.csv: one header row, then one row per variant × seed × 1 s bin × service (RFC 4180 quoting).
import type { SimulationResult, TimeseriesRow } from './result.js';

/** The CSV columns, in order; each is the TimeseriesRow field of the same name. */
export const TIMESERIES_COLUMNS = [
  'variant',
  'seed',
  't',
  'service',
  'arrivals',
  'successRate',
  'goodput',
  'queueLength',
  'inFlight',
  'wasted',
  'budgetTokens',
] as const satisfies readonly (keyof TimeseriesRow)[];

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field: null and non-finite numbers are empty; text with a comma, quote or line break is quoted. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvLine(values: readonly (string | number | null | undefined)[]): string {
  return values.map(csvField).join(',');
}

/** The whole timeseries.csv text (lines end in "\n", including the last). */
export function timeseriesCsv(result: Pick<SimulationResult, 'timeseries'>): string {
  const lines = [csvLine(TIMESERIES_COLUMNS)];
  for (const row of result.timeseries) lines.push(csvLine(TIMESERIES_COLUMNS.map((column) => row[column])));
  return `${lines.join('\n')}\n`;
}
