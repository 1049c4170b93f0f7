// Test-side validator: checks Istio resources against the openAPIV3Schema of Istio's published CRDs, strictly (unknown fields are errors, as with `kubectl apply --validate=strict`), with their x-kubernetes-validations CEL rules.
import { readFileSync } from 'node:fs';
import { parse as parseCel } from '@marcbachmann/cel-js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { type CrdRelease, referencePath } from './mesh-reference.js';

type Schema = Record<string, unknown>;
type CelProgram = (context: Record<string, unknown>) => unknown;
interface Crd {
  kind?: string;
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

/** The openAPIV3Schema keywords this adapter knows; any other one met throws (so none is silently ignored). */
const KNOWN = new Set([
  'description',
  'type',
  'properties',
  'additionalProperties',
  'items',
  'enum',
  'format',
  'maximum',
  'minimum',
  'maxItems',
  'minItems',
  'maxLength',
  'minLength',
  'maxProperties',
  'minProperties',
  'pattern',
  'required',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'nullable',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
]);

/** One Kubernetes ObjectMeta as a resource file sets it (names: DNS-1123 subdomain, namespace: DNS-1123 label). */
const OBJECT_META: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
    },
    namespace: { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

/**
 * openAPIV3Schema -> JSON Schema for ajv: `nullable` adds null, int-or-string is integer or string, an object without
 * `x-kubernetes-preserve-unknown-fields` and without `additionalProperties` gets `additionalProperties: false` (what
 * strict field validation refuses), and `x-kubernetes-validations` stays, for the keyword that runs its CEL rules.
 */
export function adaptSchema(node: Schema, path = '(root)'): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KNOWN.has(key)) throw new Error(`${path}: openAPIV3Schema keyword ${key} is not handled by the adapter`);
    switch (key) {
      case 'description':
      case 'nullable':
      case 'x-kubernetes-int-or-string':
      case 'x-kubernetes-preserve-unknown-fields':
        break;
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, adaptSchema(v, `${path}.${k}`)]),
        );
        break;
      case 'items':
      case 'not':
        out[key] = adaptSchema(value as Schema, `${path}.${key}`);
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : adaptSchema(value as Schema, `${path}.*`);
        break;
      case 'oneOf':
      case 'anyOf':
      case 'allOf':
        out[key] = (value as Schema[]).map((v, i) => adaptSchema(v, `${path}.${key}[${i}]`));
        break;
      default:
        out[key] = value;
    }
  }
  const nullable = node.nullable === true;
  if (node['x-kubernetes-int-or-string'] === true) {
    const alternatives: Schema[] = [{ type: 'integer' }, { type: 'string' }, ...(nullable ? [{ type: 'null' }] : [])];
    out.allOf = [...((out.allOf as Schema[] | undefined) ?? []), { anyOf: alternatives }];
  } else if (typeof node.type === 'string' && nullable) {
    out.type = [node.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  if (node.type === 'object' && node.additionalProperties === undefined)
    out.additionalProperties = node['x-kubernetes-preserve-unknown-fields'] === true;
  return out;
}

const INT32: readonly [number, number] = [-(2 ** 31), 2 ** 31 - 1];
const INT64: readonly [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** A value as CEL sees it under its schema: integers as CEL ints (bigint), the rest as JSON gives them. */
export function toCel(value: unknown, schema: Schema | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema.items as Schema | undefined));
  if (typeof value === 'object' && value !== null) {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const extra = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v, props[k] ?? extra)]));
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const intOrString = JSON.stringify(schema.allOf ?? []).includes('"integer"');
  if (typeof value === 'number' && Number.isInteger(value) && (types.includes('integer') || intOrString))
    return BigInt(value);
  return value;
}

function errorLine(e: ErrorObject): string {
  const at = e.instancePath === '' ? '(root)' : e.instancePath;
  if (e.keyword === 'additionalProperties')
    return `${at}/${(e.params as { additionalProperty: string }).additionalProperty}: unknown field`;
  if (e.keyword === 'enum')
    return `${at}: ${e.message} ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}`;
  return `${at}: ${e.message}`;
}

/** The CRDs of one Istio release (VirtualService, DestinationRule, Sidecar), ready to validate resources. */
export class IstioCrds {
  /** Every CEL rule met in the schemas, by its text: its message, how often it occurs, and the first schema it sits on. */
  readonly rules = new Map<string, { message: string; count: number; where: string; schema: Schema }>();
  /** Rules the CEL evaluator could not parse, with why: validating a value under one of them is an error. */
  readonly unparsed = new Map<string, string>();
  /** kind -> version -> the compiled validator of the whole resource. */
  private readonly validators = new Map<string, Map<string, ValidateFunction>>();
  /** kind -> version -> served? */
  readonly versions = new Map<string, Map<string, boolean>>();
  /** kind -> version -> the CRD's own openAPIV3Schema, for tests that look inside it. */
  readonly schemas = new Map<string, Map<string, Schema>>();
  private readonly programs = new Map<string, CelProgram>();

