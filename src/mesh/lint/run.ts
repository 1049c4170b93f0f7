// Lint of a file: a scenario (every variant, or one) or a mesh config (imported first); text and JSON output.

import { existsSync } from 'node:fs';
import { listBuiltinScenarios } from '../../sim/scenario/load.js';
import { isPlainObject } from '../../sim/scenario/merge.js';
import { readBoundedFile } from '../bounds.js';
import { MeshError } from '../errors.js';
import { readMeshText } from '../import.js';
import { readScenarioView } from '../scenario-read.js';
import { parseYamlDocuments } from '../yaml-io.js';
import { fromMesh, fromScenario } from './model.js';
import { type LintReport, lintModel } from './rules.js';

const SCENARIO_KEYS = ['services', 'traffic', 'extends', 'variants'];

/** Is `target` a scenario (a built-in name, or one YAML mapping with scenario keys), rather than a mesh config? */
export function isScenarioTarget(target: string): boolean {
  if (!/[/\\]/.test(target) && !/\.ya?ml$/i.test(target) && listBuiltinScenarios().includes(target)) return true;
  if (!existsSync(target)) throw new MeshError([`${target}: no such file or built-in scenario`]);
  const docs = parseYamlDocuments(readBoundedFile(target), target);
  const first = docs[0]?.value;
  return docs.length === 1 && isPlainObject(first) && !('apiVersion' in first) && SCENARIO_KEYS.some((k) => k in first);
}

export async function lintTarget(
  target: string,
  options: { variant?: string; maps?: readonly string[] } = {},
): Promise<LintReport[]> {
  if (isScenarioTarget(target)) {
    const view = readScenarioView(target);
    const variants =
      options.variant === undefined ? view.variants : view.variants.filter((v) => v.name === options.variant);
    if (variants.length === 0) {
      throw new MeshError([
        `${target}: no variant named ${options.variant} (known: ${view.variants.map((v) => v.name).join(', ')})`,
      ]);
    }
    return variants.map((v) => lintModel(fromScenario(view, v)));
  }
  if (options.variant !== undefined)
    throw new MeshError([`${target}: --variant is for scenarios; a mesh config has none`]);
  const read = await readMeshText(readBoundedFile(target), target, options.maps ?? []);
  return [lintModel(fromMesh(read))];
}

function label(r: LintReport): string {
  return r.variant === null ? r.file : `${r.file} [${r.variant}]`;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

/** One line per finding (`file: variants.v.where: severity [rule] message; fix: ...`), a summary per variant, totals. */
export function formatLint(reports: readonly LintReport[]): string {
  const lines: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const r of reports) {
    const amp = Object.entries(r.amplification)
      .map(([s, x]) => `${s} ${fmt(x)}×`)
      .join(', ');
    lines.push(`${label(r)}: worst-case attempts per user request: ${amp === '' ? '(no traffic entry)' : amp}`);
    for (const f of r.findings) {
      if (f.severity === 'error') errors++;
      else warnings++;
      const where = `${f.variant === null ? '' : `variants.${f.variant}.`}${f.where}`;
      lines.push(`${f.file}: ${where}: ${f.severity} [${f.rule}] ${f.message}; fix: ${f.fix}`);
    }
  }
  lines.push(`${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  return `${lines.join('\n')}\n`;
}

export function lintJson(reports: readonly LintReport[]): string {
  const findings = reports.flatMap((r) => r.findings);
  return `${JSON.stringify(
    {
      reports,
      errors: findings.filter((f) => f.severity === 'error').length,
      warnings: findings.filter((f) => f.severity === 'warning').length,
    },
    null,
    2,
  )}\n`;
}

export function hasErrors(reports: readonly LintReport[]): boolean {
  return reports.some((r) => r.findings.some((f) => f.severity === 'error'));
}
