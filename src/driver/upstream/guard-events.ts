// What a client's guards publish: breaker transitions, ejections and their ends, refused attempts (channels and hooks).

import type { BreakerChange } from '../../policy/upstream/breaker.js';
import type { ChangeLog } from '../../policy/upstream/changes.js';
import type { UpstreamRefusal } from '../../policy/upstream/hold.js';
import type { EjectionChange } from '../../policy/upstream/outlier-types.js';
import {
  type BreakerEvent,
  breakerChannel,
  type ClientHooks,
  callHook,
  type EjectionEvent,
  ejectionChannel,
  type RefusedEvent,
  refusedChannel,
} from '../events.js';

/** The hook a breaker's new state calls. */
const BREAKER_HOOKS = { open: 'onBreak', 'half-open': 'onHalfOpen', closed: 'onReset' } as const;

/** Hands the hook its own object when subscribers share the published one (what one writes, the other never sees). */
function tell<E extends object>(hook: ((event: E) => void) | undefined, event: E, name: string, warned: Set<string>) {
  if (hook !== undefined) callHook(hook, { ...event }, name, warned);
}

/**
 * One client's publisher of guard events. The policies record their changes as data (ChangeLog, sans-I/O); this
 * drains them after each pipeline step and publishes. A payload is built only when a channel has subscribers or a
 * hook is set. A policy instance shared by several clients has one log: each change is published once, by the client
 * whose step drained it (with that client's hooks).
 */
export class GuardEvents {
  /** Hooks that threw already (each is reported once per client). */
  private readonly warned = new Set<string>();

  constructor(private readonly hooks: ClientHooks) {}

  /** Publishes the changes waiting in `breaker` and `ejections` (either may be null) for upstream `upstream`. */
  drain(upstream: string, breaker: ChangeLog<BreakerChange> | null, ejections: ChangeLog<EjectionChange> | null) {
    if (breaker !== null && !breaker.empty) for (const change of breaker.take()) this.breaker(upstream, change);
    if (ejections !== null && !ejections.empty) {
      for (const change of ejections.take()) this.ejection(upstream, change);
    }
  }

  private breaker(upstream: string, change: BreakerChange): void {
    const name = BREAKER_HOOKS[change.to];
    const hook = this.hooks[name];
    if (hook === undefined && !breakerChannel.hasSubscribers) return;
    const { from: previous, to: state, cause, breakDurationMs } = change;
    const event: BreakerEvent = { upstream, state, previous, cause, breakDurationMs };
    tell(hook, event, name, this.warned);
    if (breakerChannel.hasSubscribers) breakerChannel.publish(event);
  }

  private ejection(upstream: string, change: EjectionChange): void {
    const name = change.ejected ? 'onEject' : 'onUneject';
    const hook = this.hooks[name];
    if (hook === undefined && !ejectionChannel.hasSubscribers) return;
    const { host: endpoint, ejected, reason, ejectionTimeMs, ejectionsActive } = change;
    const event: EjectionEvent = { upstream, endpoint, ejected, reason, ejectionTimeMs, ejectionsActive };
    tell(hook, event, name, this.warned);
    if (ejectionChannel.hasSubscribers) ejectionChannel.publish(event);
  }

  /** Is anyone told about a refused attempt? (Then the caller builds the call's facts.) */
  refusedObserved(): boolean {
    return refusedChannel.hasSubscribers || this.hooks.onRefused !== undefined;
  }

  /** Publishes a refused attempt; `base` is the call's facts (client, upstream, method, url, elapsedMs). */
  refused(base: Omit<RefusedEvent, 'attempt' | 'refusal'>, attempt: number, refusal: UpstreamRefusal): void {
    const event: RefusedEvent = { ...base, attempt, refusal };
    tell(this.hooks.onRefused, event, 'onRefused', this.warned);
    if (refusedChannel.hasSubscribers) refusedChannel.publish(event);
  }
}
