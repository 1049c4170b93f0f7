// Seawall's Envoy output and its hand-written Envoy schema, checked against Envoy's own API protos (@grpc/grpc-js-xds).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as FIELDS from '../../src/mesh/envoy/fields.js';
import { looksLikeEnvoy } from '../../src/mesh/envoy/read.js';
import {
  bootstrapSchema,
  circuitBreakersSchema,
  clusterSchema,
  headerMatcherSchema,
  nodeSchema,
  outlierDetectionSchema,
  percentSchema,
  retryPolicySchema,
  routeActionSchema,
  routeConfigurationSchema,
  routeSchema,
  virtualHostSchema,
} from '../../src/mesh/envoy/schema.js';
import { MeshError } from '../../src/mesh/errors.js';
import { exportScenario } from '../../src/mesh/export.js';
import { readMeshText } from '../../src/mesh/import.js';
import { readScenarioView } from '../../src/mesh/scenario-read.js';
import { parseYamlDocuments } from '../../src/mesh/yaml-io.js';
import { listBuiltinScenarios } from '../../src/sim/scenario/load.js';
import { ENFORCED_RULES, envoyProtos, XDS_PACKAGE_VERSION } from './envoy-protos.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(ROOT, 'src', 'mesh', 'fixtures');
const EXAMPLE = join(ROOT, 'examples', 'mesh', 'envoy-checkout.yaml');
const protos = envoyProtos();

const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
const ROUTE_CONFIGURATION = 'envoy.config.route.v3.RouteConfiguration';
const CLUSTER = 'envoy.config.cluster.v3.Cluster';
/** What Envoy's file-based xDS reads a `resources:` list as. */
const DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DiscoveryResponse';

/** The message an Envoy document is, as Seawall's reader recognises it (docs/mesh.md, "What is read"). */
function documentType(value: Record<string, unknown>): string {
  if ('static_resources' in value || 'node' in value) return BOOTSTRAP;
  if ('resources' in value) return DISCOVERY_RESPONSE;
  if ('virtual_hosts' in value) return ROUTE_CONFIGURATION;
  return CLUSTER;
}

/** Every Envoy document of a YAML text, validated by its kind: one line per error, prefixed with the source. */
function validateEnvoyText(text: string, source: string): { documents: number; errors: string[] } {
  const errors: string[] = [];
  let documents = 0;
  for (const doc of parseYamlDocuments(text, source)) {
    if (!looksLikeEnvoy(doc.value)) continue;
    documents++;
    const type = documentType(doc.value as Record<string, unknown>);
    for (const e of protos.validate(doc.value, type)) errors.push(`${source}: document ${doc.index + 1}: ${e}`);
  }
  return { documents, errors };
}

/** Exports every variant of a scenario as Envoy bootstraps (what `seawall mesh export --format envoy` writes). */
async function exportedEnvoy(target: string, label: string) {
  const errors: string[] = [];
  let documents = 0;
  const variants = readScenarioView(target).variants;
  for (const v of variants) {
    const result = await exportScenario(target, { variant: v.name, format: 'envoy' });
    for (const f of result.files) {
      const checked = validateEnvoyText(f.text, `${label} [${v.name}] ${f.path}`);
      documents += checked.documents;
      errors.push(...checked.errors);
      expect(checked.documents, `${label} [${v.name}] ${f.path} holds no Envoy document`).toBeGreaterThan(0);
    }
  }
  return { variants: variants.length, documents, errors };
}

const scenarioFixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .filter((f) => /^variants:/m.test(readFileSync(join(FIXTURES, f), 'utf8')));

describe(`Envoy output against Envoy's own protos (@grpc/grpc-js-xds ${XDS_PACKAGE_VERSION})`, () => {
  it.each(listBuiltinScenarios())(
    'scenario %s: every variant exports bootstraps that envoy.config.bootstrap.v3.Bootstrap accepts',
    async (name) => {
      const { variants, documents, errors } = await exportedEnvoy(name, name);
      expect(errors).toEqual([]);
      expect(documents).toBeGreaterThanOrEqual(variants);
    },
  );

  it.each(scenarioFixtures)('fixture %s: every variant exports bootstraps Envoy accepts', async (file) => {
    const { documents, errors } = await exportedEnvoy(join(FIXTURES, file), `fixtures/${file}`);
    expect(errors).toEqual([]);
    expect(documents).toBeGreaterThan(0);
  });

  it('examples/mesh/envoy-checkout.yaml and the Envoy documents in src/mesh/fixtures validate by their kind', () => {
    const example = validateEnvoyText(readFileSync(EXAMPLE, 'utf8'), 'examples/mesh/envoy-checkout.yaml');
    expect(example.errors).toEqual([]);
    expect(example.documents).toBe(2);
    for (const f of readdirSync(FIXTURES).filter((x) => x.endsWith('.yaml'))) {
      expect(validateEnvoyText(readFileSync(join(FIXTURES, f), 'utf8'), `fixtures/${f}`).errors).toEqual([]);
    }
  });

  it('every PGV rule met while checking the export is one this validator enforces', () => {
    expect([...protos.skippedRules]).toEqual([]);
  });
});

