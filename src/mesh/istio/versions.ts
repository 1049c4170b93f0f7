// The Istio release each field the export writes needs: the floor a file states, from the CRDs' history.

/** A field Istio accepts only from a release on (the release whose CRDs first carry it). */
interface Floor {
  version: string;
  /** What needs it, for the export's notes and docs/mesh.md. */
  what: string;
  uses(doc: Record<string, unknown>): boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function spec(doc: Record<string, unknown>): Record<string, unknown> {
  return isRecord(doc.spec) ? doc.spec : {};
}

function trafficPolicies(doc: Record<string, unknown>): Record<string, unknown>[] {
  if (doc.kind !== 'DestinationRule') return [];
  const s = spec(doc);
  const subsets = Array.isArray(s.subsets) ? s.subsets : [];
  return [s.trafficPolicy, ...subsets.map((x) => (isRecord(x) ? x.trafficPolicy : undefined))].filter(isRecord);
}

function retries(doc: Record<string, unknown>): Record<string, unknown>[] {
  if (doc.kind !== 'VirtualService') return [];
  const http = spec(doc).http;
  return (Array.isArray(http) ? http : []).map((r) => (isRecord(r) ? r.retries : undefined)).filter(isRecord);
}

/**
 * The floors, newest first. Sources: the networking.istio.io CRDs Istio ships (manifests/charts/base/files/
 * crd-all.gen.yaml): `networking.istio.io/v1` is served from 1.22, Sidecar `inboundConnectionPool` appears in 1.24,
 * HTTPRetry `backoff` in 1.26, DestinationRule `trafficPolicy.retryBudget` in 1.27.
 */
export const ISTIO_FLOORS: readonly Floor[] = [
  {
    version: '1.27',
    what: 'trafficPolicy.retryBudget',
    uses: (doc) => trafficPolicies(doc).some((tp) => tp.retryBudget !== undefined),
  },
  { version: '1.26', what: 'retries.backoff', uses: (doc) => retries(doc).some((r) => r.backoff !== undefined) },
  {
    version: '1.24',
    what: 'Sidecar inboundConnectionPool',
    uses: (doc) => doc.kind === 'Sidecar' && spec(doc).inboundConnectionPool !== undefined,
  },
  { version: '1.22', what: 'networking.istio.io/v1', uses: () => true },
];

export interface IstioFloor {
  /** The oldest Istio release that accepts every document ("1.27"). */
  version: string;
  /** The fields that set it. */
  because: string[];
}

/** The oldest Istio release that accepts all of `docs`, and which fields decide it. */
export function istioFloor(docs: readonly unknown[]): IstioFloor {
  const records = docs.filter(isRecord);
  // @ko mesh-export-istio-floor
  for (const floor of ISTIO_FLOORS) {
    const because = ISTIO_FLOORS.filter((f) => f.version === floor.version && records.some((d) => f.uses(d)));
    if (because.length > 0) return { version: floor.version, because: because.map((f) => f.what) };
  }
  return { version: '1.22', because: ['networking.istio.io/v1'] };
}
