// What a lab process records while it runs (plain arrays, times in ms since the lab's start) and how it is handed over.

/** Header a caller sends on every attempt: who waits for the answer (`u.<user>` for a user, `<service>.<attempt>`). */
export const LAB_PARENT_HEADER = 'x-lab-parent';
/** Header a service sets on the calls it makes for inbound request N (read by the attempt recorder, never sent). */
export const LAB_REQUEST_HEADER = 'x-lab-request';
/** Header carrying the user request's number down the chain (for the retry radius). */
export const LAB_USER_HEADER = 'x-lab-user';

/** The key of a user as a parent: `u.<id>`. */
export function userKey(id: number): string {
  return `u.${id}`;
}

/** The key of a service's outbound attempt as a parent: `<service index>.<attempt id>`. */
export function attemptKey(service: number, attempt: number): string {
  return `${service}.${attempt}`;
}

/** One service's inbound requests, parallel arrays indexed by the request's number in that service. */
export interface InboundRecords {
  arrivalMs: number[];
  /** The parent key sent with the request ('' when it had none). */
  parent: string[];
  /** The user request it serves (-1 unknown). */
  user: number[];
  /** When it took a worker (its execution started); -1 = never (refused, dropped, cancelled while queued). */
  startMs: number[];
  /** How long it waited for the worker. */
  waitedMs: number[];
  /** The work time it drew (its service time, plus a fault's extra; an error's cost): what the execution should take. */
  workMs: number[];
  /** When its execution ended (answered, or abandoned after its work); -1 = never started or still running. */
  endMs: number[];
  /** Status answered (0 = none: the client was gone). */
  status: number[];
}

/** One service's outbound attempts, parallel arrays indexed by attempt id. */
export interface AttemptRecords {
  /** Callee service name. */
  to: string[];
  /** The inbound request (of this service) the attempt was made for. */
  request: number[];
  startMs: number[];
  /** When the caller stopped waiting: the response head arrived, or the attempt failed or was aborted; -1 = never. */
  endMs: number[];
  /** 1 when the response head arrived (the caller got the answer), 0 otherwise. */
  answered: number[];
  status: number[];
}

/** Gauges sampled at each 1 s bin's end. */
export interface GaugeRecords {
  queueLength: number[];
  inFlight: number[];
  /** Mean budget level over the service's calls; null without a finite budget. */
  budget: (number | null)[];
  /** Per callee: 1 when the circuit breaker on that call was open at the bin's end. */
  breakerOpen: Record<string, number[]>;
}

/** The circuit breaker's and limits' counters of one call edge at the end (policy stats, as the simulator reports). */
export interface EdgeEndStats {
  circuitBreaker: Record<string, number> | null;
  limits: Record<string, number> | null;
}

export interface ServiceRecords {
  service: string;
  index: number;
  inbound: InboundRecords;
  attempts: AttemptRecords;
  gauges: GaugeRecords;
  edges: Record<string, EdgeEndStats>;
  /** Problems the process met (uncaught errors in handlers), one line each; empty in a clean run. */
  errors: string[];
}

/** The load generator's users, parallel arrays indexed by user id. */
export interface UserRecords {
  arrivalMs: number[];
  /** -1 = still waiting when the run ended. */
  endMs: number[];
  /** 1 = a successful answer within the patience. */
  success: number[];
  status: number[];
}

export function emptyInbound(): InboundRecords {
  return { arrivalMs: [], parent: [], user: [], startMs: [], waitedMs: [], workMs: [], endMs: [], status: [] };
}

export function emptyAttempts(): AttemptRecords {
  return { to: [], request: [], startMs: [], endMs: [], answered: [], status: [] };
}

export function emptyUsers(): UserRecords {
  return { arrivalMs: [], endMs: [], success: [], status: [] };
}