// ---- the hand-written field lists against the protos -------------------------------------------------------------

/**
 * Fields Seawall knows that the protos in @grpc/grpc-js-xds do not have: newer than the Envoy API the package ships
 * (its Cluster ends at field 57, lrs_report_endpoint_metrics). Each is listed here, by name, rather than skipped by a
 * rule, so a name that is really wrong cannot hide among them. They are not type-checked (Seawall does not read them).
 */
const NEWER_THAN_PACKAGE: Readonly<Record<string, readonly string[]>> = {
  'envoy.config.cluster.v3.Cluster': ['dns_jitter'],
  'envoy.config.route.v3.RouteMatch': ['filter_state'],
  'envoy.config.route.v3.WeightedCluster': ['use_hash_policy'],
};

function protoType(name: string): protobuf.Type {
  const t = protos.type(name);
  if (t === undefined) throw new Error(`no ${name} in the protos`);
  return t;
}

function fieldNames(type: protobuf.Type): string[] {
  return type.fieldsArray.map((f) => f.name);
}

/** Listed names the message lacks, and its non-deprecated fields the list lacks. */
function compareList(listed: readonly string[], type: protobuf.Type): { unknown: string[]; missing: string[] } {
  const name = type.fullName.slice(1);
  const newer = NEWER_THAN_PACKAGE[name] ?? [];
  const names = new Set(fieldNames(type));
  return {
    unknown: listed.filter((n) => !names.has(n) && !newer.includes(n)).map((n) => `${name}.${n}`),
    missing: type.fieldsArray
      .filter((f) => !listed.includes(f.name) && f.options?.deprecated !== true)
      .map((f) => `${name}.${f.name}`),
  };
}

/** `/** envoy.x.v3.Message *\/ export const NAME = [...]` pairs of envoy-fields.ts: the message each list claims. */
function claimedLists(): { list: string; message: string }[] {
  const text = readFileSync(join(ROOT, 'src', 'mesh', 'envoy', 'fields.ts'), 'utf8');
  return [...text.matchAll(/\/\*\* (envoy\.[\w.]+) \*\/\s*export const (\w+)/g)].map((m) => ({
    message: m[1] as string,
    list: m[2] as string,
  }));
}

type Zod = { def: Record<string, unknown> & { type: string }; [k: string]: unknown };

function unwrap(schema: unknown): Zod {
  let s = schema as Zod;
  for (let i = 0; i < 10 && (s.def.type === 'optional' || s.def.type === 'nullable'); i++) s = s.def.innerType as Zod;
  return s;
}

const WRAPPED: Readonly<Record<string, string>> = {
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'float',
  'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.Int32Value': 'int32',
  'google.protobuf.UInt64Value': 'uint64',
  'google.protobuf.Int64Value': 'int64',
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.StringValue': 'string',
};
const INT_BOUNDS: Readonly<Record<string, readonly [number, number]>> = {
  uint32: [0, 4_294_967_295],
  int32: [-2_147_483_648, 2_147_483_647],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function pgv(field: protobuf.Field): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const o of field.parsedOptions ?? []) {
    const r = o['(validate.rules)'] as Record<string, Record<string, unknown>> | undefined;
    for (const [k, v] of Object.entries(r ?? {})) out[k] = { ...(out[k] ?? {}), ...v };
  }
  return out;
}

function nanos(v: unknown): number {
  const r = (v ?? {}) as { seconds?: number; nanos?: number };
  return Number(r.seconds ?? 0) * 1e9 + Number(r.nanos ?? 0);
}

function protoDuration(ns: number): string {
  return `${(ns / 1e9).toFixed(9).replace(/\.?0+$/, '')}s`;
}

/**
 * Walks a zod schema of envoy-schema.ts beside the proto message it claims to be: every key must be a field; every
 * field (not deprecated) a key; typed leaves must agree with the field's type (string, bool, integers within the
 * type's range and its PGV bounds, enum names, durations within their PGV bounds, lists for repeated fields).
 */
