// --out DIR: writes summary.json, timeseries.csv and report.html for one simulation result.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timeseriesCsv } from '../report/csv.js';
import { type HtmlReportOptions, renderReportHtml } from '../report/html.js';
import { type SimulationResult, summaryJson } from '../report/result.js';

export const REPORT_FILES = ['summary.json', 'timeseries.csv', 'report.html'] as const;

/** Creates `dir` if needed and writes the three report files; returns their paths. */
export function writeReportFiles(dir: string, result: SimulationResult, options: HtmlReportOptions): string[] {
  mkdirSync(dir, { recursive: true });
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'summary.json': summaryJson(result),
    'timeseries.csv': timeseriesCsv(result),
    'report.html': renderReportHtml(result, options),
  };
  return REPORT_FILES.map((name) => {
    const path = join(dir, name);
    writeFileSync(path, contents[name]);
    return path;
  });
}
