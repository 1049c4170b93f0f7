// Checks the docs' yaml, json and promql blocks: scenarios by the simulator, mesh config by the mesh readers, the rest parsed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml, stringify } from 'yaml';
import { readMeshText } from '../../src/mesh/import.js';
import { parseScenario } from '../../src/sim/index.js';
import { type Block, ROOT, where } from './blocks.js';

/** The top-level keys of a scenario file (docs/scenario-format.md, "Top level"). */
const SCENARIO_KEYS = new Set([
  'name',
  'description',
  'extends',
  'duration',
  'windows',
  'traffic',
  'network',
  'services',
  'calls',
  'faults',
  'cancellation',
  'ownership',
  'variants',
]);

/** The scenario a fragment is checked inside: the built-in incident the docs are written around. */
const BASE_SCENARIO = join(ROOT, 'scenarios/checkout-incident.yaml');

export type YamlVerdict = 'scenario' | 'scenario-fragment' | 'mesh' | 'yaml';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A fragment's keys merged over the base scenario: mappings one level deep (so a variant or a call is added), the rest
 * replaced. Without a `variants` key of its own the fragment runs as the top level alone (the base's variants would
 * override its settings, so a wrong value there would never be read).
 */
function overBase(fragment: Record<string, unknown>): string {
  const base = parseYaml(readFileSync(BASE_SCENARIO, 'utf8')) as Record<string, unknown>;
  // @ko docs-fragment-read
  if (!('variants' in fragment)) delete base.variants;
  for (const [key, value] of Object.entries(fragment)) {
    const under = base[key];
    base[key] = isRecord(under) && isRecord(value) ? { ...under, ...value } : value;
  }
  return stringify(base);
}

/** Problems of a scenario text; warnings count too, except those its built-in already gives (`inherited`). */
function scenarioProblems(text: string, source: string, inherited: ReadonlySet<string> = new Set()): string[] {
  try {
    const scenario = parseScenario(text, source, ROOT);
    // @ko docs-scenario-warnings
    return scenario.warnings.filter((w) => !inherited.has(w)).map((w) => `${source}: warning: ${w}`);
  } catch (error) {
    return [`${source}: ${(error as Error).message}`];
  }
}

/** The warnings a built-in scenario gives by itself (a doc that reproduces it is not blamed for them). */
function builtinWarnings(name: string): Set<string> {
  const file = join(ROOT, 'scenarios', `${name}.yaml`);
  if (!/^[\w-]+$/.test(name) || !existsSync(file)) return new Set();
  return new Set(parseScenario(readFileSync(file, 'utf8'), name, ROOT).warnings);
}

/**
 * One yaml block: a whole scenario (name + services) goes through parseScenario; a fragment made of scenario keys is
 * merged into the checkout incident and parsed; Envoy or Istio config goes through the mesh readers; anything else
 * must at least be YAML. A scenario's warnings count as problems (the docs show settings that load cleanly), except
 * the ones the built-in it reproduces or extends gives by itself.
 */
export async function checkYaml(block: Block): Promise<{ verdict: YamlVerdict; problems: string[] }> {
  const at = where(block);
  const docs = parseAllDocuments(block.text);
  const list = Array.isArray(docs) ? docs : [docs];
  const errors = list.flatMap((d) => d.errors.map((e) => `${at}: ${e.message.split('\n')[0]}`));
  if (errors.length > 0) return { verdict: 'yaml', problems: errors };
  const values = list.map((d) => d.toJS() as unknown);
  const first = values[0];
  if (
    values.some(
      (v) => isRecord(v) && ('apiVersion' in v || 'kind' in v || 'static_resources' in v || 'virtual_hosts' in v),
    )
  ) {
    try {
      await readMeshText(block.text, at);
      return { verdict: 'mesh', problems: [] };
    } catch (error) {
      return { verdict: 'mesh', problems: [`${at}: ${(error as Error).message}`] };
    }
  }
  if (values.length === 1 && isRecord(first) && 'name' in first && 'services' in first) {
    return { verdict: 'scenario', problems: scenarioProblems(block.text, at, builtinWarnings(String(first.name))) };
  }
  if (values.length === 1 && isRecord(first) && Object.keys(first).every((k) => SCENARIO_KEYS.has(k))) {
    const source = `${at} (in checkout-incident)`;
    return {
      verdict: 'scenario-fragment',
      problems: scenarioProblems(overBase(first), source, builtinWarnings('checkout-incident')),
    };
  }
  return { verdict: 'yaml', problems: [] };
}

export function checkJson(block: Block): string[] {
  try {
    JSON.parse(block.text);
    return [];
  } catch (error) {
    return [`${where(block)}: ${(error as Error).message}`];
  }
}

/** Metric names Seawall's instruments give in Prometheus: `seawall.server.rq` -> seawall_server_rq. */
function instrumentNames(): Set<string> {
  const names = new Set<string>();
  // The drivers' telemetry: the shared attempt loop's (src/driver, after issue #23's re-layout) and the server's.
  for (const dir of ['src/http', 'src/driver'].map((d) => join(ROOT, d)).filter((d) => existsSync(d))) {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/'(seawall\.[a-z0-9_.]+)'/g)) {
        names.add((m[1] as string).replaceAll('.', '_'));
      }
    }
  }
  return names;
}

/** A PromQL block: brackets balance and every seawall_* metric is one an instrument of the drivers exports. */
export function checkPromql(block: Block): string[] {
  const problems: string[] = [];
  const known = instrumentNames();
  block.text.split('\n').forEach((line, i) => {
    const at = `${block.file}:${block.line + 1 + i}`;
    const query = line.replace(/#.*$/, '');
    let depth = 0;
    for (const ch of query) {
      depth += '([{'.includes(ch) ? 1 : ')]}'.includes(ch) ? -1 : 0;
      if (depth < 0) break;
    }
    if (depth !== 0) problems.push(`${at}: brackets do not balance`);
    for (const m of query.matchAll(/\bseawall_[a-z0-9_]+/g)) {
      const name = m[0].replace(/_(total|bucket|sum|count)$/, '');
      if (!known.has(name)) problems.push(`${at}: no instrument of the drivers is exported as ${m[0]}`);
    }
  });
  return problems;
}