function walkSchema(schema: unknown, type: protobuf.Type, path: string, findings: string[], seen: Set<string>): void {
  const s = unwrap(schema);
  if (s.def.type !== 'object') {
    findings.push(`${path}: the schema is ${s.def.type}, the proto a message (${type.fullName.slice(1)})`);
    return;
  }
  const shape = s.shape as Record<string, unknown>;
  const keys = Object.keys(shape);
  const visitKey = `${type.fullName}:${keys.join(',')}`;
  if (seen.has(visitKey)) return;
  seen.add(visitKey);
  const { unknown, missing } = compareList(keys, type);
  for (const u of unknown) findings.push(`${path}: ${u} is no field of the proto`);
  for (const m of missing) findings.push(`${path}: ${m} is missing from the schema's field list`);
  for (const key of keys) {
    const field = type.fields[key];
    if (field !== undefined) walkField(shape[key], field, `${path}.${key}`, findings, seen);
  }
}

function walkField(schema: unknown, field: protobuf.Field, path: string, findings: string[], seen: Set<string>): void {
  let s = unwrap(schema);
  if (s.def.type === 'unknown' && (s.def.checks as unknown[] | undefined) === undefined) return; // known, not typed
  if (s.def.type === 'array') {
    if (!field.repeated || field.map) findings.push(`${path}: the schema has a list, the proto field is not repeated`);
    s = unwrap(s.def.element);
    if (s.def.type === 'unknown' && (s.def.checks as unknown[] | undefined) === undefined) return;
  } else if (field.repeated) {
    findings.push(`${path}: the proto field is repeated, the schema has no list`);
    return;
  }
  const resolved = field.resolvedType;
  const typeName = resolved instanceof protobuf.Type ? resolved.fullName.slice(1) : undefined;
  const scalar = typeName !== undefined ? WRAPPED[typeName] : resolved === null ? field.type : undefined;
  const rules = pgv(field);
  switch (s.def.type) {
    case 'object':
      if (!(resolved instanceof protobuf.Type) || scalar !== undefined || typeName?.startsWith('google.protobuf.'))
        findings.push(`${path}: the schema has a message, the proto ${field.type}`);
      else walkSchema(s, resolved, path, findings, seen);
      return;
    case 'string':
      if (scalar !== 'string') findings.push(`${path}: the schema has a string, the proto ${field.type}`);
      return;
    case 'boolean':
      if (scalar !== 'bool') findings.push(`${path}: the schema has a bool, the proto ${field.type}`);
      return;
    case 'enum': {
      const names = resolved instanceof protobuf.Enum ? Object.keys(resolved.values) : [];
      if (!(resolved instanceof protobuf.Enum))
        findings.push(`${path}: the schema has an enum, the proto ${field.type}`);
      for (const o of s.options as string[])
        if (!names.includes(o)) findings.push(`${path}: ${o} is no value of ${field.type}`);
      return;
    }
    case 'number': {
      const lo = s.minValue as number;
      const hi = s.maxValue as number;
      if (s.isInt === true) {
        const bounds = scalar !== undefined ? INT_BOUNDS[scalar] : undefined;
        if (bounds === undefined) {
          findings.push(`${path}: the schema has an integer, the proto ${field.type}`);
          return;
        }
        if (lo < bounds[0] || hi > bounds[1])
          findings.push(`${path}: the schema allows [${lo}, ${hi}], ${scalar} holds [${bounds[0]}, ${bounds[1]}]`);
      } else if (scalar !== 'double' && scalar !== 'float') {
        findings.push(`${path}: the schema has a number, the proto ${field.type}`);
        return;
      }
      const r = rules[scalar as string] ?? {};
      const min = r.gte ?? r.gt;
      const max = r.lte ?? r.lt;
      if (min !== undefined && (lo < Number(min) || (r.gt !== undefined && lo <= Number(min))))
        findings.push(`${path}: the schema accepts ${lo}, Envoy's PGV rule ${JSON.stringify(r)} refuses it`);
      if (max !== undefined && (hi > Number(max) || (r.lt !== undefined && hi >= Number(max))))
        findings.push(`${path}: the schema accepts ${hi}, Envoy's PGV rule ${JSON.stringify(r)} refuses it`);
      return;
    }
    case 'unknown': {
      // A checked leaf: durationString (proto3 JSON durations).
      const parse = (v: unknown) => (s as unknown as z.ZodType).safeParse(v).success;
      if (!parse('0.25s') || parse('250ms')) {
        findings.push(`${path}: a checked leaf the walk does not know`);
        return;
      }
      if (typeName !== 'google.protobuf.Duration') {
        findings.push(`${path}: the schema has a duration, the proto ${field.type}`);
        return;
      }
      const r = rules.duration ?? {};
      if (r.gt !== undefined && parse(protoDuration(nanos(r.gt))))
        findings.push(
          `${path}: the schema accepts ${protoDuration(nanos(r.gt))}, Envoy's rule is duration.gt ${protoDuration(nanos(r.gt))}`,
        );
      if (r.gte !== undefined && nanos(r.gte) > 0 && parse(protoDuration(nanos(r.gte) - 1)))
        findings.push(`${path}: the schema accepts less than ${protoDuration(nanos(r.gte))} (duration.gte)`);
      return;
    }
    default:
      findings.push(`${path}: schema type ${s.def.type} is not compared`);
  }
}

