// What the caller side (caller.ts) needs of the simulated world, which World implements: so neither imports the other.

import type { Engine } from '../engine.js';
import type { Metrics } from '../metrics/collector.js';
import type { CancelHost } from './cancel.js';
import type { Sampler } from './distributions.js';
import type { OutcomeTable } from './outcomes.js';
import type { Request } from './records.js';

export interface CallerHost extends CancelHost {
  readonly engine: Engine;
  readonly metrics: Metrics;
  /** Network latency of a message. */
  readonly network: Sampler;
  readonly networkIsZero: boolean;
  readonly cancellation: boolean;
  /** Statuses and Retry-After values, interned: a response event carries an index. */
  readonly outcomes: OutcomeTable;
  /** Ends the handling of a request and answers whoever still waits for it. */
  respond(request: Request, status: number, headers: Readonly<Record<string, string>> | null): void;
}
