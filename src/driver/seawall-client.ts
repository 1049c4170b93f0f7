// SeawallClient: a driver's settings and telemetry, one per createFetch / retryInterceptor / createExecutor.

import type { ClientKind } from './events.js';
import type { ClientSettings, SeawallClientOptions } from './options.js';
import { TelemetrySource } from './telemetry.js';

/** Settings plus telemetry: one per createFetch / retryInterceptor / createExecutor. */
export class SeawallClient {
  readonly telemetry: TelemetrySource;
  /** Hooks that threw already (each is reported once). */
  readonly hooksWarned = new Set<string>();

  constructor(
    readonly settings: ClientSettings,
    telemetryOptions: SeawallClientOptions['telemetry'],
    /** The driver, as events name it. */
    readonly kind: ClientKind = 'fetch',
  ) {
    this.telemetry = new TelemetrySource(telemetryOptions, settings.policy, settings.upstreams);
  }
}