/** The exported schemas of envoy-schema.ts, by name (not passed to it.each: vitest would print them in titles). */
const SCHEMAS: Readonly<Record<string, unknown>> = {
  bootstrapSchema,
  routeConfigurationSchema,
  clusterSchema,
  virtualHostSchema,
  routeSchema,
  routeActionSchema,
  retryPolicySchema,
  headerMatcherSchema,
  circuitBreakersSchema,
  outlierDetectionSchema,
  nodeSchema,
  percentSchema,
};

describe("the hand-written Envoy field lists agree with Envoy's protos", () => {
  it('envoy-fields.ts: each list names fields of the message its comment claims, and every one of them', () => {
    const lists = claimedLists();
    expect(lists.map((l) => l.list).sort()).toEqual(Object.keys(FIELDS).sort());
    for (const { list, message } of lists) {
      const { unknown, missing } = compareList(
        (FIELDS as Record<string, readonly string[]>)[list] ?? [],
        protoType(message),
      );
      expect({ list, unknown, missing }).toEqual({ list, unknown: [], missing: [] });
    }
  });

  it.each([
    ['bootstrapSchema', BOOTSTRAP],
    ['routeConfigurationSchema', ROUTE_CONFIGURATION],
    ['clusterSchema', CLUSTER],
    ['virtualHostSchema', 'envoy.config.route.v3.VirtualHost'],
    ['routeSchema', 'envoy.config.route.v3.Route'],
    ['routeActionSchema', 'envoy.config.route.v3.RouteAction'],
    ['retryPolicySchema', 'envoy.config.route.v3.RetryPolicy'],
    ['headerMatcherSchema', 'envoy.config.route.v3.HeaderMatcher'],
    ['circuitBreakersSchema', 'envoy.config.cluster.v3.CircuitBreakers'],
    ['outlierDetectionSchema', 'envoy.config.cluster.v3.OutlierDetection'],
    ['nodeSchema', 'envoy.config.core.v3.Node'],
    ['percentSchema', 'envoy.type.v3.Percent'],
  ] as const)('envoy-schema.ts %s: names, nesting and types are those of %s', (name, message) => {
    const schema = SCHEMAS[name];
    const findings: string[] = [];
    walkSchema(schema, protoType(message), message.split('.').at(-1) as string, findings, new Set());
    expect(findings).toEqual([]);
  });

  it('the walk is not vacuous: it reports a misnamed field, a wrong type and a loose bound', () => {
    const zod = z;
    const findings: string[] = [];
    walkSchema(
      zod.strictObject({
        num_retires: zod.number().optional(),
        retry_on: zod.boolean().optional(),
        retriable_status_codes: zod.string().optional(),
      }),
      protoType('envoy.config.route.v3.RetryPolicy'),
      'RetryPolicy',
      findings,
      new Set(),
    );
    walkSchema(
      zod.strictObject({ value: zod.number().min(-1).max(200) }),
      protoType('envoy.type.v3.Percent'),
      'Percent',
      findings,
      new Set(),
    );
    expect(findings).toEqual(
      expect.arrayContaining([
        'RetryPolicy: envoy.config.route.v3.RetryPolicy.num_retires is no field of the proto',
        "RetryPolicy: envoy.config.route.v3.RetryPolicy.num_retries is missing from the schema's field list",
        'RetryPolicy.retry_on: the schema has a bool, the proto string',
        'RetryPolicy.retriable_status_codes: the proto field is repeated, the schema has no list',
        expect.stringMatching(/^Percent\.value: the schema accepts -1, /),
        expect.stringMatching(/^Percent\.value: the schema accepts 200, /),
      ]),
    );
  });
});

// ---- the validator bites ------------------------------------------------------------------------------------------

