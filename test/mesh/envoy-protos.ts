// Test-side validator: checks JSON/YAML values against Envoy's own API protos (from @grpc/grpc-js-xds, or a proto tree given) by the proto3 JSON mapping and their PGV rules.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { didYouMean } from '../../src/policy/core/config-error.js';

const require = createRequire(import.meta.url);
const XDS_DIR = dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
const PROTOBUFJS_DIR = dirname(require.resolve('protobufjs/package.json'));

/** The version of @grpc/grpc-js-xds whose deps/ folder holds the protos. */
export const XDS_PACKAGE_VERSION: string = JSON.parse(readFileSync(join(XDS_DIR, 'package.json'), 'utf8')).version;

/** Where a set of protos comes from: the folders imports resolve in, and those indexed for `@type` look-ups. */
export interface ProtoSource {
  /** Named in errors ("proto import not found in <label>"). */
  readonly label: string;
  /** Where imports resolve, in order (google/protobuf's well-known types come bundled with protobufjs). */
  readonly includeDirs: readonly string[];
  /** The trees whose every top-level message and enum is indexed by full name, for `@type` look-ups. */
  readonly indexDirs: readonly string[];
}

/** The protos @grpc/grpc-js-xds ships: Envoy's API, xds/udpa, protoc-gen-validate, googleapis; descriptor.proto from protobufjs. */
export const XDS_PACKAGE_PROTOS: ProtoSource = {
  label: '@grpc/grpc-js-xds deps',
  includeDirs: [
    ...['envoy-api', 'xds', 'protoc-gen-validate', 'googleapis'].map((d) => join(XDS_DIR, 'deps', d)),
    PROTOBUFJS_DIR,
  ],
  indexDirs: ['envoy-api', 'xds'].map((d) => join(XDS_DIR, 'deps', d)),
};

/** One proto tree laid out by package path (envoy/, xds/, udpa/, validate/, google/), protobufjs after it. */
export function protoTree(dir: string, label: string): ProtoSource {
  return { label, includeDirs: [dir, PROTOBUFJS_DIR], indexDirs: [dir] };
}

/** What Seawall's export writes: the bootstrap, and the two filters it names by @type. */
const ENTRY_FILES = [
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
];

/** The PGV rule kinds this validator enforces ("kind.rule"); any other rule met is recorded as skipped. */
export const ENFORCED_RULES: readonly string[] = [
  ...['const', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in'].flatMap((r) =>
    [
      'double',
      'float',
      'int32',
      'int64',
      'uint32',
      'uint64',
      'sint32',
      'sint64',
      'fixed32',
      'fixed64',
      'sfixed32',
      'sfixed64',
      'duration',
    ].map((k) => `${k}.${r}`),
  ),
  'duration.required',
  ...[
    'const',
    'len',
    'min_len',
    'max_len',
    'len_bytes',
    'min_bytes',
    'max_bytes',
    'pattern',
    'prefix',
    'suffix',
    'contains',
    'not_contains',
    'in',
    'not_in',
    'well_known_regex',
    'strict',
    'ignore_empty',
    'ip',
    'ipv4',
    'ipv6',
    'uuid',
  ].map((r) => `string.${r}`),
  'bytes.len',
  'bytes.min_len',
  'bytes.max_len',
  'bool.const',
  'enum.const',
  'enum.defined_only',
  'enum.in',
  'enum.not_in',
  'message.required',
  'message.skip',
  'repeated.min_items',
  'repeated.max_items',
  'repeated.unique',
  'repeated.items',
  'repeated.ignore_empty',
  'map.min_pairs',
  'map.max_pairs',
  'map.keys',
  'map.values',
  'map.ignore_empty',
  'any.required',
  'any.in',
  'any.not_in',
  'timestamp.required',
  'oneof.required',
];

export interface ValidateOptions {
  /** Deprecated fields and enum values are errors unless this is true (Envoy warns, or refuses some by default). */
  allowDeprecated?: boolean;
}

