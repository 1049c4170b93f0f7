// The scenario file's shape as a zod schema: structure, types and ranges (cross-references are checked in resolve.ts).

import { z } from 'zod';
import { SHED_CONFIG_KEYS, type ShedConfigKey } from '../../policy/admission/shed-config.js';
import { tryParseDuration } from '../../policy/core/duration.js';

/** A message function for schema-level errors: a missing key always reads "is required". */
function say(message: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? 'is required' : message);
}

/** A Duration (ms as a number, or "800ms", "2s", ...), parsed to ms. */
export const durationMs = z.unknown().transform((value, ctx) => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is required' });
    return z.NEVER;
  }
  const parsed = tryParseDuration(value);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  return parsed.ms;
});

const positiveDurationMs = durationMs.refine((ms) => ms > 0, { error: 'must be greater than 0' });

/**
 * A time the reader of a scenario must not misread: the run's duration, a window's bounds, a user's patience. A bare
 * number would silently mean milliseconds (`patience: 2` is 2 ms, not 2 s), so these need a unit; 0 needs none.
 */
const unitDurationMs = z.unknown().superRefine((value, ctx) => {
  if (typeof value === 'number' && value !== 0) {
    ctx.addIssue({ code: 'custom', message: `${value} has no unit: write ${value}ms or ${value}s` });
  }
});
const withUnit = <T extends z.ZodType>(schema: T) => unitDurationMs.pipe(schema);

const distObject = z.discriminatedUnion(
  'dist',
  [
    z.strictObject({ dist: z.literal('constant'), value: durationMs }),
    z.strictObject({ dist: z.literal('exponential'), mean: positiveDurationMs }),
    z.strictObject({
      dist: z.literal('lognormal'),
      mean: positiveDurationMs,
      sigma: z
        .number({ error: say('must be a number') })
        .positive({ error: 'must be greater than 0' })
        .optional(),
    }),
  ],
  { error: say('must be a duration, or { dist: constant | exponential | lognormal, ... }') },
);

/** A duration distribution; a plain Duration means a constant. */
export const distSchema = z.preprocess(
  (value) => (typeof value === 'number' || typeof value === 'string' ? { dist: 'constant', value } : value),
  distObject,
);

const integerAtLeastOne = z
  .number({ error: say('must be an integer ≥ 1') })
  .int({ error: 'must be an integer ≥ 1' })
  .min(1, { error: 'must be an integer ≥ 1' });

const statusCode = z
  .number({ error: say('must be an HTTP status from 400 to 599') })
  .int({ error: 'must be an HTTP status from 400 to 599' })
  .min(400, { error: 'must be an HTTP status from 400 to 599' })
  .max(599, { error: 'must be an HTTP status from 400 to 599' });

const probability = z
  .number({ error: say('must be a probability from 0 to 1') })
  .min(0, { error: 'must be a probability from 0 to 1' })
  .max(1, { error: 'must be a probability from 0 to 1' });

const errorsSchema = z.strictObject({
  rate: probability,
  status: statusCode.optional(),
  cost: durationMs.optional(),
});

const callSchema = z.union(
  [
    z.string().min(1),
    z.strictObject({ to: z.string({ error: say('must be a service name') }), optional: z.boolean().optional() }),
  ],
  { error: say('must be a service name or { to: NAME, optional: true }') },
);

/**
 * Instances of one service, at most. Every caller instance keeps a balancer (and an outlier detector) over all its
 * callee's instances, so memory grows with callers × callees; the cap also stays below the detector's default
 * `maxHosts` (1024), which would otherwise forget hosts of its own pool.
 */
export const MAX_INSTANCES = 1000;

const instanceCount = z
  .number({ error: say(`must be an integer from 1 to ${MAX_INSTANCES}`) })
  .int({ error: `must be an integer from 1 to ${MAX_INSTANCES}` })
  .min(1, { error: `must be an integer from 1 to ${MAX_INSTANCES}` })
  .max(MAX_INSTANCES, { error: `must be an integer from 1 to ${MAX_INSTANCES}` });

/** Service keys that are LoadShedder config besides `workers` (the policy's list, shed-config.ts). */
export const SHED_KEYS = SHED_CONFIG_KEYS.filter((k) => k !== 'workers') as readonly Exclude<
  ShedConfigKey,
  'workers'
>[];
const shedKeys = Object.fromEntries(SHED_KEYS.map((k) => [k, z.unknown().optional()])) as Record<
  (typeof SHED_KEYS)[number],
  z.ZodOptional<z.ZodUnknown>
>;

/** Keys of a service; the LoadShedder keys are checked by the policy's own validator. */
export const serviceSchema = z.strictObject({
  instances: instanceCount.optional(),
  workers: integerAtLeastOne.optional(),
  serviceTime: distSchema.optional(),
  errors: errorsSchema.optional(),
  calls: z.array(callSchema, { error: say('must be a list of service names') }).optional(),
  parallel: z.boolean({ error: say('must be true or false') }).optional(),
  /** false: the service does not run Seawall (ignores hop headers, sends no claims); default true. */
  seawall: z.boolean({ error: say('must be true or false') }).optional(),
  ...shedKeys,
});

