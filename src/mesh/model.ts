// The neutral model both meshes are read into and written from: per-edge Seawall policy blocks and callee limits.

import { isIdempotentMethod } from '../policy/retry/classify.js';
import { MAX_EDGES } from './bounds.js';
import { MeshError, type MeshWarning } from './errors.js';

/** Seawall's keys for one `caller -> callee` entry of a scenario's `calls:` (the retry keys and the new blocks). */
export interface EdgePolicy {
  /** RetryPolicyConfig keys, Seawall spelling; null when the mesh file says nothing about retries for this edge. */
  retry: Record<string, unknown> | null;
  limits?: Record<string, unknown>;
  outlierDetection?: Record<string, unknown>;
  loadBalancer?: { kind: 'round-robin' | 'p2c'; panicThreshold?: number };
  circuitBreaker?: Record<string, unknown> | false;
}

/** Which requests on this edge get replayed on conditions a non-idempotent request must not be replayed on. */
export type UnsafeReplay = 'none' | 'explicit' | 'all-methods';

export interface MeshEdge extends EdgePolicy {
  /** The caller; null when the file does not say (a VirtualService applies to every caller of its host). */
  from: string | null;
  to: string;
  /** Where it was read: file and path, for messages. */
  source: string;
  unsafeReplay: UnsafeReplay;
}

export interface MeshServiceLimits {
  name: string;
  /** Requests run at once in front of the process (the inbound max_requests / connections). */
  workers?: number;
  /** Requests allowed to wait (the inbound max_pending_requests). */
  queueLimit?: number;
  source: string;
}

export interface MeshRead {
  edges: MeshEdge[];
  services: MeshServiceLimits[];
  warnings: MeshWarning[];
  /** Hosts that could not be mapped to a service name. */
  unmapped: string[];
}

const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** --map HOST=SERVICE pairs, and the rule for everything else: the first DNS label. */
export class HostMap {
  private readonly explicit: Map<string, string>;
  readonly unmapped = new Set<string>();

  constructor(pairs: readonly string[] = []) {
    this.explicit = new Map();
    const problems: string[] = [];
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      const host = eq > 0 ? pair.slice(0, eq).trim() : '';
      const service = eq > 0 ? pair.slice(eq + 1).trim() : '';
      if (host === '' || !SERVICE_NAME.test(service)) {
        problems.push(`--map ${pair}: must be HOST=SERVICE, SERVICE letters, digits, "_" or "-"`);
      } else this.explicit.set(host.toLowerCase(), service);
    }
    if (problems.length > 0) throw new MeshError(problems);
  }

  /** Was `host` named in a --map pair? */
  isExplicit(host: string): boolean {
    return this.explicit.has(host.trim().toLowerCase());
  }

  /**
   * The service a host (or an Envoy cluster name) stands for: --map first; Istio's `outbound|port|subset|host`
   * cluster names by their host; then the first DNS label (`coupon-api.default.svc.cluster.local` -> `coupon-api`).
   * Undefined (and remembered in `unmapped`) for wildcards, IP addresses and names that are no service name.
   */
  service(host: string): string | undefined {
    const key = host.trim().toLowerCase();
    const mapped = this.explicit.get(key);
    if (mapped !== undefined) return mapped;
    const parts = key.split('|');
    if (parts.length === 4 && parts[0] === 'outbound' && parts[3] !== '') return this.service(parts[3] as string);
    const label = key.split(':')[0]?.split('.')[0] ?? '';
    if (/^\d+$/.test(label) || !SERVICE_NAME.test(label)) {
      this.unmapped.add(host);
      return undefined;
    }
    return label;
  }
}

/** Does a request with one of `methods` risk a replay after the server acted (RFC 9110 idempotency)? */
export function carriesNonIdempotent(methods: 'any' | readonly string[]): boolean {
  return methods === 'any' || methods.some((m) => !isIdempotentMethod(m));
}

export function checkEdgeCount(edges: readonly unknown[]): void {
  if (edges.length > MAX_EDGES) throw new MeshError([`more than ${MAX_EDGES} call edges`]);
}
