// LabError: why `seawall lab` could not set up what it replays on (a stable code, and a message a user can act on).

/**
 * - `postgres-missing`: no usable `initdb`/`pg_ctl` (not installed, or a `binDir` without them);
 * - `postgres-user-missing`: running as root (PostgreSQL refuses to) and there is no `postgres` system user to run as;
 * - `postgres-failed`: a step (`initdb`, `start`, `stop`) failed or timed out; `logTail` has the server log's end;
 * - `pg-missing`: the `pg` driver package is not installed;
 * - `db-unreachable`: the --db URL did not connect and answer `SELECT 1` within the time limit (the message says why);
 * - `lab-options`, `lab-variant`, `lab-unsupported`, `lab-process`: the lab's own (bad options, an unknown or
 *   unreplayable variant, a service process that failed).
 */
export type LabErrorCode =
  | 'postgres-missing'
  | 'postgres-user-missing'
  | 'postgres-failed'
  | 'pg-missing'
  | 'db-unreachable'
  | 'lab-options'
  | 'lab-variant'
  | 'lab-unsupported'
  | 'lab-process';

/** The step of a throwaway cluster's life that failed. */
export type LabStep = 'find' | 'initdb' | 'start' | 'stop';

export interface LabErrorDetails {
  step?: LabStep;
  /** The last lines of the server log (or of the failing command's output), when there is one. */
  logTail?: string;
  cause?: unknown;
}

export class LabError extends Error {
  readonly code: LabErrorCode;
  readonly step: LabStep | undefined;
  readonly logTail: string | undefined;

  constructor(code: LabErrorCode, message: string, details: LabErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'LabError';
    this.code = code;
    this.step = details.step;
    this.logTail = details.logTail;
  }
}
