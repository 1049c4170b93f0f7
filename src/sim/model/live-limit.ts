// The bound on what one run holds at once (requests at services + pending events), and the stop when a run reaches it.

import type { ServiceRuntime } from './records.js';

/**
 * Requests at services (queued, working or calling) plus pending events (messages in transit, timers) one run may
 * hold at once, unless the file says otherwise (`maxLive:`). Each costs about 200-260 bytes of heap (a queued
 * request: its message, its user and its queue slot), so the default holds a run to about 250 MB of heap and 400 MB
 * of RSS; the built-in scenarios peak at 720,296 (checkout-incident's bad variant, its queue growing to the end).
 */
export const DEFAULT_MAX_LIVE = 1_000_000;

/** Heap bytes per live item, measured (docs/reliability.md): for the figure in the message only. */
const BYTES_PER_LIVE = 250;

/** A run stopped at its bound on live work: not a bug, and not a problem in the file's syntax. */
export class RunLimitError extends Error {
  readonly code = 'SEAWALL_RUN_LIMIT';

  constructor(message: string) {
    super(message);
    this.name = 'RunLimitError';
  }
}

/** An error carried across a worker thread (or any plain object) that is a RunLimitError, by its code. */
export function isRunLimitError(error: unknown): error is { code: 'SEAWALL_RUN_LIMIT'; message: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'SEAWALL_RUN_LIMIT' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

const n = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: 2 });
const seconds = (ms: number): string =>
  `${(Math.round(ms) / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} s`;

/** The service holding the most requests, and what holds them there: a queue (and its limit), or workers. */
function holder(services: readonly ServiceRuntime[]): string {
  let top: ServiceRuntime | null = null;
  for (const s of services) if (top === null || s.inFlight > top.inFlight) top = s;
  if (top === null) return '';
  const name = top.spec.name;
  let queued = 0;
  for (const instance of top.instances) queued += instance.shedder?.queued ?? 0;
  const shed = top.spec.shed;
  const instances = top.instances.length === 1 ? '' : ` in each of ${n(top.instances.length)} instances`;
  let where: string;
  let fix: string;
  if (shed === null) {
    where = 'none queued: it has no worker limit, so every request runs at once';
    fix = `give services.${name} workers and a queueLimit`;
  } else {
    const limit = shed.queueLimit ?? Number.POSITIVE_INFINITY;
    const workers = `${n(shed.workers)} worker${shed.workers === 1 ? '' : 's'}${instances}`;
    where = `${n(queued)} queued for ${workers}, queueLimit ${Number.isFinite(limit) ? n(limit) : 'unbounded'}`;
    fix = Number.isFinite(limit) ? `lower services.${name}.queueLimit` : `give services.${name} a queueLimit`;
  }
  return `; ${name} held ${n(top.inFlight)} requests (${where}). To run it: ${fix}, lower the traffic rate, or raise the top-level maxLive`;
}

/** The message of a run stopped at `limit`: the figure, when, where the requests were, and what to change. */
export function liveLimitMessage(
  limit: number,
  present: number,
  pending: number,
  nowMs: number,
  durationMs: number,
  services: readonly ServiceRuntime[],
): string {
  return (
    `stopped at ${seconds(nowMs)} of ${seconds(durationMs)}: ${n(present + pending)} requests and events held at once ` +
    `(${n(present)} requests at services, ${n(pending)} pending events), more than maxLive ${n(limit)} ` +
    `(about ${n(Math.round((limit * BYTES_PER_LIVE) / 1e6))} MB)${holder(services)}`
  );
}