  constructor(readonly release: CrdRelease) {
    const file = referencePath('ground-truth', `istio-crds-${release}.yaml`);
    const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
    ajv.addFormat('int32', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= INT32[0] && n <= INT32[1],
    });
    ajv.addFormat('int64', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= INT64[0] && n <= INT64[1],
    });
    ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
    ajv.addFormat('byte', (s: string) => BASE64.test(s));
    ajv.addFormat('binary', () => true);
    ajv.addFormat('date-time', (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
    ajv.addKeyword({
      keyword: 'x-kubernetes-validations',
      schemaType: 'array',
      errors: true,
      validate: this.celKeyword(),
    });
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd = doc.toJS() as Crd | null;
      if (crd === null || crd.kind !== 'CustomResourceDefinition') continue;
      const kind = crd.spec.names.kind;
      const byVersion = new Map<string, ValidateFunction>();
      const served = new Map<string, boolean>();
      const schemas = new Map<string, Schema>();
      for (const v of crd.spec.versions) {
        const root = v.schema.openAPIV3Schema;
        this.collectRules(root, `${kind} ${v.name}`);
        const adapted = adaptSchema(root, `${kind} ${v.name}`);
        const props = adapted.properties as Record<string, Schema>;
        adapted.properties = {
          apiVersion: { const: `${crd.spec.group}/${v.name}` },
          kind: { const: kind },
          metadata: OBJECT_META,
          ...props,
        };
        adapted.required = ['apiVersion', 'kind', 'metadata', ...((adapted.required as string[] | undefined) ?? [])];
        byVersion.set(v.name, ajv.compile(adapted));
        served.set(v.name, v.served);
        schemas.set(v.name, root);
      }
      this.validators.set(kind, byVersion);
      this.versions.set(kind, served);
      this.schemas.set(kind, schemas);
    }
  }

  private collectRules(node: unknown, where: string): void {
    if (Array.isArray(node)) for (const [i, n] of node.entries()) this.collectRules(n, `${where}[${i}]`);
    else if (typeof node === 'object' && node !== null)
      for (const [k, v] of Object.entries(node)) {
        if (k === 'x-kubernetes-validations')
          for (const r of v as { rule: string; message?: string }[]) {
            const seen = this.rules.get(r.rule);
            this.rules.set(r.rule, {
              message: r.message ?? '',
              count: (seen?.count ?? 0) + 1,
              where: seen?.where ?? where,
              schema: seen?.schema ?? (node as Schema),
            });
            this.program(r.rule);
          }
        else this.collectRules(v, `${where}.${k}`);
      }
  }

  /** The compiled CEL rule, or undefined (recorded in `unparsed`) when the evaluator cannot parse it. */
  program(rule: string): CelProgram | undefined {
    if (this.programs.has(rule)) return this.programs.get(rule);
    if (this.unparsed.has(rule)) return undefined;
    try {
      const p = parseCel(rule) as unknown as CelProgram;
      this.programs.set(rule, p);
      return p;
    } catch (error) {
      this.unparsed.set(rule, String((error as Error).message).split('\n')[0] as string);
      return undefined;
    }
  }

  /** Runs one CEL rule on `self` as Kubernetes does: false, an error or a non-bool result is a failure. */
  evaluate(rule: string, self: unknown): { ok: true } | { ok: false; why: string } {
    const program = this.program(rule);
    if (program === undefined)
      return { ok: false, why: `the CEL evaluator cannot parse this rule: ${this.unparsed.get(rule)}` };
    try {
      const result = program({ self });
      if (result === true) return { ok: true };
      if (result === false) return { ok: false, why: 'false' };
      return { ok: false, why: `the rule gave ${typeof result}, not a bool` };
    } catch (error) {
      return { ok: false, why: `rule evaluation error: ${String((error as Error).message).split('\n')[0]}` };
    }
  }

  private celKeyword() {
    const validate = (
      rules: { rule: string; message?: string }[],
      data: unknown,
      parent: Schema,
      ctx?: { instancePath: string },
    ) => {
      const errors: Partial<ErrorObject>[] = [];
      const self = toCel(data, parent);
      for (const r of rules) {
        const outcome = this.evaluate(r.rule, self);
        if (!outcome.ok)
          errors.push({
            keyword: 'x-kubernetes-validations',
            instancePath: ctx?.instancePath ?? '',
            message: `${r.message ?? 'CEL rule failed'} (rule ${r.rule}: ${outcome.why})`,
            params: { rule: r.rule },
          });
      }
      (validate as unknown as { errors: Partial<ErrorObject>[] }).errors = errors;
      return errors.length === 0;
    };
    return validate as unknown as (schema: unknown, data: unknown, parent?: Schema, ctx?: unknown) => boolean;
  }

  /** Validates one resource by its apiVersion and kind: one line per problem (JSON pointer: message); [] when valid. */
  validate(doc: unknown): string[] {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return ['(root): a resource must be a mapping'];
    const { apiVersion, kind } = doc as { apiVersion?: unknown; kind?: unknown };
    const byVersion = this.validators.get(String(kind));
    if (byVersion === undefined)
      return [
        `/kind: ${JSON.stringify(kind)} is not one of this release's kinds (${[...this.validators.keys()].join(', ')})`,
      ];
    const m = /^networking\.istio\.io\/(\w+)$/.exec(String(apiVersion));
    const version = m?.[1];
    const validator = version === undefined ? undefined : byVersion.get(version);
    if (validator === undefined || this.versions.get(String(kind))?.get(version as string) !== true)
      return [
        `/apiVersion: ${JSON.stringify(apiVersion)} is not a served version of ${String(kind)} in Istio ${this.release}`,
      ];
    if (validator(doc)) return [];
    return [...new Set((validator.errors ?? []).map(errorLine))];
  }
}

const loaded = new Map<CrdRelease, IstioCrds>();

/** The CRDs of a release, loaded once per test file. */
export function istioCrds(release: CrdRelease): IstioCrds {
  let crds = loaded.get(release);
  if (crds === undefined) loaded.set(release, (crds = new IstioCrds(release)));
  return crds;
}