type Rules = Record<string, unknown>;
type Scalar = { kind: 'number'; value: number } | { kind: 'bigint'; value: bigint } | { kind: 'other'; value: unknown };

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};
const LONG_TYPES = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);
/** google.protobuf wrappers: their JSON is the bare wrapped value. */
const WRAPPERS: Readonly<Record<string, string>> = {
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'float',
  'google.protobuf.Int64Value': 'int64',
  'google.protobuf.UInt64Value': 'uint64',
  'google.protobuf.Int32Value': 'int32',
  'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.BytesValue': 'bytes',
};
/** proto3 JSON Duration: an optional sign, seconds, up to 9 fractional digits, "s". */
const DURATION = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const MAX_DURATION_SECONDS = 315_576_000_000n;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** PGV's well-known regexes (validate.proto): strict, and the lax form `strict: false` selects (no NUL, CR, LF). */
const HEADER_NAME_STRICT = /^:?[0-9a-zA-Z!#$%&'*+\-.^_|~`]+$/;
const headerValueStrict = (s: string) =>
  [...s].every((c) => {
    const code = c.codePointAt(0) as number;
    return code === 9 || (code > 31 && code !== 127);
  });
const headerLax = (s: string) => !/[\0\n\r]/.test(s);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function join2(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function at(path: string): string {
  return path === '' ? '(root)' : path;
}

/** Merges the field's `(validate.rules)` options (a field may set several, e.g. `.uint32.lte` and `.uint32.gte`). */
function deepMerge(a: Rules, b: Rules): Rules {
  const out: Rules = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isRecord(prev) && isRecord(v) ? deepMerge(prev, v) : v;
  }
  return out;
}

function parsedRules(options: { [k: string]: unknown }[] | undefined, name: string): Rules | undefined {
  let rules: Rules | undefined;
  for (const o of options ?? []) {
    const r = o[name];
    if (isRecord(r)) rules = rules === undefined ? r : deepMerge(rules, r);
  }
  return rules;
}

/** Nanoseconds of a PGV duration literal `{ seconds, nanos }`. */
function ruleNanos(v: unknown): bigint {
  const r = isRecord(v) ? v : {};
  return BigInt(String(r.seconds ?? 0)) * 1_000_000_000n + BigInt(String(r.nanos ?? 0));
}

function durationText(ns: bigint): string {
  const neg = ns < 0n;
  const abs = neg ? -ns : ns;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${abs / 1_000_000_000n}${frac === '' ? '' : `.${frac}`}s`;
}

function compare(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** An index of every top-level message and enum in the given trees' protos, by full name, for `@type` look-ups. */
function indexProtoFiles(dirs: readonly string[]): Map<string, string> {
  const index = new Map<string, string>();
  const walk = (base: string, rel: string) => {
    const dir = join(base, rel);
    for (const entry of readdirSync(dir)) {
      const relPath = rel === '' ? entry : `${rel}/${entry}`;
      if (statSync(join(dir, entry)).isDirectory()) walk(base, relPath);
      else if (entry.endsWith('.proto')) {
        const text = readFileSync(join(dir, entry), 'utf8');
        const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
        if (pkg === undefined) continue;
        for (const m of text.matchAll(/^(?:message|enum)\s+(\w+)/gm)) index.set(`${pkg}.${m[1]}`, relPath);
      }
    }
  };
  for (const d of dirs) walk(d, '');
  return index;
}

export class EnvoyProtos {
  readonly root: protobuf.Root;
  /** PGV rules met in a validated value that this validator does not enforce ("kind.rule"). */
  readonly skippedRules = new Set<string>();
  private index: Map<string, string> | undefined;

  constructor(
    entryFiles: readonly string[] = ENTRY_FILES,
    readonly source: ProtoSource = XDS_PACKAGE_PROTOS,
  ) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => {
      for (const dir of source.includeDirs) {
        const candidate = join(dir, target);
        try {
          if (statSync(candidate).isFile()) return candidate;
        } catch {
          // not in this include dir
        }
      }
      throw new Error(`proto import not found in ${source.label}: ${target}`);
    };
    root.loadSync([...entryFiles], { keepCase: true });
    root.resolveAll();
    this.root = root;
  }

  /** The message type of a full name ("envoy.config.bootstrap.v3.Bootstrap"), loading its file when needed. */
  type(fullName: string): protobuf.Type | undefined {
    const found = this.find(fullName);
    if (found !== undefined) return found;
    this.index ??= indexProtoFiles(this.source.indexDirs);
    const file = this.index.get(fullName);
    if (file === undefined) return undefined;
    this.root.loadSync(file, { keepCase: true });
    this.root.resolveAll();
    return this.find(fullName);
  }

  private find(fullName: string): protobuf.Type | undefined {
    const found = this.root.lookup(fullName);
    return found instanceof protobuf.Type ? found : undefined;
  }

  /** Every PGV rule kind ("kind.rule") in the loaded messages' field and oneof options. */
  ruleKindsInProtos(): Set<string> {
    const kinds = new Set<string>();
    const visit = (ns: protobuf.NamespaceBase) => {
      for (const o of ns.nestedArray) {
        if (o instanceof protobuf.Type) {
          for (const f of o.fieldsArray) {
            const rules = parsedRules(f.parsedOptions, '(validate.rules)');
            if (rules !== undefined) collectKinds(rules, kinds);
          }
          for (const oneof of o.oneofsArray)
            if (oneof.options?.['(validate.required)'] === true) kinds.add('oneof.required');
        }
        if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) visit(o);
      }
    };
    visit(this.root);
    return kinds;
  }

  /** Checks `value` (parsed JSON or YAML) against the message `typeName`; one line per error, with its path. */
  validate(value: unknown, typeName: string, options: ValidateOptions = {}): string[] {
    const type = this.type(typeName);
    if (type === undefined) throw new Error(`no message ${typeName} in the loaded protos`);
    const errors: string[] = [];
    new Walk(this, errors, options.allowDeprecated === true).message(value, type, '', true);
    return errors;
  }
}

function collectKinds(rules: Rules, kinds: Set<string>): void {
  for (const [kind, body] of Object.entries(rules)) {
    if (!isRecord(body)) continue;
    for (const [rule, inner] of Object.entries(body)) {
      kinds.add(`${kind}.${rule}`);
      if ((kind === 'repeated' && rule === 'items') || (kind === 'map' && (rule === 'keys' || rule === 'values')))
        if (isRecord(inner)) collectKinds(inner, kinds);
    }
  }
}

class Walk {
  constructor(
    private readonly protos: EnvoyProtos,
    private readonly errors: string[],
    private readonly allowDeprecated: boolean,
  ) {}

  private error(path: string, message: string): void {
    this.errors.push(`${at(path)}: ${message}`);
  }

  /** A message value; `pgv` is false under `(validate.rules).message.skip`. */
  message(value: unknown, type: protobuf.Type, path: string, pgv: boolean): void {
    const name = type.fullName.replace(/^\./, '');
    if (name.startsWith('google.protobuf.') && this.wellKnown(value, name, path, pgv)) return;
    if (!isRecord(value)) {
      this.error(path, `must be a mapping (${name}), got ${show(value)}`);
      return;
    }
    const byKey = new Map<string, protobuf.Field>();
    for (const f of type.fieldsArray) {
      byKey.set(f.name, f);
      byKey.set(f.jsonName, f);
    }
    const seen = new Map<protobuf.Field, string>();
    for (const [key, v] of Object.entries(value)) {
      const field = byKey.get(key);
      const fieldPath = join2(path, key);
      if (field === undefined) {
        const reserved = type.isReservedName(key) ? ' (a reserved name: removed from the API)' : '';
        this.error(
          fieldPath,
          `unknown field of ${name}${reserved}${didYouMean(
            key,
            type.fieldsArray.map((f) => f.name),
          )}`,
        );
        continue;
      }
      const other = seen.get(field);
      if (other !== undefined) {
        this.error(fieldPath, `field ${field.name} is set twice (as ${other} and ${key})`);
        continue;
      }
      seen.set(field, key);
      if (v === null) continue; // proto3 JSON: null is the field's default (not set)
      if (field.options?.deprecated === true && !this.allowDeprecated)
        this.error(fieldPath, `deprecated field of ${name}`);
      this.field(v, field, fieldPath, pgv);
    }
    const set = (f: protobuf.Field) => {
      const key = seen.get(f);
      return key !== undefined && value[key] !== null;
    };
    for (const oneof of type.oneofsArray) {
      const members = oneof.fieldsArray.filter(set);
      if (members.length > 1)
        this.error(
          path,
          `oneof ${oneof.name}: at most one of its fields may be set, got ${members.map((f) => f.name).join(', ')}`,
        );
      if (pgv && members.length === 0 && oneof.options?.['(validate.required)'] === true)
        this.error(path, `oneof ${oneof.name}: one of ${oneof.fieldsArray.map((f) => f.name).join(', ')} is required`);
    }
    if (pgv) {
      // PGV checks an unset singular scalar as its default value, an unset list as [], and an unset message as absent.
      for (const f of type.fieldsArray) {
        if (set(f)) continue;
        const rules = parsedRules(f.parsedOptions, '(validate.rules)');
        if (rules === undefined) continue;
        this.absent(f, rules, join2(path, f.name));
      }
    }
  }

  private absent(field: protobuf.Field, rules: Rules, path: string): void {
    if (field.map) {
      this.mapRules(rules, {}, path);
      return;
    }
    if (field.repeated) {
      this.repeatedRules(rules, [], path, field);
      return;
    }
    if (field.partOf !== null && field.partOf !== undefined) return; // an unset oneof member is not checked
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      for (const kind of ['message', 'duration', 'any', 'timestamp']) {
        const r = rules[kind];
        if (isRecord(r) && r.required === true) this.error(path, `required (${field.name} must be set)`);
      }
      return;
    }
    if (resolved instanceof protobuf.Enum) {
      this.enumRules(rules, 0, resolved, path);
      return;
    }
    const defaults: Record<string, unknown> = { string: '', bool: false, bytes: '' };
    const def = defaults[field.type] ?? 0;
    this.scalarRules(rules, field.type, this.scalarValue(def, field.type, path), path);
  }

  private field(value: unknown, field: protobuf.Field, path: string, pgv: boolean): void {
    const rules = pgv ? parsedRules(field.parsedOptions, '(validate.rules)') : undefined;
    if (field.map) {
      const keyType = (field as unknown as protobuf.MapField).keyType;
      if (!isRecord(value)) {
        this.error(path, `must be a mapping (map<${keyType}, ${field.type}>), got ${show(value)}`);
        return;
      }
      const valueRules =
        rules !== undefined && isRecord(rules.map) && isRecord(rules.map.values) ? rules.map.values : undefined;
      const keyRules =
        rules !== undefined && isRecord(rules.map) && isRecord(rules.map.keys) ? rules.map.keys : undefined;
      for (const [k, v] of Object.entries(value)) {
        const entryPath = `${path}[${JSON.stringify(k)}]`;
        this.mapKey(k, keyType, entryPath, keyRules);
        if (v === null) {
          this.error(entryPath, 'a map value must not be null');
          continue;
        }
        this.single(v, field, entryPath, pgv, valueRules);
      }
      if (rules !== undefined) this.mapRules(rules, value, path);
      return;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) {
        this.error(path, `must be a list (repeated ${field.type}), got ${show(value)}`);
        return;
      }
      const itemRules =
        rules !== undefined && isRecord(rules.repeated) && isRecord(rules.repeated.items)
          ? rules.repeated.items
          : undefined;
      value.forEach((item, i) => {
        if (item === null) this.error(`${path}[${i}]`, 'a list item must not be null');
        else this.single(item, field, `${path}[${i}]`, pgv, itemRules);
      });
      if (rules !== undefined) this.repeatedRules(rules, value, path, field);
      return;
    }
    this.single(value, field, path, pgv, rules);
  }

  private mapKey(key: string, keyType: string, path: string, rules: Rules | undefined): void {
    let parsed: unknown = key;
    if (keyType === 'bool') {
      if (key !== 'true' && key !== 'false') this.error(path, `map key must be true or false, got ${show(key)}`);
    } else if (keyType in INT_RANGES) {
      if (!/^-?\d+$/.test(key)) this.error(path, `map key must be a decimal ${keyType}, got ${show(key)}`);
      else {
        const n = BigInt(key);
        const [lo, hi] = INT_RANGES[keyType] as readonly [bigint, bigint];
        if (n < lo || n > hi) this.error(path, `map key out of ${keyType} range: ${key}`);
        parsed = n;
      }
    }
    if (rules !== undefined)
      this.scalarRules(
        rules,
        keyType,
        typeof parsed === 'bigint' ? { kind: 'bigint', value: parsed } : { kind: 'other', value: parsed },
        path,
      );
  }

  /** One value of a field's type (a list item, a map value, or a singular field). */
  private single(value: unknown, field: protobuf.Field, path: string, pgv: boolean, rules: Rules | undefined): void {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      const skip = rules !== undefined && isRecord(rules.message) && rules.message.skip === true;
      this.message(value, resolved, path, pgv && !skip);
      if (rules !== undefined) this.messageRules(rules, value, resolved, path);
      return;
    }
    if (resolved instanceof protobuf.Enum) {
      const n = this.enumValue(value, resolved, path);
      if (n !== undefined && rules !== undefined) this.enumRules(rules, n, resolved, path);
      return;
    }
    const scalar = this.scalarValue(value, field.type, path);
    if (scalar !== undefined && rules !== undefined) this.scalarRules(rules, field.type, scalar, path);
  }

  private enumValue(value: unknown, en: protobuf.Enum, path: string): number | undefined {
    const name = en.fullName.replace(/^\./, '');
    if (name === 'google.protobuf.NullValue') {
      if (value !== null && value !== 'NULL_VALUE') this.error(path, `must be null, got ${show(value)}`);
      return 0;
    }
    if (typeof value === 'string') {
      const n = en.values[value];
      if (n === undefined) {
        this.error(path, `unknown ${name} value ${show(value)}; known: ${Object.keys(en.values).join(', ')}`);
        return undefined;
      }
      if (en.valuesOptions?.[value]?.deprecated === true && !this.allowDeprecated)
        this.error(path, `deprecated ${name} value ${value}`);
      return n;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return value;
    this.error(path, `must be a ${name} name (or its number), got ${show(value)}`);
    return undefined;
  }

  /** A scalar by proto3 JSON; undefined (and an error) when it is not one. */
  private scalarValue(value: unknown, type: string, path: string): Scalar | undefined {
    switch (type) {
      case 'string':
        if (typeof value === 'string') return { kind: 'other', value };
        this.error(path, `must be a string, got ${show(value)}`);
        return undefined;
      case 'bool':
        if (typeof value === 'boolean') return { kind: 'other', value };
        this.error(path, `must be true or false, got ${show(value)}`);
        return undefined;
      case 'bytes':
        if (typeof value === 'string' && BASE64.test(value)) return { kind: 'other', value };
        this.error(path, `must be base64 bytes, got ${show(value)}`);
        return undefined;
      case 'double':
      case 'float':
        if (typeof value === 'number' && Number.isFinite(value)) {
          if (type === 'float' && Math.abs(value) > 3.4028234663852886e38)
            this.error(path, `out of float range: ${value}`);
          return { kind: 'number', value };
        }
        if (value === 'NaN' || value === 'Infinity' || value === '-Infinity')
          return { kind: 'number', value: Number(value) };
        this.error(path, `must be a number, got ${show(value)}`);
        return undefined;
    }
    const range = INT_RANGES[type];
    if (range === undefined) {
      this.error(path, `unsupported scalar type ${type}`);
      return undefined;
    }
    let n: bigint | undefined;
    if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
    else if (typeof value === 'string' && LONG_TYPES.has(type) && /^-?\d+$/.test(value)) n = BigInt(value);
    if (n === undefined) {
      this.error(
        path,
        `must be a whole number (${type}${LONG_TYPES.has(type) ? ', or a decimal string' : ''}), got ${show(value)}`,
      );
      return undefined;
    }
    if (n < range[0] || n > range[1]) {
      this.error(path, `out of ${type} range [${range[0]}, ${range[1]}]: ${n}`);
      return undefined;
    }
    return { kind: 'bigint', value: n };
  }

  /** Types with a special JSON form; false when `name` is an ordinary message. */
  private wellKnown(value: unknown, name: string, path: string, pgv: boolean): boolean {
    const wrapped = WRAPPERS[name];
    if (wrapped !== undefined) {
      this.scalarValue(value, wrapped, path);
      return true;
    }
    switch (name) {
      case 'google.protobuf.Duration':
        this.duration(value, path);
        return true;
      case 'google.protobuf.Timestamp':
        if (typeof value !== 'string' || !TIMESTAMP.test(value))
          this.error(path, `must be an RFC 3339 timestamp string, got ${show(value)}`);
        return true;
      case 'google.protobuf.FieldMask':
        if (typeof value !== 'string')
          this.error(path, `must be a comma-separated field mask string, got ${show(value)}`);
        return true;
      case 'google.protobuf.Struct':
        if (!isRecord(value)) this.error(path, `must be a mapping (google.protobuf.Struct), got ${show(value)}`);
        return true;
      case 'google.protobuf.Value':
        return true;
      case 'google.protobuf.ListValue':
        if (!Array.isArray(value)) this.error(path, `must be a list (google.protobuf.ListValue), got ${show(value)}`);
        return true;
      case 'google.protobuf.Empty':
        if (!isRecord(value) || Object.keys(value).length > 0)
          this.error(path, `must be {} (google.protobuf.Empty), got ${show(value)}`);
        return true;
      case 'google.protobuf.Any':
        this.any(value, path, pgv);
        return true;
      default:
        return false;
    }
  }

  /** Nanoseconds of a proto3 JSON duration, or undefined (and an error). */
  private duration(value: unknown, path: string): bigint | undefined {
    const m = typeof value === 'string' ? DURATION.exec(value) : null;
    if (m === null) {
      this.error(path, `must be a duration string such as "0.25s" (proto3 JSON), got ${show(value)}`);
      return undefined;
    }
    const seconds = BigInt(m[2] as string);
    if (seconds > MAX_DURATION_SECONDS) {
      this.error(path, `duration out of range (at most ${MAX_DURATION_SECONDS}s): ${String(value)}`);
      return undefined;
    }
    const ns = seconds * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0'));
    return m[1] === '-' ? -ns : ns;
  }

  private any(value: unknown, path: string, pgv: boolean): void {
    if (!isRecord(value)) {
      this.error(path, `must be a mapping with "@type" (google.protobuf.Any), got ${show(value)}`);
      return;
    }
    const url = value['@type'];
    if (typeof url !== 'string' || !url.includes('/')) {
      this.error(join2(path, '@type'), `must be a type URL such as type.googleapis.com/<message>, got ${show(url)}`);
      return;
    }
    const typeName = url.slice(url.lastIndexOf('/') + 1);
    const type = this.protos.type(typeName);
    if (type === undefined) {
      this.error(join2(path, '@type'), `no message ${typeName} in Envoy's protos`);
      return;
    }
    const body = Object.fromEntries(Object.entries(value).filter(([k]) => k !== '@type'));
    const special = typeName.startsWith('google.protobuf.') && (typeName in WRAPPERS || SPECIAL_JSON.has(typeName));
    if (special) {
      for (const k of Object.keys(body))
        if (k !== 'value')
          this.error(join2(path, k), `unknown field of an Any holding ${typeName} (its JSON goes in "value")`);
      if (!('value' in body)) this.error(path, `an Any holding ${typeName} needs "value"`);
      else this.message(body.value, type, join2(path, 'value'), pgv);
      return;
    }
    this.message(body, type, path, pgv);
  }

  private messageRules(rules: Rules, value: unknown, type: protobuf.Type, path: string): void {
    for (const [kind, body] of Object.entries(rules)) {
      if (!isRecord(body)) continue;
      const name = type.fullName.replace(/^\./, '');
      if (kind === 'message') {
        for (const r of Object.keys(body))
          if (r !== 'required' && r !== 'skip') this.protos.skippedRules.add(`message.${r}`);
      } else if (kind === 'duration' && name === 'google.protobuf.Duration') {
        const ns = typeof value === 'string' && DURATION.test(value) ? this.durationQuiet(value) : undefined;
        if (ns !== undefined) this.rangeRules(body, 'duration', ns, path, (x) => durationText(x as bigint), ruleNanos);
      } else if (kind === 'any' && name === 'google.protobuf.Any') {
        const url = isRecord(value) ? value['@type'] : undefined;
        if (Array.isArray(body.in) && !body.in.includes(url))
          this.error(path, `@type must be one of ${body.in.join(', ')}`);
        if (Array.isArray(body.not_in) && body.not_in.includes(url))
          this.error(path, `@type must not be ${String(url)}`);
        for (const r of Object.keys(body))
          if (!['required', 'in', 'not_in'].includes(r)) this.protos.skippedRules.add(`any.${r}`);
      } else if (kind === 'timestamp') {
        for (const r of Object.keys(body)) if (r !== 'required') this.protos.skippedRules.add(`timestamp.${r}`);
      } else if (WRAPPERS[name] !== undefined) {
        const inner = WRAPPERS[name] as string;
        const scalar = this.scalarValueQuiet(value, inner);
        if (scalar !== undefined) this.scalarRules({ [kind]: body }, inner, scalar, path);
      } else {
        for (const r of Object.keys(body)) this.protos.skippedRules.add(`${kind}.${r}`);
      }
    }
  }

  private durationQuiet(value: string): bigint | undefined {
    const errors: string[] = [];
    return new Walk(this.protos, errors, true).duration(value, '');
  }

  private scalarValueQuiet(value: unknown, type: string): Scalar | undefined {
    return new Walk(this.protos, [], true).scalarValue(value, type, '');
  }

  private rangeRules(
    body: Rules,
    kind: string,
    value: number | bigint,
    path: string,
    text: (v: number | bigint) => string,
    literal: (v: unknown) => number | bigint = (v) => (typeof v === 'string' ? BigInt(v) : (v as number)),
  ): void {
    const has = (k: string) => body[k] !== undefined;
    if (has('const') && compare(value, literal(body.const)) !== 0)
      this.error(path, `must equal ${text(literal(body.const))} (${kind}.const), got ${text(value)}`);
    const lower = has('gt')
      ? { v: literal(body.gt), ok: (c: number) => c > 0, word: 'greater than', rule: 'gt' }
      : has('gte')
        ? { v: literal(body.gte), ok: (c: number) => c >= 0, word: 'at least', rule: 'gte' }
        : undefined;
    const upper = has('lt')
      ? { v: literal(body.lt), ok: (c: number) => c < 0, word: 'less than', rule: 'lt' }
      : has('lte')
        ? { v: literal(body.lte), ok: (c: number) => c <= 0, word: 'at most', rule: 'lte' }
        : undefined;
    if (lower !== undefined && upper !== undefined && compare(upper.v, lower.v) < 0) {
      // PGV's exclusive range: lt/lte below gt/gte means "outside [upper, lower]".
      if (!upper.ok(compare(value, upper.v)) && !lower.ok(compare(value, lower.v)))
        this.error(
          path,
          `must be ${upper.word} ${text(upper.v)} or ${lower.word} ${text(lower.v)}, got ${text(value)}`,
        );
    } else {
      if (lower !== undefined && !lower.ok(compare(value, lower.v)))
        this.error(path, `must be ${lower.word} ${text(lower.v)} (${kind}.${lower.rule}), got ${text(value)}`);
      if (upper !== undefined && !upper.ok(compare(value, upper.v)))
        this.error(path, `must be ${upper.word} ${text(upper.v)} (${kind}.${upper.rule}), got ${text(value)}`);
    }
    const list = (k: string) => (Array.isArray(body[k]) ? (body[k] as unknown[]).map(literal) : undefined);
    const inList = list('in');
    if (inList !== undefined && !inList.some((x) => compare(value, x) === 0))
      this.error(path, `must be one of ${inList.map(text).join(', ')} (${kind}.in), got ${text(value)}`);
    const notIn = list('not_in');
    if (notIn?.some((x) => compare(value, x) === 0)) this.error(path, `must not be ${text(value)} (${kind}.not_in)`);
    for (const r of Object.keys(body))
      if (!['const', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'required'].includes(r))
        this.protos.skippedRules.add(`${kind}.${r}`);
  }

  private scalarRules(rules: Rules, type: string, scalar: Scalar | undefined, path: string): void {
    if (scalar === undefined) return;
    for (const [kind, body] of Object.entries(rules)) {
      if (!isRecord(body)) continue;
      if (kind === 'string' && typeof scalar.value === 'string') this.stringRules(body, scalar.value, path);
      else if (kind === 'bytes' && typeof scalar.value === 'string') {
        const n = Buffer.from(scalar.value, 'base64').length;
        if (typeof body.len === 'number' && n !== body.len) this.error(path, `must be ${body.len} bytes, got ${n}`);
        if (typeof body.min_len === 'number' && n < body.min_len)
          this.error(path, `must be at least ${body.min_len} bytes, got ${n}`);
        if (typeof body.max_len === 'number' && n > body.max_len)
          this.error(path, `must be at most ${body.max_len} bytes, got ${n}`);
        for (const r of Object.keys(body))
          if (!['len', 'min_len', 'max_len'].includes(r)) this.protos.skippedRules.add(`bytes.${r}`);
      } else if (kind === 'bool') {
        if (body.const !== undefined && scalar.value !== body.const)
          this.error(path, `must be ${String(body.const)} (bool.const)`);
      } else if (scalar.kind === 'number' || scalar.kind === 'bigint') {
        if (kind !== type) this.protos.skippedRules.add(`${kind} rules on ${type}`);
        this.rangeRules(body, kind, scalar.value, path, (v) => String(v));
      } else for (const r of Object.keys(body)) this.protos.skippedRules.add(`${kind}.${r}`);
    }
  }

  private stringRules(body: Rules, s: string, path: string): void {
    if (body.ignore_empty === true && s === '') return;
    const runes = [...s].length;
    const bytes = Buffer.byteLength(s, 'utf8');
    const num = (k: string) => (body[k] === undefined ? undefined : Number(body[k]));
    const check = (ok: boolean, message: string) => {
      if (!ok) this.error(path, `${message}, got ${show(s)}`);
    };
    const n = (k: string) => num(k) as number;
    if (body.const !== undefined) check(s === body.const, `must be ${show(body.const)}`);
    if (num('len') !== undefined) check(runes === n('len'), `must be ${n('len')} characters long`);
    if (num('min_len') !== undefined)
      check(runes >= n('min_len'), `must be at least ${n('min_len')} characters long (string.min_len)`);
    if (num('max_len') !== undefined)
      check(runes <= n('max_len'), `must be at most ${n('max_len')} characters long (string.max_len)`);
    if (num('len_bytes') !== undefined) check(bytes === n('len_bytes'), `must be ${n('len_bytes')} bytes long`);
    if (num('min_bytes') !== undefined) check(bytes >= n('min_bytes'), `must be at least ${n('min_bytes')} bytes long`);
    if (num('max_bytes') !== undefined)
      check(bytes <= n('max_bytes'), `must be at most ${n('max_bytes')} bytes long (string.max_bytes)`);
    if (typeof body.pattern === 'string') {
      let re: RegExp | undefined;
      try {
        re = new RegExp(body.pattern, 'u');
      } catch {
        this.protos.skippedRules.add(`string.pattern (not a JS regex: ${body.pattern})`);
      }
      if (re !== undefined) check(re.test(s), `must match ${body.pattern} (string.pattern)`);
    }
    if (typeof body.prefix === 'string') check(s.startsWith(body.prefix), `must start with ${show(body.prefix)}`);
    if (typeof body.suffix === 'string') check(s.endsWith(body.suffix), `must end with ${show(body.suffix)}`);
    if (typeof body.contains === 'string') check(s.includes(body.contains), `must contain ${show(body.contains)}`);
    if (typeof body.not_contains === 'string')
      check(!s.includes(body.not_contains), `must not contain ${show(body.not_contains)}`);
    if (Array.isArray(body.in)) check(body.in.includes(s), `must be one of ${body.in.join(', ')} (string.in)`);
    if (Array.isArray(body.not_in)) check(!body.not_in.includes(s), `must not be one of ${body.not_in.join(', ')}`);
    if (typeof body.well_known_regex === 'string') {
      const strict = body.strict !== false;
      const test = !strict
        ? headerLax
        : body.well_known_regex === 'HTTP_HEADER_NAME'
          ? (x: string) => HEADER_NAME_STRICT.test(x)
          : body.well_known_regex === 'HTTP_HEADER_VALUE'
            ? headerValueStrict
            : undefined;
      if (test === undefined) this.protos.skippedRules.add(`string.well_known_regex ${body.well_known_regex}`);
      else check(test(s), `must be a valid ${body.well_known_regex}${strict ? '' : ' (no NUL, CR or LF)'}`);
    }
    if (body.ip === true) check(isIP(s) !== 0, 'must be an IP address');
    if (body.ipv4 === true) check(isIP(s) === 4, 'must be an IPv4 address');
    if (body.ipv6 === true) check(isIP(s) === 6, 'must be an IPv6 address');
    if (body.uuid === true) check(UUID.test(s), 'must be a UUID');
    const known = new Set([
      'const',
      'len',
      'min_len',
      'max_len',
      'len_bytes',
      'min_bytes',
      'max_bytes',
      'pattern',
      'prefix',
      'suffix',
      'contains',
      'not_contains',
      'in',
      'not_in',
      'well_known_regex',
      'strict',
      'ignore_empty',
      'ip',
      'ipv4',
      'ipv6',
      'uuid',
    ]);
    for (const r of Object.keys(body)) if (!known.has(r)) this.protos.skippedRules.add(`string.${r}`);
  }

  private enumRules(rules: Rules, n: number, en: protobuf.Enum, path: string): void {
    const body = rules.enum;
    if (!isRecord(body)) return;
    const name = en.valuesById[n] ?? String(n);
    if (body.defined_only === true && en.valuesById[n] === undefined)
      this.error(path, `${n} is no ${en.name} value (enum.defined_only)`);
    if (body.const !== undefined && n !== body.const)
      this.error(path, `must be ${en.valuesById[body.const as number] ?? String(body.const)}`);
    if (Array.isArray(body.in) && !body.in.includes(n))
      this.error(path, `must be one of ${body.in.map((x: number) => en.valuesById[x]).join(', ')}, got ${name}`);
    if (Array.isArray(body.not_in) && body.not_in.includes(n)) this.error(path, `must not be ${name} (enum.not_in)`);
    for (const r of Object.keys(body))
      if (!['defined_only', 'const', 'in', 'not_in'].includes(r)) this.protos.skippedRules.add(`enum.${r}`);
  }

  private repeatedRules(rules: Rules, items: readonly unknown[], path: string, field: protobuf.Field): void {
    const body = rules.repeated;
    if (!isRecord(body)) {
      for (const k of Object.keys(rules)) this.protos.skippedRules.add(`${k} on repeated ${field.name}`);
      return;
    }
    if (body.ignore_empty === true && items.length === 0) return;
    if (body.min_items !== undefined && items.length < Number(body.min_items))
      this.error(
        path,
        `must have at least ${String(body.min_items)} item(s) (repeated.min_items), got ${items.length}`,
      );
    if (body.max_items !== undefined && items.length > Number(body.max_items))
      this.error(path, `must have at most ${String(body.max_items)} item(s) (repeated.max_items), got ${items.length}`);
    if (body.unique === true) {
      const texts = items.map((x) => JSON.stringify(x));
      if (new Set(texts).size !== texts.length) this.error(path, 'items must be unique (repeated.unique)');
    }
    for (const r of Object.keys(body))
      if (!['min_items', 'max_items', 'unique', 'items', 'ignore_empty'].includes(r))
        this.protos.skippedRules.add(`repeated.${r}`);
  }

  private mapRules(rules: Rules, entries: Record<string, unknown>, path: string): void {
    const body = rules.map;
    if (!isRecord(body)) return;
    const n = Object.keys(entries).length;
    if (body.ignore_empty === true && n === 0) return;
    if (body.min_pairs !== undefined && n < Number(body.min_pairs))
      this.error(path, `must have at least ${String(body.min_pairs)} entries (map.min_pairs), got ${n}`);
    if (body.max_pairs !== undefined && n > Number(body.max_pairs))
      this.error(path, `must have at most ${String(body.max_pairs)} entries (map.max_pairs), got ${n}`);
    for (const r of Object.keys(body))
      if (!['min_pairs', 'max_pairs', 'keys', 'values', 'ignore_empty'].includes(r))
        this.protos.skippedRules.add(`map.${r}`);
  }
}

/** Well-known types whose JSON is not an object of their fields (inside an Any they go in "value"). */
const SPECIAL_JSON = new Set([
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
  'google.protobuf.FieldMask',
  'google.protobuf.Struct',
  'google.protobuf.Value',
  'google.protobuf.ListValue',
  'google.protobuf.Any',
]);

let shared: EnvoyProtos | undefined;

/** The protos of Seawall's Envoy output, loaded once per test file (about 0.3 s). */
export function envoyProtos(): EnvoyProtos {
  shared ??= new EnvoyProtos();
  return shared;
}