const ROUTES = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'r',
  virtual_hosts: [
    {
      name: 'b',
      domains: ['b'],
      routes: [{ match: { prefix: '/' }, route: { cluster: 'b', retry_policy: policy, ...extra } }],
    },
  ],
});
const AT = 'virtual_hosts[0].routes[0].route';

describe('the validator bites', () => {
  it('accepts a correct route configuration, with proto or JSON field names', () => {
    expect(
      protos.validate(ROUTES({ retry_on: '5xx', num_retries: 2, per_try_timeout: '0.25s' }), ROUTE_CONFIGURATION),
    ).toEqual([]);
    expect(
      protos.validate(ROUTES({ retryOn: '5xx', numRetries: 2, perTryTimeout: '0.000000001s' }), ROUTE_CONFIGURATION),
    ).toEqual([]);
  });

  it.each([
    [
      'an unknown field',
      { num_retires: 2 },
      `${AT}.retry_policy.num_retires: unknown field of envoy.config.route.v3.RetryPolicy; did you mean num_retries?`,
    ],
    [
      'a string for a UInt32Value',
      { num_retries: '2' },
      `${AT}.retry_policy.num_retries: must be a whole number (uint32), got "2"`,
    ],
    [
      'a negative count',
      { num_retries: -1 },
      `${AT}.retry_policy.num_retries: out of uint32 range [0, 4294967295]: -1`,
    ],
    ['a number for a string', { retry_on: 5 }, `${AT}.retry_policy.retry_on: must be a string, got 5`],
    [
      'a Go-style duration',
      { per_try_timeout: '250ms' },
      `${AT}.retry_policy.per_try_timeout: must be a duration string such as "0.25s" (proto3 JSON), got "250ms"`,
    ],
    [
      'ten fractional digits',
      { per_try_timeout: '0.0000000001s' },
      `${AT}.retry_policy.per_try_timeout: must be a duration string such as "0.25s" (proto3 JSON), got "0.0000000001s"`,
    ],
    [
      'a number for a duration',
      { per_try_timeout: 0.25 },
      `${AT}.retry_policy.per_try_timeout: must be a duration string such as "0.25s" (proto3 JSON), got 0.25`,
    ],
    [
      'a scalar for a list',
      { retriable_status_codes: 503 },
      `${AT}.retry_policy.retriable_status_codes: must be a list (repeated uint32), got 503`,
    ],
    [
      'a zero back-off (duration.gt)',
      { retry_back_off: { base_interval: '0s' } },
      `${AT}.retry_policy.retry_back_off.base_interval: must be greater than 0s (duration.gt), got 0s`,
    ],
    [
      'a missing required duration',
      { retry_back_off: { max_interval: '1s' } },
      `${AT}.retry_policy.retry_back_off.base_interval: required (base_interval must be set)`,
    ],
    [
      'an invalid enum name',
      { rate_limited_retry_back_off: { reset_headers: [{ name: 'retry-after', format: 'MINUTES' }] } },
      `${AT}.retry_policy.rate_limited_retry_back_off.reset_headers[0].format: unknown envoy.config.route.v3.RetryPolicy.ResetHeaderFormat value "MINUTES"; known: SECONDS, UNIX_TIMESTAMP`,
    ],
    [
      'an enum number not defined (enum.defined_only)',
      { rate_limited_retry_back_off: { reset_headers: [{ name: 'retry-after', format: 7 }] } },
      `${AT}.retry_policy.rate_limited_retry_back_off.reset_headers[0].format: 7 is no ResetHeaderFormat value (enum.defined_only)`,
    ],
    [
      'an empty list (repeated.min_items)',
      { rate_limited_retry_back_off: { reset_headers: [] } },
      `${AT}.retry_policy.rate_limited_retry_back_off.reset_headers: must have at least 1 item(s) (repeated.min_items), got 0`,
    ],
    [
      'a header name with a line feed (well_known_regex, strict: false)',
      { rate_limited_retry_back_off: { reset_headers: [{ name: 'retry\nafter' }] } },
      `${AT}.retry_policy.rate_limited_retry_back_off.reset_headers[0].name: must be a valid HTTP_HEADER_NAME (no NUL, CR or LF), got "retry\\nafter"`,
    ],
    [
      'an empty header name (string.min_len)',
      { rate_limited_retry_back_off: { reset_headers: [{ name: '' }] } },
      `${AT}.retry_policy.rate_limited_retry_back_off.reset_headers[0].name: must be at least 1 characters long (string.min_len), got ""`,
    ],
    [
      'the same field twice',
      { num_retries: 1, numRetries: 2 },
      `${AT}.retry_policy.numRetries: field num_retries is set twice (as num_retries and numRetries)`,
    ],
  ])('refuses %s', (_what, policy, line) => {
    expect(protos.validate(ROUTES(policy), ROUTE_CONFIGURATION)).toEqual([line]);
  });

  it('refuses two members of a oneof, and a required oneof left empty', () => {
    expect(protos.validate(ROUTES({}, { cluster_header: 'x-cluster' }), ROUTE_CONFIGURATION)).toEqual([
      `${AT}: oneof cluster_specifier: at most one of its fields may be set, got cluster, cluster_header`,
    ]);
    const noCluster = {
      name: 'r',
      virtual_hosts: [{ name: 'b', domains: ['b'], routes: [{ match: { prefix: '/' }, route: {} }] }],
    };
    expect(protos.validate(noCluster, ROUTE_CONFIGURATION)).toEqual([
      `${AT}: oneof cluster_specifier: one of cluster, cluster_header, weighted_clusters, cluster_specifier_plugin, inline_cluster_specifier_plugin is required`,
    ]);
  });

  it('applies PGV rules to unset fields as PGV does (string.min_len, message.required, repeated.min_items)', () => {
    expect(
      protos.validate({ virtual_hosts: [{ routes: [{ route: { cluster: 'b' } }] }] }, ROUTE_CONFIGURATION),
    ).toEqual([
      'virtual_hosts[0].routes[0].match: required (match must be set)',
      'virtual_hosts[0].name: must be at least 1 characters long (string.min_len), got ""',
      'virtual_hosts[0].domains: must have at least 1 item(s) (repeated.min_items), got 0',
    ]);
  });

  it('resolves Any by its @type and validates what it holds; a type Envoy lacks is an error', () => {
    const filter = (typed: Record<string, unknown>) => ({
      static_resources: {
        listeners: [{ name: 'l', filter_chains: [{ filters: [{ name: 'hcm', typed_config: typed }] }] }],
      },
    });
    const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
    const P = 'static_resources.listeners[0].filter_chains[0].filters[0].typed_config';
    expect(
      protos.validate(
        filter({
          '@type': HCM,
          stat_prefix: 's',
          route_config: ROUTES({}),
          rds: { route_config_name: 'r', config_source: { ads: {} } },
        }),
        BOOTSTRAP,
      ),
    ).toEqual([`${P}: oneof route_specifier: at most one of its fields may be set, got rds, route_config`]);
    expect(
      protos.validate(
        filter({
          '@type': HCM,
          stat_prefix: 's',
          route_config: ROUTES({}),
          http_filters: [
            {
              name: 'router',
              typed_config: {
                '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
                dynamic_stats: 'yes',
              },
            },
          ],
        }),
        BOOTSTRAP,
      ),
    ).toEqual([`${P}.http_filters[0].typed_config.dynamic_stats: must be true or false, got "yes"`]);
    expect(
      protos.validate(
        filter({ '@type': 'type.googleapis.com/envoy.extensions.filters.network.nope.v3.Nope' }),
        BOOTSTRAP,
      ),
    ).toEqual([`${P}.@type: no message envoy.extensions.filters.network.nope.v3.Nope in Envoy's protos`]);
    expect(
      protos.validate(filter({ '@type': HCM, stat_prefix: 's', route_config: ROUTES({}), stat_prefx: 'x' }), BOOTSTRAP),
    ).toEqual([
      `${P}.stat_prefx: unknown field of envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager; did you mean stat_prefix?`,
    ]);
  });

  it('checks wrappers as bare values, PGV bounds on them, Percent, and a removed field', () => {
    const cluster = (extra: Record<string, unknown>) => ({ name: 'c', connect_timeout: '1s', ...extra });
    expect(protos.validate(cluster({ outlier_detection: { max_ejection_percent: 101 } }), CLUSTER)).toEqual([
      'outlier_detection.max_ejection_percent: must be at most 100 (uint32.lte), got 101',
    ]);
    expect(protos.validate(cluster({ outlier_detection: { consecutive_5xx: { value: 5 } } }), CLUSTER)).toEqual([
      'outlier_detection.consecutive_5xx: must be a whole number (uint32), got {"value":5}',
    ]);
    expect(
      protos.validate(cluster({ common_lb_config: { healthy_panic_threshold: { value: 101 } } }), CLUSTER),
    ).toEqual(['common_lb_config.healthy_panic_threshold.value: must be at most 100 (double.lte), got 101']);
    expect(protos.validate(cluster({ connect_timeout: '0s' }), CLUSTER)).toEqual([
      'connect_timeout: must be greater than 0s (duration.gt), got 0s',
    ]);
    expect(protos.validate({ runtime: {} }, BOOTSTRAP)).toEqual([
      'runtime: unknown field of envoy.config.bootstrap.v3.Bootstrap (a reserved name: removed from the API)',
    ]);
  });

  it('reads 64-bit integers as numbers or decimal strings, maps as mappings, Struct as anything', () => {
    expect(protos.validate(ROUTES({ host_selection_retry_max_attempts: '3' }), ROUTE_CONFIGURATION)).toEqual([]);
    expect(protos.validate(ROUTES({ host_selection_retry_max_attempts: 3.5 }), ROUTE_CONFIGURATION)).toEqual([
      `${AT}.retry_policy.host_selection_retry_max_attempts: must be a whole number (int64, or a decimal string), got 3.5`,
    ]);
    const vh = (extra: Record<string, unknown>) => ({
      name: 'r',
      virtual_hosts: [{ name: 'b', domains: ['b'], ...extra }],
    });
    expect(
      protos.validate(
        vh({ metadata: { filter_metadata: { a: { anything: [1, { b: null }] } } } }),
        ROUTE_CONFIGURATION,
      ),
    ).toEqual([]);
    expect(protos.validate(vh({ typed_per_filter_config: [] }), ROUTE_CONFIGURATION)).toEqual([
      'virtual_hosts[0].typed_per_filter_config: must be a mapping (map<string, google.protobuf.Any>), got []',
    ]);
    expect(protos.validate(vh({ typed_per_filter_config: { f: { stat_prefix: 'x' } } }), ROUTE_CONFIGURATION)).toEqual([
      'virtual_hosts[0].typed_per_filter_config["f"].@type: must be a type URL such as type.googleapis.com/<message>, got undefined',
    ]);
  });

  it('enforces every PGV rule kind the loaded protos carry', () => {
    const kinds = [...protos.ruleKindsInProtos()];
    expect(kinds.length).toBeGreaterThan(20);
    expect(kinds.filter((k) => !ENFORCED_RULES.includes(k))).toEqual([]);
  });
});

