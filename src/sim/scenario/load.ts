// Loading scenarios: YAML text or a built-in name -> a validated Scenario with every variant merged and resolved.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MAX_WINDOWS } from '../metrics/collector.js';
import { builtinScenarioDir, listBuiltinScenarios } from './builtins.js';
import {
  fromZodIssues,
  joinKey,
  noServiceNamed,
  type Problem,
  problemLine,
  requiredKeyMessage,
  ScenarioError,
  scenarioIsDirectory,
  scenarioNotFound,
} from './errors.js';
import { attribute, deepMerge, isPlainObject, normalizeOverlay, setsPath } from './merge.js';
import { directoryListing, FileReadError, MAX_SCENARIO_BYTES, readBoundedText } from './read-file.js';
import { checkPolicyBlocks, MAX_TOTAL_INSTANCES, resolveModel } from './resolve.js';
import { fileSchema, modelSchema } from './schema.js';
import type { Scenario, VariantSpec } from './types.js';
import { checkWork, DEFAULT_MAX_REQUESTS } from './work.js';
import { lineOfPath, type ParsedYaml, parseOneDocument, toPlain } from './yaml-bounds.js';

export { builtinScenarioDir, listBuiltinScenarios, ScenarioError };

const MODEL_KEYS = ['traffic', 'network', 'services', 'calls', 'faults', 'cancellation', 'ownership'] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const DEFAULT_VARIANT = 'default';

/** A built-in name (e.g. `checkout-incident`) or a path to a YAML file. */
export function loadScenario(nameOrPath: string): Scenario {
  const looksLikePath = /[/\\]/.test(nameOrPath) || /\.ya?ml$/i.test(nameOrPath);
  let file: string;
  if (!looksLikePath && listBuiltinScenarios().includes(nameOrPath)) {
    file = join(builtinScenarioDir(), `${nameOrPath}.yaml`);
  } else if (existsSync(nameOrPath)) {
    file = resolve(nameOrPath);
  } else {
    throw new ScenarioError(nameOrPath, [`(root): ${scenarioNotFound(nameOrPath, listBuiltinScenarios())}`]);
  }
  const directory = directoryListing(file);
  // @ko scenario-directory-plain
  if (directory !== null)
    throw new ScenarioError(nameOrPath, [`(root): ${scenarioIsDirectory(nameOrPath, directory)}`]);
  let text: string;
  try {
    // @ko scenario-read-bounded
    text = readBoundedText(file, MAX_SCENARIO_BYTES, 'a scenario');
  } catch (error) {
    const reason = error instanceof FileReadError ? error.reason : (error as Error).message;
    throw new ScenarioError(nameOrPath, [`(root): ${reason}`]);
  }
  return parseScenario(text, nameOrPath, dirname(file));
}

/** A parent named by `extends:`, read by the same bounded reader; a refusal is an `extends:` problem naming the file. */
function readParent(file: string, parentRef: string): string {
  try {
    // @ko scenario-extends-read-bounded
    return readBoundedText(file, MAX_SCENARIO_BYTES, 'a scenario');
  } catch (error) {
    const message = error instanceof FileReadError ? error.message : `${file}: ${(error as Error).message}`;
    throw new ScenarioError(parentRef, [`extends: ${message}`]);
  }
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}

/** The file's top-level mapping, and the parsed document that says on which line each key is. */
function parseYamlWithLines(
  yamlText: string,
  sourceName: string,
): { raw: Record<string, unknown>; parsed: ParsedYaml } {
  const parsed = parseOneDocument(yamlText);
  const { doc, problems } = parsed;
  if (problems.length > 0) {
    throw new ScenarioError(
      sourceName,
      problems.map(({ at, message }) => {
        const text = /multiple documents/i.test(message)
          ? 'a scenario is one YAML document; this file has more (a second starts at this `---`): split it'
          : message;
        return `${at ? `line ${at.line}, column ${at.col}` : '(yaml)'}: ${text}`;
      }),
    );
  }
  const plain = toPlain(doc);
  if ('problem' in plain) throw new ScenarioError(sourceName, [`(root): ${plain.problem}`]);
  const raw: unknown = plain.value;
  if (!isPlainObject(raw)) throw new ScenarioError(sourceName, ['(root): must be a mapping of scenario keys']);
  return { raw, parsed };
}

