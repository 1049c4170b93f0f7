// Validation of Istio documents with the published models (@kubernetes-models/istio, an optional peer), when installed.

const GROUP = 'networking.istio.io';
export const ISTIO_KINDS = ['VirtualService', 'DestinationRule', 'Sidecar'] as const;
export type IstioKind = (typeof ISTIO_KINDS)[number];

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

const cache = new Map<string, ModelClass | null>();

/**
 * The model class for networking.istio.io/<version> <kind>, or null when the optional peer dependency
 * `@kubernetes-models/istio` is not installed (lazily imported: the CLI pays for it only here).
 */
async function modelClass(version: string, kind: IstioKind): Promise<ModelClass | null> {
  const key = `${version}/${kind}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  try {
    const cls = (await importModel(key))[kind] as ModelClass;
    cache.set(key, cls);
    return cls;
  } catch (error) {
    if (!notInstalled(error)) throw error;
    cache.set(key, null);
    return null;
  }
}

/** The optional peer dependency; not a dev dependency (its 3.x declares Node >= 22), so it is often absent. */
const MODELS_PACKAGE = '@kubernetes-models/istio';
const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha3']);

/**
 * The published model's module for `version/kind`. The specifier is built at run time, so neither the compiler nor
 * a bundler needs the package to be installed.
 */
async function importModel(key: string): Promise<Record<string, unknown>> {
  const [version, kind] = key.split('/');
  if (!VERSIONS.has(version as string) || !(ISTIO_KINDS as readonly string[]).includes(kind as string)) {
    throw new Error(`no published Istio model for networking.istio.io/${key}`);
  }
  const specifier = `${MODELS_PACKAGE}/networking.istio.io/${version}/${kind}`;
  return (await import(specifier)) as Record<string, unknown>;
}

/** Node's error for a package that is not installed (and a bundler's, under a test runner). */
function notInstalled(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') return true;
  return (
    typeof e.message === 'string' &&
    e.message.includes(MODELS_PACKAGE) &&
    /cannot find|could not resolve|failed to (resolve|load)/i.test(e.message)
  );
}

/** Parses "networking.istio.io/v1" into its version, or undefined for another group. */
export function istioVersion(apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const [group, version] = apiVersion.split('/');
  return group === GROUP && version !== undefined ? version : undefined;
}

/**
 * Validates one document with its published model. Returns one "path: message" line per problem (JSON-pointer
 * paths turned into dotted ones), [] when the model accepts it, or null when the models are not installed.
 */
export async function validateIstioDocument(version: string, kind: IstioKind, doc: unknown): Promise<string[] | null> {
  const Model = await modelClass(version, kind);
  if (Model === null) return null;
  try {
    new Model(doc).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: { instancePath?: string; message?: string }[] }).errors;
    if (!Array.isArray(errors)) return [`${(error as Error).message}`];
    const lines = errors.map((e) => {
      const path = (e.instancePath ?? '')
        .split('/')
        .filter((p) => p !== '')
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '');
      return `${path === '' ? '(root)' : path}: ${e.message ?? 'is invalid'}`;
    });
    return [...new Set(lines)];
  }
}
