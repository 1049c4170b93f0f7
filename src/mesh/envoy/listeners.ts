// The route configurations a listener's HTTP connection managers name: inline (route_config) or by RDS name.

import { MAX_LIST } from '../bounds.js';
import type { MeshWarning } from '../errors.js';

export const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** A value found in a document, with its path. */
export interface Located {
  value: unknown;
  path: string;
}

/** The names Envoy's HTTP connection manager filter goes by (the v3 one, and the deprecated one). */
const HCM_NAMES = ['envoy.filters.network.http_connection_manager', 'envoy.http_connection_manager'];

export interface ListenerRoutes {
  /** Route configurations written inside the connection managers. */
  inline: Located[];
  /** Route configurations fetched by name over RDS (path: the connection manager's `rds`). */
  rds: { name: string; path: string }[];
  /** Connection managers whose routes are not read (scoped RDS, not the v3 type), each as `path: why`. */
  unread: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The listed values of `field` in `owner` (a list after normalize.ts); a value of another kind is a problem. */
function listed(owner: Record<string, unknown>, field: string, path: string, fail: (line: string) => void): Located[] {
  const value = owner[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    fail(`${path}.${field}: must be a list`);
    return [];
  }
  if (value.length > MAX_LIST) fail(`${path}.${field}: must have at most ${MAX_LIST} items`);
  return value.slice(0, MAX_LIST).map((v, i) => ({ value: v, path: `${path}.${field}[${i}]` }));
}

/**
 * Every HTTP connection manager of a listener (filter_chains and default_filter_chain), with what it routes by.
 * Anything in the way that is not a mapping is a problem with its path, never skipped silently.
 */
export function listenerRoutes(listener: unknown, path: string, source: string, problems: string[]): ListenerRoutes {
  const out: ListenerRoutes = { inline: [], rds: [], unread: [] };
  const fail = (line: string) => problems.push(`${source}: ${line}`);
  if (!isRecord(listener)) {
    fail(`${path}: must be a mapping (an Envoy Listener)`);
    return out;
  }
  const chains = listed(listener, 'filter_chains', path, fail);
  if (listener.default_filter_chain !== undefined && listener.default_filter_chain !== null)
    chains.push({ value: listener.default_filter_chain, path: `${path}.default_filter_chain` });
  for (const chain of chains) {
    if (!isRecord(chain.value)) {
      // @ko envoy-listener-no-silent-skip
      fail(`${chain.path}: must be a mapping (a FilterChain)`);
      continue;
    }
    for (const filter of listed(chain.value, 'filters', chain.path, fail)) {
      if (!isRecord(filter.value)) {
        fail(`${filter.path}: must be a mapping (a Filter)`);
        continue;
      }
      const typed = filter.value.typed_config;
      if (!isRecord(typed) || typed['@type'] !== HCM_TYPE) {
        if (HCM_NAMES.includes(filter.value.name as string))
          out.unread.push(
            `${filter.path}: an HTTP connection manager without a typed_config of @type ${HCM_TYPE}; its routes are not read`,
          );
        continue;
      }
      const at = `${filter.path}.typed_config`;
      const rds = typed.rds;
      if (typed.route_config !== undefined) out.inline.push({ value: typed.route_config, path: `${at}.route_config` });
      else if (isRecord(rds) && typeof rds.route_config_name === 'string')
        out.rds.push({ name: rds.route_config_name, path: `${at}.rds` });
      else if (rds !== undefined) fail(`${at}.rds: must be a mapping with a route_config_name`);
      else if (typed.scoped_routes !== undefined)
        out.unread.push(`${at}.scoped_routes: scoped routes (SRDS) are not read; their routes are not imported`);
    }
  }
  return out;
}

/** Notes for the routes a bootstrap's listeners name but do not hold (RDS, scoped RDS). */
export function bootstrapRouteNotes(found: ListenerRoutes): MeshWarning[] {
  return [
    ...found.rds.map((r) => ({
      kind: 'note' as const,
      where: '',
      field: 'routes',
      message: `${r.path}: routes come from RDS (route_config_name ${r.name}) and are not read from a bootstrap; import the route config too (the proxy's /config_dump, or a RouteConfiguration document)`,
    })),
    ...found.unread.map((message) => ({ kind: 'note' as const, where: '', field: 'routes', message })),
  ];
}