/**
 * The line of this file a problem's path is on, so it can be found in a long file. A missing key ("is required")
 * points at the mapping that lacks it; a path only a parent file (`extends:`) sets gets none.
 */
function lineOf(parsed: ParsedYaml, problem: Problem): number | null {
  return lineOfPath(parsed, problem.path, problem.message === 'is required');
}

const MAX_EXTENDS_DEPTH = 8;

/**
 * `extends: NAME-or-PATH` at the top level: the parent file is merged under this one (mappings key by key, lists
 * replaced, null removes). `variants` is the exception: a file that lists its own replaces the parent's.
 */
function withParent(raw: Record<string, unknown>, baseDir: string, depth: number): Record<string, unknown> {
  const parentRef = raw.extends;
  if (parentRef === undefined) return raw;
  if (typeof parentRef !== 'string') {
    throw new ScenarioError('extends', ['extends: must be a built-in scenario name or a file path']);
  }
  if (depth >= MAX_EXTENDS_DEPTH) throw new ScenarioError(parentRef, ['extends: too deep (a cycle?)']);
  const isPath = /[/\\]/.test(parentRef) || /\.ya?ml$/i.test(parentRef);
  const file = isPath ? resolve(baseDir, parentRef) : join(builtinScenarioDir(), `${parentRef}.yaml`);
  if (!existsSync(file)) {
    throw new ScenarioError(parentRef, [`extends: no scenario file or built-in named "${parentRef}"`]);
  }
  const parent = withParent(parseYamlWithLines(readParent(file, parentRef), parentRef).raw, dirname(file), depth + 1);
  const own = { ...raw };
  delete own.extends;
  const merged = deepMerge(parent, own) as Record<string, unknown>;
  if (own.variants !== undefined) merged.variants = own.variants;
  return merged;
}