// ---- what the protos revealed in envoy-schema.ts / envoy-fields.ts ------------------------------------------------

async function readerProblems(text: string): Promise<string[]> {
  try {
    await readMeshText(text, 'in.yaml');
    return [];
  } catch (error) {
    if (error instanceof MeshError) return [...error.problems];
    throw error;
  }
}

const BOOT = (cluster: string) => `node: { id: a, cluster: a }\nstatic_resources:\n  clusters:\n    - ${cluster}\n`;
const POLICY = (policy: string) =>
  `virtual_hosts:\n  - name: b\n    domains: [b]\n    routes:\n      - match: { prefix: / }\n        route: { cluster: b, retry_policy: ${policy} }\n`;
const RP = 'in.yaml: document 1.virtual_hosts[0].routes[0].route.retry_policy';

describe("Seawall's reader refuses what Envoy's protos refuse (each found by this file)", () => {
  it.each([
    [
      'Bootstrap.runtime: removed from the v3 API (reserved 11)',
      'node: { id: a, cluster: a }\nruntime: {}\n',
      'in.yaml: document 1.runtime: unknown field',
    ],
    [
      "'@type' in a bootstrap's static cluster (a Cluster, not an Any)",
      BOOT("{ '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster, name: b, connect_timeout: 1s }"),
      'in.yaml: document 1.static_resources.clusters[0].@type: unknown field; did you mean type?',
    ],
    [
      'WeightedCluster.random_value_specifier: the name of a oneof, not a field (its member is header_name)',
      `virtual_hosts:\n  - name: b\n    domains: [b]\n    routes:\n      - match: { prefix: / }\n        route: { weighted_clusters: { clusters: [{ name: b, weight: 1 }], random_value_specifier: x-h } }\n`,
      'in.yaml: document 1.virtual_hosts[0].routes[0].route.weighted_clusters.random_value_specifier: unknown field',
    ],
    [
      'retry_back_off.base_interval 0s (duration.gt)',
      POLICY('{ retry_on: 5xx, retry_back_off: { base_interval: 0s } }'),
      `${RP}.retry_back_off.base_interval: must be greater than 0s (Envoy refuses 0s here)`,
    ],
    [
      'retry_back_off.max_interval 0s (duration.gt)',
      POLICY('{ retry_on: 5xx, retry_back_off: { base_interval: 1s, max_interval: 0s } }'),
      `${RP}.retry_back_off.max_interval: must be greater than 0s (Envoy refuses 0s here)`,
    ],
    [
      'rate_limited_retry_back_off.max_interval 0s (duration.gt)',
      POLICY(
        '{ retry_on: 5xx, rate_limited_retry_back_off: { reset_headers: [{ name: retry-after }], max_interval: 0s } }',
      ),
      `${RP}.rate_limited_retry_back_off.max_interval: must be greater than 0s (Envoy refuses 0s here)`,
    ],
    [
      'Cluster.connect_timeout 0s (duration.gt)',
      BOOT('{ name: b, connect_timeout: 0s }'),
      'in.yaml: document 1.static_resources.clusters[0].connect_timeout: must be greater than 0s (Envoy refuses 0s here)',
    ],
    [
      'outlier_detection interval, base_ejection_time, max_ejection_time 0s (duration.gt)',
      BOOT(
        '{ name: b, connect_timeout: 1s, outlier_detection: { interval: 0s, base_ejection_time: 0s, max_ejection_time: 0s } }',
      ),
      ['interval', 'base_ejection_time', 'max_ejection_time']
        .map(
          (f) =>
            `in.yaml: document 1.static_resources.clusters[0].outlier_detection.${f}: must be greater than 0s (Envoy refuses 0s here)`,
        )
        .join('\n'),
    ],
  ])('%s', async (_what, text, lines) => {
    const doc = parseYamlDocuments(text, 'x')[0]?.value as Record<string, unknown>;
    expect(protos.validate(doc, documentType(doc)).length).toBeGreaterThan(0);
    expect(await readerProblems(text)).toEqual(lines.split('\n'));
  });

  it("both accept a cluster '@type' where the cluster is an Any (an xDS-style resources list), and 1 ns durations", async () => {
    const list = `resources:\n  - { '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster, name: b, connect_timeout: 0.000000001s }\n`;
    expect(protos.validate(parseYamlDocuments(list, 'x')[0]?.value, DISCOVERY_RESPONSE)).toEqual([]);
    expect(await readerProblems(list)).toEqual([]);
  });
});

