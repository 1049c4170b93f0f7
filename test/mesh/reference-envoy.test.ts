// Every Envoy file `mesh export` writes, for every built-in variant, decodes strictly as a Bootstrap of the reference protos (../shared/mesh-reference).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import protobuf from 'protobufjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseYamlDocuments } from '../../src/mesh/yaml-io.js';
import { listBuiltinScenarios } from '../../src/sim/scenario/load.js';
import { EnvoyProtos, envoyProtos, protoTree } from './envoy-protos.js';
import {
  builtinVariants,
  type ExportCase,
  exportEveryBuiltin,
  referencePath,
  valueAt,
  withValue,
} from './mesh-reference.js';

const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
/** What the export writes: the bootstrap, and the two filters it names by `@type`. */
const ENTRY_FILES = [
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
];

const PROTO_DIR = referencePath('ground-truth', 'protos');
const source = readFileSync(join(PROTO_DIR, 'SOURCE.txt'), 'utf8');
const apiCommit = /data-plane-api @ ([0-9a-f]{12})/.exec(source)?.[1] ?? '(commit not stated)';
const protos = new EnvoyProtos(ENTRY_FILES, protoTree(PROTO_DIR, '../shared/mesh-reference/ground-truth/protos'));

/** The well-known google/protobuf files protobufjs bundles (the reference tree has only descriptor.proto of them). */
const bundled = (file: string) => (protobuf as unknown as { common: { get(f: string): unknown } }).common.get(file);

let cases: ExportCase[] = [];
beforeAll(async () => {
  cases = await exportEveryBuiltin('envoy');
}, 60_000);

/** Each document of an exported file, checked as a Bootstrap: one line per error, naming scenario, variant, file, path. */
function bootstrapErrors(c: ExportCase): { documents: number; errors: string[] } {
  const label = `${c.scenario} [${c.variant}] ${c.file.path}`;
  const docs = parseYamlDocuments(c.file.text, label);
  const errors = docs.flatMap((d) =>
    protos.validate(d.value, BOOTSTRAP).map((e) => `${label}: document ${d.index + 1}: ${e}`),
  );
  return { documents: docs.length, errors };
}

describe(`the reference protos (envoyproxy/data-plane-api @ ${apiCommit})`, () => {
  it('hold everything the export needs: every import is in the tree, or a google/protobuf file protobufjs bundles', () => {
    const outside = protos.root.files.filter((f) => relative(PROTO_DIR, f).startsWith('..'));
    // The files loaded come from the reference tree, not from @grpc/grpc-js-xds: only bundled ones lie outside it.
    expect(outside.filter((f) => bundled(f) === null)).toEqual([]);
    expect(protos.root.files.length).toBeGreaterThan(50);
    expect(protos.type(BOOTSTRAP)).toBeInstanceOf(protobuf.Type);
  });

  it('are not the package copy: they know fields the @grpc/grpc-js-xds protos lack (Cluster.dns_jitter)', () => {
    const has = (p: EnvoyProtos) => p.type('envoy.config.cluster.v3.Cluster')?.fields.dns_jitter !== undefined;
    expect(has(protos)).toBe(true);
    expect(has(envoyProtos())).toBe(false);
  });
});

describe('every Envoy file mesh export writes decodes strictly as envoy.config.bootstrap.v3.Bootstrap', () => {
  it('covers every variant of every built-in scenario', () => {
    expect(new Set(cases.map((c) => `${c.scenario} [${c.variant}]`))).toEqual(new Set(builtinVariants()));
    expect(cases.length).toBeGreaterThan(builtinVariants().length);
    expect(cases.every((c) => /^envoy\/[\w.-]+\.yaml$/.test(c.file.path))).toBe(true);
  });

  it.each(listBuiltinScenarios())('scenario %s: every variant, every file', (scenario) => {
    const mine = cases.filter((c) => c.scenario === scenario);
    expect(mine.length).toBeGreaterThan(0);
    const errors: string[] = [];
    for (const c of mine) {
      const checked = bootstrapErrors(c);
      expect(checked.documents, `${c.scenario} [${c.variant}] ${c.file.path}: one bootstrap per file`).toBe(1);
      errors.push(...checked.errors);
    }
    expect(errors).toEqual([]);
  });

  it('met only PGV rules the validator enforces', () => {
    for (const c of cases) bootstrapErrors(c);
    expect([...protos.skippedRules]).toEqual([]);
  });
});

describe('the check bites with the reference protos', () => {
  const first = () => parseYamlDocuments(cases[0]?.file.text ?? '', 'x')[0]?.value;
  const HCM = ['static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config'];

  it('accepts an exported bootstrap as it is, and refuses it with an unknown field, a wrong type or a broken rule', () => {
    const boot = first();
    expect(protos.validate(boot, BOOTSTRAP)).toEqual([]);
    expect(protos.validate(withValue(boot, ['static_resources', 'no_such_field'], 1), BOOTSTRAP)).toEqual([
      expect.stringMatching(/^static_resources\.no_such_field: unknown field of envoy\.config\.bootstrap\.v3\./),
    ]);
    expect(protos.validate(withValue(boot, ['node', 'id'], 7), BOOTSTRAP)).toEqual([
      'node.id: must be a string, got 7',
    ]);
    expect(
      valueAt(boot, ['static_resources', 'clusters', 0]),
      'the first exported bootstrap has a cluster',
    ).toBeDefined();
    const zero = withValue(boot, ['static_resources', 'clusters', 0, 'connect_timeout'], '0s');
    expect(protos.validate(zero, BOOTSTRAP)).toEqual([
      expect.stringMatching(/^static_resources\.clusters\[0\]\.connect_timeout: .*duration\.gt/),
    ]);
  });

  it('resolves an HttpConnectionManager typed_config in the reference tree and checks what it holds', () => {
    const boot = first();
    expect(valueAt(boot, [...HCM, '@type'])).toMatch(/HttpConnectionManager$/);
    expect(protos.validate(withValue(boot, [...HCM, 'stat_prefix'], ['x']), BOOTSTRAP)).toEqual([
      expect.stringMatching(/typed_config\.stat_prefix: must be a string/),
    ]);
  });
});