/** Parses and validates scenario YAML; throws ScenarioError listing every problem, one line each with its path. */
export function parseScenario(yamlText: string, sourceName: string, baseDir = process.cwd()): Scenario {
  const own = parseYamlWithLines(yamlText, sourceName);
  const raw = withParent(own.raw, baseDir, 0);
  refuseTooManyServices(raw, sourceName);
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const top = fileSchema.safeParse(raw, { error: requiredKeyMessage, reportInput: true });
  // On top-level problems keep going with what can be read, so the model's problems are reported in the same pass.
  if (!top.success) problems.push(...fromZodIssues(top.error.issues, ''));
  const file = top.success
    ? top.data
    : {
        name: String(raw.name ?? ''),
        description: undefined,
        duration: Number.POSITIVE_INFINITY,
        maxRequests: undefined,
        maxLive: undefined,
        windows: {} as Record<string, number[]>,
        variants: (isPlainObject(raw.variants) ? raw.variants : {}) as Record<
          string,
          { description?: string; group?: string }
        >,
      };

  const durationMs = file.duration;
  const windows: Record<string, [number, number]> = {};
  const declaredWindows: Record<string, number[]> = file.windows ?? { all: [0, durationMs] };
  const windowCount = Object.keys(declaredWindows).length;
  if (windowCount > MAX_WINDOWS) {
    problems.push({ path: 'windows', message: `at most ${MAX_WINDOWS} windows (got ${windowCount})` });
  }
  for (const [name, [startMs, endMs]] of Object.entries(declaredWindows)) {
    const path = joinKey('windows', name);
    if (!NAME.test(name)) problems.push({ path, message: 'a window name must be letters, digits, ".", "_" or "-"' });
    if (!((startMs as number) < (endMs as number))) problems.push({ path, message: 'start must be before end' });
    else if ((endMs as number) > durationMs) problems.push({ path, message: 'must end within duration' });
    windows[name] = [startMs as number, endMs as number];
  }

  const base: Record<string, unknown> = {};
  for (const key of MODEL_KEYS) if (raw[key] !== undefined) base[key] = raw[key];
  const baseOverlay = normalizeOverlay(base);
  const rawVariants = (isPlainObject(raw.variants) ? raw.variants : {}) as Record<string, Record<string, unknown>>;
  const declared = Object.keys(file.variants ?? {});
  const names = declared.length > 0 ? declared : [DEFAULT_VARIANT];
  const baseServices = isPlainObject(base.services) ? Object.keys(base.services) : null;

  const variants: VariantSpec[] = [];
  // Problems found in the merged model of each variant, by line, with the variants that have them (see inVariants).
  // The schema checks every variant; the cross-references only those the schema let through.
  const modelLines = new Map<string, { problem: Problem; checked: string[]; found: string[] }>();
  const schemaChecked: string[] = [];
  const resolveChecked: string[] = [];
  // Every variant's policy blocks are checked: by the whole resolve, or (schema refused) by checkPolicyBlocks.
  const policyChecked: string[] = [];
  const noteModelProblem = (problem: Problem, variant: string, checked: string[]) => {
    const line = problemLine(problem);
    const seen = modelLines.get(line);
    if (seen === undefined) modelLines.set(line, { problem, checked, found: [variant] });
    else if (!seen.found.includes(variant)) seen.found.push(variant);
  };
  for (const name of names) {
    const layers: { prefix: string; overlay: unknown }[] = [{ prefix: '', overlay: baseOverlay }];
    if (declared.length > 0) {
      // A broken extends chain is reported; the variant is still checked on its own so other problems show too.
      const chain = extendsChain(name, rawVariants, problems) ?? [name];
      for (const link of chain) {
        const overlay = normalizeOverlay(variantModelKeys(rawVariants[link]));
        layers.push({
          prefix: joinKey('variants', link),
          // @ko scenario-variant-new-service
          overlay: baseServices === null ? overlay : withoutNewServices(overlay, baseServices, link, problems),
        });
      }
      if (!NAME.test(name))
        problems.push({
          path: joinKey('variants', name),
          message: 'a variant name must be letters, digits, ".", "_" or "-"',
        });
    }
    let merged: unknown = {};
    for (const layer of layers) merged = deepMerge(merged, layer.overlay);
    const place = (p: Problem): Problem => ({ path: attribute(p.path, layers), message: p.message });
    const parsed = modelSchema.safeParse(merged, { error: requiredKeyMessage, reportInput: true });
    schemaChecked.push(name);
    if (!parsed.success) {
      for (const p of fromZodIssues(parsed.error.issues, '')) noteModelProblem(place(p), name, schemaChecked);
      // The policy blocks the schema could read are checked all the same: every problem in one pass.
      const policyProblems: Problem[] = [];
      // @ko scenario-policy-with-schema
      checkPolicyBlocks(merged, policyProblems);
      policyChecked.push(name);
      for (const p of policyProblems) noteModelProblem(place(p), name, policyChecked);
      continue;
    }
    resolveChecked.push(name);
    policyChecked.push(name);
    const modelProblems: Problem[] = [];
    const modelWarnings: Problem[] = [];
    const model = resolveModel(parsed.data, modelProblems, modelWarnings, durationMs);
    checkWork(model, durationMs, file.maxRequests ?? DEFAULT_MAX_REQUESTS, modelProblems);
    for (const p of modelProblems) noteModelProblem(place(p), name, resolveChecked);
    warnings.push(...modelWarnings.map(place));
    const description = declared.length > 0 ? (file.variants?.[name]?.description ?? null) : null;
    // @ko scenario-variant-group
    const group = declared.length > 0 ? (file.variants?.[name]?.group ?? null) : null;
    variants.push({ name, description, group, model });
  }
  // With variants the top level itself never runs, but what it sets is still read: a bad value there that every
  // variant overrides would otherwise pass unseen. Its own policy blocks are checked alone; a problem at a key the
  // top level sets is the top level's (a key it leaves for the variants to fill in is not).
  if (declared.length > 0) {
    const topProblems: Problem[] = [];
    checkPolicyBlocks(deepMerge({}, baseOverlay), topProblems);
    for (const p of topProblems) {
      if (p.path === '' || !setsPath(baseOverlay, p.path.split('.'))) continue;
      const line = problemLine(p);
      modelLines.delete(line);
      problems.push(p);
    }
  }
  const found: [string, number | null][] = problems.map((p) => [problemLine(p), lineOf(own.parsed, p)]);
  for (const { problem, checked, found: where } of modelLines.values()) {
    const line = declared.length === 0 ? problemLine(problem) : inVariants(problemLine(problem), where, checked);
    found.push([line, lineOf(own.parsed, problem)]);
  }
  if (found.length > 0 || !top.success) {
    const seen = new Set<string>();
    const unique = found.filter(([line]) => !seen.has(line) && seen.add(line) !== undefined);
    throw new ScenarioError(
      sourceName,
      unique.map(([line]) => line),
      unique.map(([, at]) => at),
    );
  }
  return {
    name: file.name,
    description: file.description ?? null,
    source: sourceName,
    durationMs,
    windows,
    variants,
    warnings: dedupe(warnings.map(problemLine)),
    // @ko scenario-max-live-read
    ...(file.maxLive === undefined ? {} : { maxLive: file.maxLive }),
  };
}

