// Knock-outs of issue #24 items 4 and 9: Envoy input as Envoy reads it (single values as lists, JSON names, config dumps).

import type { Knockout } from './knockout.js';

const NORMALIZE_TESTS = ['src/mesh/envoy/normalize.test.ts'];
const DUMP_TESTS = ['src/mesh/envoy/config-dump.test.ts', 'test/mesh/envoy-config-dump.test.ts'];

export const ENVOY_INPUT_KNOCKOUTS: Knockout[] = [
  {
    id: 'envoy-single-as-list',
    mechanism: 'a repeated Envoy field written as a single mapping is read as a list of one, as Envoy reads it',
    mark: 'envoy-single-as-list',
    find: 'const list = Array.isArray(value) ? value : [value];',
    replace: 'if (!Array.isArray(value)) return value;\n  const list = value;',
    tests: NORMALIZE_TESTS,
  },
  {
    id: 'envoy-listener-no-silent-skip',
    mechanism: 'a filter chain that is no mapping is refused with its path, not skipped without a word',
    mark: 'envoy-listener-no-silent-skip',
    find: 'fail(',
    replace: 'void (',
    tests: NORMALIZE_TESTS,
  },
  {
    id: 'envoy-json-names',
    mechanism: 'proto3 JSON names (lowerCamelCase) are read as the proto field names',
    mark: 'envoy-json-names',
    find: 'const name = shape.fields.has(key) ? key : shape.byJson.get(key);',
    replace: 'const name = shape.fields.has(key) ? key : undefined;',
    tests: NORMALIZE_TESTS,
  },
  {
    id: 'envoy-doc-kind-json-names',
    mechanism: 'an Envoy document written in JSON names (staticResources, virtualHosts) is recognised as Envoy',
    mark: 'envoy-doc-kind-json-names',
    find: 'return field in value || jsonName(field) in value;',
    replace: 'return field in value;',
    tests: NORMALIZE_TESTS,
  },
  {
    id: 'envoy-json-names-twice',
    mechanism: 'a field written in both its proto and its JSON name in one message is refused, with its path',
    mark: 'envoy-json-names-twice',
    find: 'if (first !== undefined) {',
    replace: 'if (false) {',
    tests: NORMALIZE_TESTS,
  },
  {
    id: 'envoy-config-dump-routes',
    mechanism: "a config dump's route configs (the RoutesConfigDump, which RDS names resolve to) are read",
    mark: 'envoy-config-dump-routes',
    find: 'const routes = found.routes ?? inline;',
    replace: 'const routes = inline;',
    tests: DUMP_TESTS,
  },
  {
    id: 'envoy-config-dump-refuses-empty',
    mechanism: 'a config dump with nothing Seawall reads is refused, saying how to dump the parts it reads',
    mark: 'envoy-config-dump-refuses-empty',
    find: 'bad(',
    replace: 'void (',
    tests: ['src/mesh/envoy/config-dump.test.ts'],
  },
];