const trafficSchema = z.strictObject({
  to: z.string({ error: say('must be a service name') }),
  rate: z.number({ error: say('must be a number of requests per second') }).positive({ error: 'must be > 0' }),
  patience: withUnit(positiveDurationMs).optional(),
});

const instanceIndex = z
  .number({ error: say('must be an instance index (an integer ≥ 0)') })
  .int({ error: 'must be an instance index (an integer ≥ 0)' })
  .min(0, { error: 'must be an instance index (an integer ≥ 0)' });

const faultSchema = z.strictObject({
  service: z.string({ error: say('must be a service name') }).optional(),
  /** Which of the service's instances the fault hits (default: all). */
  instances: z
    .array(instanceIndex, { error: say('must be a list of instance indices, e.g. [0, 2]') })
    .min(1, { error: 'must list at least one instance (leave it out for all)' })
    .optional(),
  at: durationMs,
  for: positiveDurationMs,
  workers: integerAtLeastOne.optional(),
  errors: errorsSchema.optional(),
  latency: durationMs.optional(),
  surge: z
    .number({ error: say('must be a number') })
    .min(0, { error: 'must be ≥ 0' })
    .optional(),
});

const windowSchema = z
  .array(withUnit(durationMs), { error: say('must be [start, end], e.g. [40s, 50s]') })
  .length(2, { error: 'must be [start, end], e.g. [40s, 50s]' });

const mapping = { error: say('must be a mapping') };

/** What a model is made of: the top level of a file, and what a variant may override. */
export const modelSchema = z.strictObject({
  traffic: z.array(trafficSchema, { error: say('must be a list of traffic sources') }).min(1, {
    error: 'must list at least one source',
  }),
  network: z.strictObject({ latency: distSchema.optional() }, mapping).optional(),
  services: z.record(z.string(), serviceSchema, mapping),
  calls: z.record(z.string(), z.unknown(), mapping).optional(),
  faults: z.array(faultSchema, { error: say('must be a list') }).optional(),
  cancellation: z.boolean({ error: say('must be true or false') }).optional(),
  /** Error ownership at every hop (an edge's own `ownership` key wins). */
  ownership: z.boolean({ error: say('must be true or false') }).optional(),
});

export type ModelInput = z.output<typeof modelSchema>;
export type ServiceInput = z.output<typeof serviceSchema>;
export type FaultInput = z.output<typeof faultSchema>;

/** A variant: overrides merged over the top level (objects merge key by key, lists replace, null removes). */
export const variantSchema = z.strictObject(
  {
    description: z.string({ error: say('must be a string') }).optional(),
    /** Where the report lists the variant (e.g. "seed", "proposals", "fix", "ablations"); not inherited. */
    group: z
      .string({ error: say('must be a string') })
      .min(1, { error: 'must not be empty' })
      .optional(),
    extends: z.string({ error: say('must be the name of another variant') }).optional(),
    traffic: z.unknown().optional(),
    network: z.unknown().optional(),
    services: z.record(z.string(), z.unknown(), mapping).optional(),
    calls: z.record(z.string(), z.unknown(), mapping).optional(),
    faults: z.unknown().optional(),
    cancellation: z.unknown().optional(),
    ownership: z.unknown().optional(),
  },
  mapping,
);

/** The top level of a scenario file. Model keys are checked after variants are merged in. */
export const fileSchema = z.strictObject(
  {
    name: z.string({ error: say('must be a string') }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: 'must be letters, digits, ".", "_" or "-"',
    }),
    description: z.string({ error: say('must be a string') }).optional(),
    extends: z.string().optional(),
    duration: withUnit(positiveDurationMs),
    maxRequests: z
      .number({ error: say('must be a number of service requests') })
      .int({ error: 'must be a whole number' })
      .positive({ error: 'must be > 0' })
      .optional(),
    maxLive: z
      .number({ error: say('must be a number of requests and events') })
      .int({ error: 'must be a whole number' })
      .positive({ error: 'must be > 0' })
      .optional(),
    windows: z.record(z.string(), windowSchema, mapping).optional(),
    variants: z.record(z.string(), variantSchema, mapping).optional(),
    traffic: z.unknown(),
    network: z.unknown().optional(),
    services: z.unknown(),
    calls: z.unknown().optional(),
    faults: z.unknown().optional(),
    cancellation: z.unknown().optional(),
    ownership: z.unknown().optional(),
  },
  mapping,
);

/** Every key the format knows, for "did you mean" hints. */
export const KNOWN_KEYS: readonly string[] = [
  ...Object.keys(fileSchema.shape),
  ...Object.keys(serviceSchema.shape),
  ...Object.keys(trafficSchema.shape),
  ...Object.keys(faultSchema.shape),
  ...Object.keys(errorsSchema.shape),
  'extends',
  'group',
  'latency',
  'dist',
  'mean',
  'value',
  'sigma',
  'to',
  'optional',
];