/**
 * Every service has an instance and all instances together are at most MAX_TOTAL_INSTANCES: a file with more
 * services is refused at once, with the figure, before its model is checked (100,000 services took 45 s to refuse).
 */
function refuseTooManyServices(raw: Record<string, unknown>, sourceName: string): void {
  const variants = isPlainObject(raw.variants) ? Object.entries(raw.variants) : [];
  const places: [string, unknown][] = [['services', raw.services]];
  for (const [name, v] of variants)
    if (isPlainObject(v)) places.push([joinKey(joinKey('variants', name), 'services'), v.services]);
  for (const [path, services] of places) {
    if (!isPlainObject(services)) continue;
    const count = Object.keys(services).length;
    // @ko scenario-too-many-services
    if (count <= MAX_TOTAL_INSTANCES) continue;
    const n = (x: number) => x.toLocaleString('en-US');
    throw new ScenarioError(sourceName, [
      `${path}: ${n(count)} services; at most ${n(MAX_TOTAL_INSTANCES)} (every service has an instance, and all instances together are at most ${n(MAX_TOTAL_INSTANCES)})`,
    ]);
  }
}

/**
 * A problem at a path the top level sets that only some of the variants checked have comes from what those variants
 * changed elsewhere (a variant giving db 1 instance breaks a top-level fault on instance 1): the line names them. A
 * problem every variant checked has is the top level's own, and a path under `variants.` names its variant already.
 * (`checked` is the list of the first check that found it; a policy problem is also found by the variants the
 * schema refused, whose policy blocks are checked on their own.)
 */
function inVariants(line: string, found: readonly string[], checked: readonly string[]): string {
  if (line.startsWith('variants.') || checked.every((v) => found.includes(v))) return line;
  return `${line}, in variant${found.length > 1 ? 's' : ''} ${found.join(', ')}`;
}

/**
 * A variant changes the top level's services; it cannot add one (docs/scenario-format.md). A name the top level
 * does not have is most likely a misspelling that would otherwise run as a new, idle service: it is a problem that
 * names the closest service, and it is left out of the merge so it causes no further problems.
 */
function withoutNewServices(
  overlay: Record<string, unknown>,
  known: readonly string[],
  variant: string,
  problems: Problem[],
): Record<string, unknown> {
  if (!isPlainObject(overlay.services)) return overlay;
  const services: Record<string, unknown> = {};
  const names = new Set(known);
  for (const [name, value] of Object.entries(overlay.services)) {
    if (names.has(name)) services[name] = value;
    else {
      problems.push({
        path: joinKey(joinKey(joinKey('variants', variant), 'services'), name),
        message: `${noServiceNamed(name, known)} (a variant cannot add a service: declare new ones at the top level)`,
      });
    }
  }
  return { ...overlay, services };
}

function variantModelKeys(variant: Record<string, unknown> | undefined): Record<string, unknown> {
  const overlay: Record<string, unknown> = {};
  // A variant that is not a mapping is reported by the file schema; here it simply adds nothing.
  if (!isPlainObject(variant)) return overlay;
  for (const key of MODEL_KEYS) if (key in variant) overlay[key] = variant[key];
  return overlay;
}

/** [root ancestor, ..., name] following `extends`; undefined (with a problem) for unknown names and cycles. */
function extendsChain(
  name: string,
  variants: Record<string, Record<string, unknown>>,
  problems: Problem[],
): string[] | undefined {
  const chain: string[] = [];
  let current: string | undefined = name;
  while (current !== undefined) {
    if (chain.includes(current)) {
      problems.push({ path: `variants.${name}.extends`, message: `extends cycle ${[...chain, current].join(' -> ')}` });
      return undefined;
    }
    chain.push(current);
    const parent: unknown = variants[current]?.extends;
    if (parent === undefined) break;
    if (typeof parent !== 'string' || !(parent in variants)) {
      problems.push({ path: `variants.${current}.extends`, message: `no variant named ${String(parent)}` });
      return undefined;
    }
    current = parent;
  }
  return chain.reverse();
}
