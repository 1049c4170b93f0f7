// Validation of Istio documents with the published models (@kubernetes-models/istio), imported only when needed.

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
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    cache.set(key, null);
    return null;
  }
}

/** The published model's module for `version/kind`. */
async function importModel(key: string): Promise<Record<string, unknown>> {
  let mod: Record<string, unknown>;
  switch (key) {
    case 'v1/VirtualService':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1/VirtualService');
      break;
    case 'v1/DestinationRule':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1/DestinationRule');
      break;
    case 'v1/Sidecar':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1/Sidecar');
      break;
    case 'v1beta1/VirtualService':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1beta1/VirtualService');
      break;
    case 'v1beta1/DestinationRule':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1beta1/DestinationRule');
      break;
    case 'v1beta1/Sidecar':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1beta1/Sidecar');
      break;
    case 'v1alpha3/VirtualService':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1alpha3/VirtualService');
      break;
    case 'v1alpha3/DestinationRule':
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1alpha3/DestinationRule');
      break;
    default:
      mod = await import('@kubernetes-models/istio/networking.istio.io/v1alpha3/Sidecar');
  }
  return mod;
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