describe('the export never writes a 0s Envoy refuses (found by this file)', () => {
  it('maxRetryAfter 0 and sub-millisecond durations are written as 1 ms (Envoy reads whole ms), the change reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-protos-'));
    const file = join(dir, 'zero.yaml');
    writeFileSync(
      file,
      `name: zero\nextends: checkout-incident\nvariants:\n  zero:\n    services: { checkout-bff: { seawall: false }, coupon-api: { seawall: false }, member-api: { seawall: false } }\n    calls:\n      checkout-bff -> coupon-api:\n        maxAttempts: 3\n        perTryTimeout: 0.0000001ms\n        backoff: { kind: envoy, base: 0.0000001ms, max: 0.0000002ms }\n        honorRetryAfter: true\n        maxRetryAfter: 0ms\n        retryOn: [5xx, timeout]\n        outlierDetection: { baseEjectionTime: 0.0000001ms, maxEjectionTime: 0.0000001ms }\n      coupon-api -> member-api: { maxAttempts: 1 }\n`,
    );
    const { documents, errors } = await exportedEnvoy(file, 'zero.yaml');
    expect(errors).toEqual([]);
    expect(documents).toBe(3);
    const result = await exportScenario(file, { variant: 'zero', format: 'envoy' });
    const bff = result.files.find((f) => f.path === 'envoy/checkout-bff.yaml')?.text ?? '';
    // 1 ns would be 0 ms to Envoy: no per-try timeout, a back-off raised to 1 ms anyway.
    expect(bff).toContain('base_interval: 0.001s');
    expect(bff).toContain('per_try_timeout: 0.001s');
    expect(bff).toContain('interval: 0.001s');
    expect(bff).not.toContain('0.000000001s');
    expect(bff).not.toMatch(/(interval|per_try_timeout|ejection_time): 0s$/m);
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ kind: 'changed', where: 'checkout-bff -> coupon-api', field: 'maxRetryAfter' }),
    );
  });

  it('refuses, as simulate does, a sub-nanosecond outlier interval (billions of sweeps over the run)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-protos-'));
    const file = join(dir, 'sweeps.yaml');
    writeFileSync(
      file,
      `name: sweeps\nextends: checkout-incident\nvariants:\n  x:\n    calls:\n      checkout-bff -> coupon-api: { outlierDetection: { interval: 0.0000001ms } }\n`,
    );
    await expect(exportScenario(file, { variant: 'x', format: 'envoy' })).rejects.toThrow(
      /outlierDetection\.interval: .*sweeps/,
    );
  });
});
