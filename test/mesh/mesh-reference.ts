// Where the public mesh reference material is (../shared/mesh-reference, never copied in), and what `mesh export` writes for every built-in variant.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExportedFile, type ExportFormat, exportScenario } from '../../src/mesh/export.js';
import { readScenarioView } from '../../src/mesh/scenario-read.js';
import { listBuiltinScenarios } from '../../src/sim/scenario/load.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The reference folder, relative to the repository root as the README of shared/mesh-reference says. */
export const REFERENCE_DIR = resolve(REPO_ROOT, '../shared/mesh-reference');

/** A path inside the reference folder; throws (so the test fails, never skips) when the folder or the file is missing. */
export function referencePath(...parts: string[]): string {
  if (!existsSync(REFERENCE_DIR))
    throw new Error(
      `the mesh reference material is missing: expected ${REFERENCE_DIR} (../shared/mesh-reference from the repository root); these tests check Seawall against it and cannot run without it`,
    );
  const path = join(REFERENCE_DIR, ...parts);
  if (!existsSync(path)) throw new Error(`the mesh reference material has no ${parts.join('/')} (in ${REFERENCE_DIR})`);
  return path;
}

/** The files of ../shared/mesh-reference/configs, sorted. */
export function referenceConfigs(): string[] {
  return readdirSync(referencePath('configs')).sort();
}

export type CrdRelease = 'v1.26.0' | 'v1.29.2' | 'master';

/** The Istio CRDs to check an export against, by the Istio floor it states: <= 1.26 -> 1.26.0, to 1.29 -> 1.29.2, later -> master. */
export function crdReleaseForFloor(floor: string): CrdRelease {
  const m = /^(\d+)\.(\d+)$/.exec(floor);
  if (m === null) throw new Error(`an Istio floor must be MAJOR.MINOR, got ${JSON.stringify(floor)}`);
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major !== 1) return 'master';
  if (minor <= 26) return 'v1.26.0';
  if (minor <= 29) return 'v1.29.2';
  return 'master';
}

/** Where the floor an Istio file states comes from: ExportResult.istioFloor, its header line, or the default 1.24. */
export type FloorSource = 'istioFloor' | 'header' | 'default';

/** The Istio floor of an export: `result.istioFloor` when set, else the header's "Needs Istio X.Y or later", else 1.24. */
export function statedFloor(result: object, text: string): { floor: string; from: FloorSource } {
  const field = (result as { istioFloor?: unknown }).istioFloor;
  if (typeof field === 'string') return { floor: field, from: 'istioFloor' };
  const line = /^#\s*Needs Istio (\d+\.\d+) or later/m.exec(text);
  if (line !== null) return { floor: line[1] as string, from: 'header' };
  return { floor: '1.24', from: 'default' };
}

export interface ExportCase {
  scenario: string;
  variant: string;
  file: ExportedFile;
  /** The whole ExportResult, for fields added later (istioFloor). */
  result: object;
}

/** Every variant of every built-in scenario, as `scenario [variant]`. */
export function builtinVariants(): string[] {
  return listBuiltinScenarios().flatMap((s) => readScenarioView(s).variants.map((v) => `${s} [${v.name}]`));
}

/** Every file `mesh export --format <format>` writes, for every variant of every built-in scenario, in order. */
export async function exportEveryBuiltin(format: Exclude<ExportFormat, 'both'>): Promise<ExportCase[]> {
  const out: ExportCase[] = [];
  for (const scenario of listBuiltinScenarios()) {
    for (const v of readScenarioView(scenario).variants) {
      const result = await exportScenario(scenario, { variant: v.name, format });
      for (const file of result.files) out.push({ scenario, variant: v.name, file, result });
    }
  }
  return out;
}

/** A deep copy of `doc` with the value at `path` set (a missing last step is added); throws if a step before it is missing. */
export function withValue(doc: unknown, path: readonly (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(doc) as Record<string, unknown>;
  let node: unknown = copy;
  for (const step of path.slice(0, -1)) {
    node = (node as Record<string | number, unknown> | undefined)?.[step];
    if (typeof node !== 'object' || node === null) throw new Error(`no ${path.join('.')} in the document (at ${step})`);
  }
  (node as Record<string | number, unknown>)[path.at(-1) as string | number] = value;
  return copy;
}

/** The value at `path`, or undefined. */
export function valueAt(doc: unknown, path: readonly (string | number)[]): unknown {
  let node: unknown = doc;
  for (const step of path) node = (node as Record<string | number, unknown> | undefined)?.[step];
  return node;
}
