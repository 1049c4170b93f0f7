// What an Istio route or traffic policy says that Seawall does not model: fault injection, mirroring, port-level
// settings and gateway bindings — each reported by name, so nothing in a file is dropped unsaid.

import type { MeshWarning } from '../errors.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "50 %" from Istio's `percentage: { value }` (or the old integer `percent`); "every request" without one. */
function share(block: Record<string, unknown>): string {
  const percentage = isRecord(block.percentage) ? block.percentage.value : block.percent;
  return typeof percentage === 'number' ? `${percentage} % of requests` : 'every request';
}

/** fault, mirror/mirrors: reported as dropped, with what they would change. */
export function reportIstioRoute(route: Record<string, unknown>, where: string, warnings: MeshWarning[]): void {
  const warn = (field: string, message: string) => warnings.push({ kind: 'dropped', where, field, message });
  // @ko mesh-istio-reports-fault-mirror
  const fault = route.fault;
  if (isRecord(fault)) {
    const parts: string[] = [];
    if (isRecord(fault.abort)) {
      const status = fault.abort.httpStatus ?? fault.abort.grpcStatus ?? 'an error';
      parts.push(`abort ${share(fault.abort)} with ${String(status)}`);
    }
    if (isRecord(fault.delay)) {
      const by = fault.delay.fixedDelay ?? fault.delay.exponentialDelay ?? 'a delay';
      parts.push(`delay ${share(fault.delay)} by ${String(by)}`);
    }
    warn(
      'fault',
      `fault (${parts.join('; ') || 'empty'}): the caller's sidecar injects it before routing, so those requests never reach the callee and are not retried; Seawall's faults are set on the scenario's services, not imported from here`,
    );
  }
  const mirrors = [route.mirror, ...(Array.isArray(route.mirrors) ? route.mirrors : [])].filter((m) => m !== undefined);
  if (mirrors.length > 0) {
    const hostsOf = mirrors
      .map((m) => (isRecord(m) && isRecord(m.destination) ? m.destination.host : isRecord(m) ? m.host : undefined))
      .filter((h): h is string => typeof h === 'string');
    warn(
      'mirror',
      `mirror${hostsOf.length > 0 ? ` to ${hostsOf.join(', ')}` : ''}: the sidecar sends a copy of each request and ignores the answer; the extra load at the mirror is not modelled`,
    );
  }
}

/** portLevelSettings: Seawall has one policy per call, the DestinationRule's top-level (or subset) one. */
export function reportTrafficPolicy(
  tp: Record<string, unknown> | undefined,
  where: string,
  warnings: MeshWarning[],
): void {
  const ports = tp?.portLevelSettings;
  if (!Array.isArray(ports) || ports.length === 0) return;
  const numbers = ports
    .map((p) => (isRecord(p) && isRecord(p.port) ? p.port.number : undefined))
    .filter((n) => n !== undefined)
    .join(', ');
  warnings.push({
    kind: 'dropped',
    where,
    field: 'portLevelSettings',
    message: `portLevelSettings${numbers !== '' ? ` (port ${numbers})` : ''}: Seawall has one policy per call, the top-level one; the port-level policies are not mapped`,
  });
}

/**
 * A VirtualService with `gateways` that do not include `mesh` applies to those gateways' proxies only, not to the
 * sidecars of callers inside the mesh (Istio's VirtualService reference: "mesh" is the reserved name for all
 * sidecars, and the default when `gateways` is omitted). Returns the gateways when the route is gateway-only.
 */
export function gatewayOnly(specGateways: unknown, route: Record<string, unknown>): string[] | null {
  const matches = Array.isArray(route.match) ? route.match : [];
  const perMatch = matches.map((m) => (isRecord(m) && Array.isArray(m.gateways) ? (m.gateways as unknown[]) : null));
  const bound =
    perMatch.length > 0 && perMatch.every((g) => g !== null && g.length > 0)
      ? perMatch.flatMap((g) => g as unknown[])
      : Array.isArray(specGateways) && specGateways.length > 0
        ? specGateways
        : null;
  if (bound === null || bound.includes('mesh')) return null;
  return bound.map(String);
}
