// Small zod building blocks shared by the Envoy and Istio schemas, and the one-line-per-problem issue format.

import { z } from 'zod';
import { didYouMean } from '../policy/core/config-error.js';
import { MAX_LIST } from './bounds.js';
import { type DurationRead, describe } from './durations.js';

/** proto3 UInt32Value / uint32, written as a JSON number (0 to 4,294,967,295). */
export const uint32 = z
  .number({ error: (i) => `must be a whole number from 0 to 4294967295, got ${describe(i.input)}` })
  .int({ error: 'must be a whole number from 0 to 4294967295' })
  .min(0, { error: 'must be a whole number from 0 to 4294967295' })
  .max(4_294_967_295, { error: 'must be a whole number from 0 to 4294967295' });

/** A uint32 with Envoy's `lte: 100` rule (percentages in outlier detection). */
export const uint32Percent = uint32.max(100, { error: 'must be a whole percentage from 0 to 100' });

/** A duration string read by `reader`, kept as the original string (it is converted later, with its path). */
export function durationString(reader: (value: unknown) => DurationRead) {
  return z.unknown().superRefine((value, ctx) => {
    const read = reader(value);
    if (!read.ok) ctx.addIssue({ code: 'custom', message: read.message });
  }) as unknown as z.ZodType<string>;
}

/** A bounded list. */
export function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: (i) => `must be a list, got ${describe(i.input)}` }).max(MAX_LIST, {
    error: `must have at most ${MAX_LIST} items`,
  });
}

export const str = z.string({ error: (i) => `must be a string, got ${describe(i.input)}` });
export const bool = z.boolean({ error: (i) => `must be true or false, got ${describe(i.input)}` });

type Shape<F extends string, T extends Record<string, z.ZodType>> = { [K in keyof T]: z.ZodOptional<T[K]> } & {
  [K in Exclude<F, keyof T>]: z.ZodOptional<z.ZodUnknown>;
};

/**
 * A message whose every field name is known (from its .proto or CRD): the `typed` ones are checked, the others may
 * hold anything (they are not read). A name that is not a field is an error, with a suggestion.
 */
export function message<const F extends readonly string[], T extends Record<string, z.ZodType>>(fields: F, typed: T) {
  const shape: Record<string, z.ZodType> = {};
  for (const f of fields) shape[f] = z.unknown().optional();
  for (const [k, v] of Object.entries(typed)) shape[k] = v.optional();
  return z.strictObject(shape as Shape<F[number], T>, {
    error: (i) => (i.code === 'invalid_type' ? `must be a mapping, got ${describe(i.input)}` : undefined),
  });
}

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

function pathText(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path)
    out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out === '' ? '(root)' : out;
}

/** zod issues -> "source: path: message" lines; unknown fields get "did you mean" from `known(pathOfParent)`. */
export function issueLines(
  issues: readonly Issue[],
  source: string,
  prefix: string,
  known: (path: readonly PropertyKey[]) => readonly string[],
): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys ?? []) {
        const hint = didYouMean(key, known(issue.path));
        lines.push(`${source}: ${pathText(prefix, [...issue.path, key])}: unknown field${hint}`);
      }
      continue;
    }
    lines.push(`${source}: ${pathText(prefix, issue.path)}: ${issue.message}`);
  }
  return [...new Set(lines)];
}

/** The field names of the strict object schema reached by `path` from `root` (for suggestions). */
export function fieldsAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = root;
  for (const part of path) {
    node = unwrap(node);
    if (typeof part === 'number') {
      const def = (node as { def?: { element?: unknown } }).def;
      node = def?.element;
    } else {
      const shape = (node as { shape?: Record<string, unknown> }).shape;
      node = shape?.[part as string];
    }
    if (node === undefined) return [];
  }
  node = unwrap(node);
  const shape = (node as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(node: unknown): unknown {
  let current = node as { def?: { type?: string; innerType?: unknown; in?: unknown; schema?: unknown } } | undefined;
  for (let i = 0; i < 8 && current?.def; i++) {
    const def = current.def;
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') current = def.innerType as never;
    else if (def.type === 'pipe') current = def.in as never;
    else break;
  }
  return current;
}
